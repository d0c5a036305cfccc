package cli

import (
	"fmt"
	"io"

	"github.com/podlint/podlint/internal/ruledoc"
	"github.com/podlint/podlint/rules"
	ucli "github.com/urfave/cli/v2"
)

func rulesCommand(env *runEnv) *ucli.Command {
	return &ucli.Command{
		Name:      "rules",
		Usage:     "list every rule with its ID, name, default severity and title, or print one rule's documentation",
		ArgsUsage: "[RULE]",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "`FORMAT` of the list: text or markdown", Value: "text"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 1 {
				return &exitError{ExitError, "podlint rules takes at most one rule ID or name"}
			}
			if c.NArg() == 1 {
				r := rules.Lookup(c.Args().First())
				if r == nil {
					return &exitError{ExitError, fmt.Sprintf("unknown rule %q; run podlint rules for the list", c.Args().First())}
				}
				io.WriteString(env.stdout, ruledoc.Page(r))
				return nil
			}
			switch c.String("format") {
			case "text":
				ruledoc.WriteText(env.stdout, rules.All)
			case "markdown", "md":
				io.WriteString(env.stdout, ruledoc.Index(rules.All))
			default:
				return &exitError{ExitError, fmt.Sprintf("--format %q: want text or markdown", c.String("format"))}
			}
			return nil
		},
	}
}
