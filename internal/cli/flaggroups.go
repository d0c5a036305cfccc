package cli

import (
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// flagGroups groups the flags of check and timeline in --help and in
// docs/usage.md by what they are about. urfave/cli prints the groups in
// alphabetical order. A flag missing here fails TestFlagsAreGrouped.
var flagGroups = map[string][]string{
	"Output":                  {"format", "timelines", "output", "color", "brief", "show", "stdin-filename", "category", "src-root", "debug", "help"},
	"Rules and configuration": {"fail-on", "enable", "disable", "config", "no-config", "exclude", "allow-empty", "pre-commit", "read-untracked", "policy"},
	"Helm and Kustomize":      {"render", "values", "set", "release-name", "namespace"},
	"Cluster and model": {"kube-version", "nodes", "pull-time", "start-time", "shutdown-time", "expected-startup", "expected-shutdown",
		"observation-latency", "action-latency", "stop-latency", "observed"},
	"Limits": {"max-file-size", "max-documents", "max-depth", "max-nodes",
		"render-cpu", "render-memory", "render-timeout", "render-max-output", "render-budget"},
}

// grouped sets the Category of each flag from flagGroups. urfave/cli lists
// only categorized flags once any flag has a category, and it sorts flags
// into categories before it adds its own --help flag to a command, so that
// flag is listed with the command's flags here (the same value: urfave/cli
// then does not add it twice) and grouped under Output.
func grouped(flags []ucli.Flag) []ucli.Flag {
	if ucli.HelpFlag != nil {
		flags = append(flags, ucli.HelpFlag)
	}
	group := map[string]string{}
	for g, names := range flagGroups {
		for _, n := range names {
			group[n] = g
		}
	}
	for _, f := range flags {
		g := group[f.Names()[0]]
		switch f := f.(type) {
		case *ucli.StringFlag:
			f.Category = g
			f.Usage, f.DefaultText = defaultText(f.Usage, f.DefaultText, f.Value)
		case *ucli.BoolFlag:
			f.Category = g
			// "(default: false)" on every switch says nothing.
			f.DisableDefaultText = !f.Value
		case *ucli.IntFlag:
			f.Category = g
			f.Usage, f.DefaultText = defaultText(f.Usage, f.DefaultText, fmt.Sprint(f.Value))
		case *ucli.Int64Flag:
			f.Category = g
			f.Usage, f.DefaultText = defaultText(f.Usage, f.DefaultText, fmt.Sprint(f.Value))
		case *ucli.StringSliceFlag:
			f.Category = g
		case *ucli.GenericFlag:
			f.Category = g
		}
	}
	return flags
}

// defaultText gives every flag's default one style, urfave/cli's
// "(default: X)" at the end of the line, unquoted: a default stated in the
// usage moves there, "unknown by default" becomes "(default: unknown)",
// and a flag's own value is shown without Go's quotes. It returns the
// usage and the default text.
func defaultText(usage, text, value string) (string, string) {
	if text != "" {
		return usage, text
	}
	if at, stated, ok := inlineDefault(usage); ok {
		return strings.TrimSpace(usage[:at]), stated
	}
	return usage, value
}

// inlineDefault finds a default written at the end of a flag's usage in
// one of the forms flags once used, "… (default 5s)", "…; default 1.37"
// and "…; unknown by default", as the expression
//
//	(?:\s*\(default ([^()]*(?:\([^()]*\)[^()]*)*)\)|;\s*default (\S+)|;?\s*unknown by default)\s*$
//
// matches them (TestInlineDefaultIsTheExpression holds it to that): at is
// where the match starts, stated the default. Matching the expression
// took a quarter of the instructions of a run on one small file: every
// flag of every command is built on every start.
func inlineDefault(usage string) (at int, stated string, ok bool) {
	u := strings.TrimRight(usage, asciiSpace)
	at = len(usage) + 1
	// "(default X)": X may hold parentheses one level deep.
	if strings.HasSuffix(u, ")") {
		depth, open := 0, -1
		for i := len(u) - 1; i >= 0 && open < 0; i-- {
			switch u[i] {
			case ')':
				depth++
			case '(':
				depth--
				if depth == 0 {
					open = i
				}
			}
		}
		if open >= 0 && strings.HasPrefix(u[open:], "(default ") {
			inner := u[open+len("(default ") : len(u)-1]
			if balancedOnce(inner) {
				at, stated, ok = len(strings.TrimRight(u[:open], asciiSpace)), inner, true
			}
		}
	}
	// "; default X": X is one word.
	if i := strings.LastIndexAny(u, asciiSpace); i >= 0 && i < len(u)-1 {
		word, before := u[i+1:], u[:i+1]
		if strings.HasSuffix(before, "default ") {
			lead := strings.TrimRight(before[:len(before)-len("default ")], asciiSpace)
			if strings.HasSuffix(lead, ";") && len(lead)-1 < at {
				at, stated, ok = len(lead)-1, word, true
			}
		}
	}
	// "unknown by default", after an optional ';' and spaces.
	if lead, found := strings.CutSuffix(u, "unknown by default"); found {
		start := len(strings.TrimRight(lead, asciiSpace))
		if start > 0 && lead[start-1] == ';' {
			start--
		}
		if start < at {
			at, stated, ok = start, "unknown", true
		}
	}
	return at, stated, ok
}

// asciiSpace is what \s matches in Go's regular expressions.
const asciiSpace = " \t\n\f\r"

// balancedOnce reports whether s holds no parenthesis except pairs one
// level deep: [^()]*(?:\([^()]*\)[^()]*)*.
func balancedOnce(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			if depth++; depth > 1 {
				return false
			}
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}
