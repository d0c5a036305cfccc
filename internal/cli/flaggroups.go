package cli

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

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

// inlineDefault is a default written into a flag's usage in one of the
// forms flags once used: "… (default 5s)", "…; default 1.37", "…;
// unknown by default".
var inlineDefault = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\s*\(default ([^()]*(?:\([^()]*\)[^()]*)*)\)|;\s*default (\S+)|;?\s*unknown by default)\s*$`)
})

// defaultText gives every flag's default one style, urfave/cli's
// "(default: X)" at the end of the line, unquoted: a default stated in the
// usage moves there, "unknown by default" becomes "(default: unknown)",
// and a flag's own value is shown without Go's quotes. It returns the
// usage and the default text.
func defaultText(usage, text, value string) (string, string) {
	if text != "" {
		return usage, text
	}
	// Every form names "default": most usages do not, and the expression
	// ran for every flag of every command on every start.
	if !strings.Contains(usage, "default") {
		return usage, value
	}
	if m := inlineDefault().FindStringSubmatchIndex(usage); m != nil {
		switch {
		case m[2] >= 0:
			text = usage[m[2]:m[3]]
		case m[4] >= 0:
			text = usage[m[4]:m[5]]
		default:
			text = "unknown"
		}
		return strings.TrimSpace(usage[:m[0]]), text
	}
	return usage, value
}
