package cli

import (
	ucli "github.com/urfave/cli/v2"
)

// flagGroups groups the flags of check and timeline in --help and in
// docs/usage.md by what they are about. urfave/cli prints the groups in
// alphabetical order. A flag missing here fails TestFlagsAreGrouped.
var flagGroups = map[string][]string{
	"Output":                  {"format", "output", "color", "brief", "show", "stdin-filename", "category", "src-root", "debug", "help"},
	"Rules and configuration": {"fail-on", "enable", "disable", "config", "no-config", "exclude", "allow-empty", "pre-commit", "read-untracked"},
	"Helm and Kustomize":      {"render", "values", "set", "release-name", "namespace"},
	"Cluster and model": {"kube-version", "nodes", "pull-time", "start-time", "shutdown-time", "expected-startup", "expected-shutdown",
		"observation-latency", "action-latency"},
	"Limits": {"max-file-size", "max-documents", "max-depth", "max-nodes",
		"render-cpu", "render-memory", "render-timeout", "render-max-output"},
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
		case *ucli.BoolFlag:
			f.Category = g
		case *ucli.IntFlag:
			f.Category = g
		case *ucli.Int64Flag:
			f.Category = g
		case *ucli.StringSliceFlag:
			f.Category = g
		}
	}
	return flags
}
