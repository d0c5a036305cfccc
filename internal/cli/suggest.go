package cli

import (
	"fmt"
	"strings"

	"github.com/podlint/podlint/internal/settings"
	ucli "github.com/urfave/cli/v2"
)

// flagSuggestion turns the flag package's "flag provided but not defined:
// -fial-on" into `; did you mean "--fail-on"?`.
func flagSuggestion(c *ucli.Context, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok || c.Command == nil {
		return ""
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	if best := settings.Closest(name, names); best != "" {
		return fmt.Sprintf("; did you mean %q?", "--"+best)
	}
	return ""
}
