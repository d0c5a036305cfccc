package gendocs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/podlint/podlint/internal/cli"
	ucli "github.com/urfave/cli/v2"
)

// usageMarkdown renders docs/usage.md from the command and flag definitions
// themselves, so the page cannot drift from the binary. Hidden commands and
// flags are left out, as in --help.
func usageMarkdown() string {
	app := cli.App()
	var b strings.Builder
	b.WriteString("# podlint command line\n\n")
	b.WriteString("<!-- Generated from the command definitions in internal/cli by `go generate ./...`; a test fails when this file is stale. -->\n\n")
	fmt.Fprintf(&b, "%s: %s.\n\n```\n%s\n```\n\n", app.Name, app.Usage, app.UsageText)
	b.WriteString(mdText(app.Description) + "\n\n")
	b.WriteString("Global flags: `--help`, `-h` prints help (also after a command: `podlint check --help`); `--version`, `-v` prints the version.\n\n")
	b.WriteString("Settings that are not flags of a single run live in `.podlint.yaml`: see [config.md](config.md). ")
	b.WriteString("The report formats are described in [output.md](output.md), CI setups in [ci.md](ci.md).\n\n")
	b.WriteString("Commands:\n\n")
	var cmds []*ucli.Command
	for _, c := range app.Commands {
		if !c.Hidden {
			cmds = append(cmds, c)
			fmt.Fprintf(&b, "- [`%s`](#podlint-%s): %s\n", c.Name, c.Name, c.Usage)
		}
	}
	for _, c := range cmds {
		fmt.Fprintf(&b, "\n## podlint %s\n\n%s.\n\n", c.Name, upperFirst(c.Usage))
		synopsis := "podlint " + c.Name
		if len(visibleFlags(c.Flags)) > 0 {
			synopsis += " [flags]"
		}
		if c.ArgsUsage != "" {
			synopsis += " " + c.ArgsUsage
		}
		fmt.Fprintf(&b, "```\n%s\n```\n\n", synopsis)
		if c.Description != "" {
			b.WriteString(mdText(c.Description) + "\n\n")
		}
		flags := visibleFlags(c.Flags)
		if len(flags) == 0 {
			continue
		}
		// Flags are grouped as --help groups them, by category in
		// alphabetical order; a command without categories has one table.
		sort.SliceStable(flags, func(i, j int) bool { return category(flags[i]) < category(flags[j]) })
		for i, f := range flags {
			if i == 0 || category(f) != category(flags[i-1]) {
				if g := category(f); g != "" {
					fmt.Fprintf(&b, "\n%s:\n\n", g)
				}
				b.WriteString("| Flag | Default | Meaning |\n|---|---|---|\n")
			}
			placeholder, usage := unquote(f.GetUsage())
			var names []string
			for _, n := range f.Names() {
				dash := "--"
				if len(n) == 1 {
					dash = "-"
				}
				if f.TakesValue() {
					names = append(names, "`"+dash+n+" "+placeholder+"`")
				} else {
					names = append(names, "`"+dash+n+"`")
				}
			}
			def := ""
			if f.TakesValue() && f.GetDefaultText() != "" {
				def = "`" + strings.Trim(f.GetDefaultText(), `"`) + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.Join(names, ", "), def, mdCell(usage))
		}
	}
	// Sections without a description or flags leave a double blank line.
	out := b.String()
	for strings.Contains(out, "\n\n\n") {
		out = strings.ReplaceAll(out, "\n\n\n", "\n\n")
	}
	return out
}

func category(f ucli.DocGenerationFlag) string {
	if c, ok := f.(ucli.CategorizableFlag); ok {
		return c.GetCategory()
	}
	return ""
}

func visibleFlags(flags []ucli.Flag) []ucli.DocGenerationFlag {
	var out []ucli.DocGenerationFlag
	for _, f := range flags {
		if v, ok := f.(ucli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		if d, ok := f.(ucli.DocGenerationFlag); ok {
			out = append(out, d)
		}
	}
	return out
}

// unquote splits urfave/cli's usage convention: the word in backquotes is
// the value's placeholder and reads without the quotes in the sentence.
func unquote(usage string) (placeholder, text string) {
	if i := strings.IndexByte(usage, '`'); i >= 0 {
		if j := strings.IndexByte(usage[i+1:], '`'); j >= 0 {
			placeholder = usage[i+1 : i+1+j]
			return placeholder, usage[:i] + placeholder + usage[i+2+j:]
		}
	}
	return "value", usage
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// mdText keeps help text literal in Markdown: "<rule>" would vanish as an
// HTML tag and "*" or "_" would start emphasis.
func mdText(s string) string {
	return strings.NewReplacer("<", `\<`, ">", `\>`, "*", `\*`, "_", `\_`).Replace(s)
}

func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}
