package cli

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/podlint/podlint/internal/settings"

	"github.com/podlint/podlint/render"
	ucli "github.com/urfave/cli/v2"
)

func renderFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "render", Usage: "`MODE` auto renders Helm charts and kustomizations found in the paths; never lints their files one by one", Value: "auto"},
		&ucli.StringSliceFlag{Name: "values", Usage: "Helm values `FILE` for every chart (repeatable; later files win)"},
		&ucli.StringSliceFlag{Name: "set", Usage: "Helm value `KEY=VALUE` for every chart (repeatable)"},
		&ucli.StringFlag{Name: "release-name", Usage: "Helm release `NAME`, as helm template names it (default release-name)"},
		&ucli.StringFlag{Name: "namespace", Usage: "Helm release `NAMESPACE` (default default)"},
		&ucli.StringFlag{Name: "render-cpu", Usage: "stop rendering a chart or kustomization after `DURATION` of CPU time (default " + shortDuration(render.DefaultLimits.CPU) + ")"},
		&ucli.StringFlag{Name: "render-memory", Usage: "stop rendering a chart or kustomization that needs more than `SIZE` of memory, e.g. 1GiB (default " + settings.SizeString(render.DefaultLimits.Memory) + ")"},
		&ucli.StringFlag{Name: "render-timeout", Usage: "stop a chart's or kustomization's render process that waits `DURATION` without running (default " + shortDuration(render.DefaultLimits.Wall) + ")"},
		&ucli.StringSliceFlag{Name: "read-untracked", Usage: "in a git work tree, also read files git does not track that match `PATTERN` (relative to the repository root; * within a name, ** any folders; repeatable); never from .podlint.yaml"},
		&ucli.StringFlag{Name: "render-max-output", Usage: "stop rendering a chart or kustomization whose output exceeds `SIZE` (default " + settings.SizeString(render.DefaultLimits.Output) + ")"},
		&ucli.StringFlag{Name: "render-budget", Usage: "render no more charts and kustomizations once they have used `DURATION` of CPU time together, in the order of the report; 0 renders none (default " + shortDuration(render.DefaultBudget) + ")"},
	}
}

// shortDuration writes a default duration as a user would type it: 2m,
// not Go's 2m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
