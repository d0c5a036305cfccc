package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/podlint/podlint/internal/ruledoc"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/rules"
	ucli "github.com/urfave/cli/v2"
)

// rulesFormats are the formats of podlint rules.
var rulesFormats = []string{"text", "markdown", "json"}

func rulesCommand(env *runEnv) *ucli.Command {
	return &ucli.Command{
		Name:      "rules",
		Usage:     "list every rule with its ID, name, default severity, fix safety and title, or print the documentation of the rules named (plain text; --format markdown for the Markdown page)",
		ArgsUsage: "[RULE...]",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "`FORMAT`: " + strings.Join(rulesFormats, ", "), Value: "text"},
		},
		Action: func(c *ucli.Context) error {
			format := c.String("format")
			if format == "md" {
				format = "markdown"
			}
			if !slices.Contains(rulesFormats, format) {
				return &exitError{ExitError, fmt.Sprintf("--format %q: want %s%s", c.String("format"), strings.Join(rulesFormats, ", "), settings.DidYouMean(format, rulesFormats))}
			}
			list := rules.All
			if c.NArg() > 0 {
				list = nil
				for _, a := range c.Args().Slice() {
					r := rules.Lookup(a)
					if r == nil {
						return &exitError{ExitError, fmt.Sprintf("unknown rule %q%s; run podlint rules for the list", a, settings.DidYouMean(a, settings.RuleNames()))}
					}
					list = append(list, r)
				}
			}
			switch {
			case format == "json":
				return writeRulesJSON(env.stdout, list, c.NArg() > 0)
			case c.NArg() > 0:
				for i, r := range list {
					if i > 0 {
						io.WriteString(env.stdout, "\n")
					}
					if format == "markdown" {
						io.WriteString(env.stdout, ruledoc.Page(r))
					} else {
						io.WriteString(env.stdout, ruledoc.Terminal(ruledoc.Page(r)))
					}
				}
			case format == "text":
				ruledoc.WriteText(env.stdout, rules.All)
			default:
				io.WriteString(env.stdout, ruledoc.Index(rules.All))
			}
			return nil
		},
	}
}

// jsonRule is one entry of podlint rules -f json.
type jsonRule struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Title      string `json:"title"`
	Severity   string `json:"severity"` // default severity, "off" for rules that need --enable
	MinVersion string `json:"minKubernetesVersion,omitempty"`
	HelpURI    string `json:"helpUri"`
	// Fix is the rule's fix, nil for none.
	Fix *jsonRuleFix `json:"fix,omitempty"`
	Doc string       `json:"doc,omitempty"` // only for the rules named
}

// jsonRuleFix says what a rule's fix does and how safe its default is.
type jsonRuleFix struct {
	Safety string `json:"safety"` // safe or unsafe
	Text   string `json:"text"`
}

func writeRulesJSON(w io.Writer, list []*rules.Rule, withDoc bool) error {
	out := []jsonRule{}
	for _, r := range list {
		info := r.Info()
		jr := jsonRule{ID: r.ID, Name: r.Name, Title: r.Title, Severity: ruledoc.DefaultLevel(r), HelpURI: info.HelpURI}
		if r.MinVersion.Minor != 0 {
			jr.MinVersion = r.MinVersion.String()
		}
		if withDoc {
			jr.Doc = info.Doc
		}
		if r.Fix != nil {
			jr.Fix = &jsonRuleFix{Safety: r.Fix.Safety.String(), Text: r.Fix.Text}
		}
		out = append(out, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
