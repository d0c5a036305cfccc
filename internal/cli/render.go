package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/internal/textsafe"

	"github.com/podlint/podlint/render"
	ucli "github.com/urfave/cli/v2"
)

// ChartConfig is what .podlint.yaml says about one chart (the key of
// "charts" is the chart folder, relative to the config file).
type ChartConfig struct {
	Values      []string `yaml:"values"` // relative to the config file
	Set         []string `yaml:"set"`
	ReleaseName string   `yaml:"release-name"`
	Namespace   string   `yaml:"namespace"`
}

func renderFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "render", Usage: "`MODE` auto renders Helm charts and kustomizations found in the paths; never lints their files one by one", Value: "auto"},
		&ucli.StringSliceFlag{Name: "values", Usage: "Helm values `FILE` for every chart (repeatable; later files win)"},
		&ucli.StringSliceFlag{Name: "set", Usage: "Helm value `KEY=VALUE` for every chart (repeatable)"},
		&ucli.StringFlag{Name: "release-name", Usage: "Helm release `NAME`, as helm template names it (default release-name)"},
		&ucli.StringFlag{Name: "namespace", Usage: "Helm release `NAMESPACE` (default default)"},
		&ucli.StringFlag{Name: "render-cpu", Usage: "stop rendering a chart or kustomization after `DURATION` of CPU time (default " + shortDuration(render.DefaultLimits.CPU) + ")"},
		&ucli.StringFlag{Name: "render-memory", Usage: "stop rendering a chart or kustomization that needs more than `SIZE` of memory, e.g. 1GiB (default " + sizeString(render.DefaultLimits.Memory) + ")"},
		&ucli.StringFlag{Name: "render-timeout", Usage: "stop a chart's or kustomization's render process that waits `DURATION` without running (default " + shortDuration(render.DefaultLimits.Wall) + ")"},
		&ucli.StringSliceFlag{Name: "read-untracked", Usage: "in a git work tree, also read files git does not track that match `PATTERN` (relative to the repository root; * within a name, ** any folders; repeatable); never from .podlint.yaml"},
		&ucli.StringFlag{Name: "render-max-output", Usage: "stop rendering a chart or kustomization whose output exceeds `SIZE` (default " + sizeString(render.DefaultLimits.Output) + ")"},
		&ucli.StringFlag{Name: "render-budget", Usage: "render no more charts and kustomizations once they have used `DURATION` of CPU time together, in the order of the report; 0 renders none (default " + shortDuration(render.DefaultBudget) + ")"},
	}
}

// renderLimits reads the render limits from the flags, else the
// configuration, which may only lower them (trustedLimit); an unset one
// keeps its default.
func (s *settings) renderLimits(c *ucli.Context) (render.Limits, error) {
	lim := render.DefaultLimits
	for _, d := range []struct {
		key, config string
		dst         *time.Duration
	}{{"render-cpu", s.cfg.RenderCPU, &lim.CPU}, {"render-timeout", s.cfg.RenderTimeout, &lim.Wall}} {
		v, err := trustedLimit(s.cfg, d.key, c.String(d.key), d.config, *d.dst, positiveDuration, time.Duration.String, s.warnf)
		if err != nil {
			return lim, &exitError{ExitError, err.Error()}
		}
		*d.dst = v
	}
	for _, z := range []struct {
		key, config string
		dst         *int64
	}{{"render-memory", s.cfg.RenderMemory, &lim.Memory}, {"render-max-output", s.cfg.RenderMaxOutput, &lim.Output}} {
		v, err := trustedLimit(s.cfg, z.key, c.String(z.key), z.config, *z.dst, parseSize, sizeString, s.warnf)
		if err != nil {
			return lim, &exitError{ExitError, err.Error()}
		}
		*z.dst = v
	}
	return lim, nil
}

func nonNegativeDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, errors.New("want a duration such as 2m, or 0")
	}
	return d, nil
}

func positiveDuration(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, errors.New("want a positive duration such as 10s or 1m")
	}
	return d, nil
}

// parseSize reads a size in bytes, optionally with a binary unit: 512MiB,
// 2GiB, 64KiB.
func parseSize(v string) (int64, error) {
	units := []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}}
	num, shift := v, uint(0)
	for _, u := range units {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			num, shift = n, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		return 0, errors.New("want a positive size in bytes, or with KiB, MiB or GiB (512MiB)")
	}
	return n << shift, nil
}

func sizeString(n int64) string {
	switch {
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return strconv.FormatInt(n, 10)
}

// renderSetup reads --render and the Helm options, and gives the loader its
// render stage (analyzer.Linter.Open, used by check and timeline alike).
//
// It also sets the read set's --read-untracked patterns, which bound the
// walk of a folder as much as rendering. They come from the command line
// only: the workflow names what its own steps wrote; a .podlint.yaml in the
// pull request could name the CI job's credential files.
func (s *settings) renderSetup(c *ucli.Context) error {
	if err := safefile.SetUntracked(c.StringSlice("read-untracked")); err != nil {
		return &exitError{ExitError, "--read-untracked " + textsafe.Escape(err.Error())}
	}
	mode := firstNonEmpty(c.String("render"), s.cfg.Render, "auto")
	switch mode {
	case "auto":
		s.render = true
	case "never":
		return nil
	default:
		return &exitError{ExitError, fmt.Sprintf("--render %q: want auto or never", mode)}
	}
	cfg := s.cfg
	charts := map[string]ChartConfig{}
	for k, v := range cfg.Charts {
		for _, vf := range v.Values {
			if err := s.valuesInRepo(k, vf); err != nil {
				return err
			}
		}
		charts[absPath(s.configRel(k))] = v
	}
	lim, err := s.renderLimits(c)
	if err != nil {
		return err
	}
	budget, err := trustedLimit(s.cfg, "render-budget", c.String("render-budget"), s.cfg.RenderBudget, render.DefaultBudget, nonNegativeDuration, time.Duration.String, s.warnf)
	if err != nil {
		return &exitError{ExitError, err.Error()}
	}
	s.budget = budget
	flagValues, flagSet := c.StringSlice("values"), c.StringSlice("set")
	if err := render.CheckCommandLineValues(flagValues, flagSet); err != nil {
		return &exitError{ExitError, err.Error()}
	}
	release, ns := c.String("release-name"), c.String("namespace")
	opts := &render.Options{KubeVersion: s.an.Version.String(), Limits: lim, Trace: s.trace, Helm: func(dir string) render.HelmOptions {
		cc := charts[absPath(dir)]
		var ho render.HelmOptions
		for _, v := range cc.Values {
			ho.ConfigValues = append(ho.ConfigValues, s.configRel(v))
		}
		if len(ho.ConfigValues) > 0 {
			ho.ConfigRoot = repoRoot(absPath(s.cfg.dir))
		}
		ho.Values = append(ho.Values, flagValues...)
		ho.Set = append(append(ho.Set, cc.Set...), flagSet...)
		ho.ReleaseName = firstNonEmpty(release, cc.ReleaseName)
		ho.Namespace = firstNonEmpty(ns, cc.Namespace)
		return ho
	}}
	s.an.Open = opts.Open
	s.renderer = opts
	return nil
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

// valuesInRepo refuses a values file named by the configuration that is
// not a regular file inside the repository holding the configuration
// (symbolic links followed only inside it), or whose place cannot be
// worked out (/dev/stdin resolves to no file: refused, not let through).
// The configuration travels with the pull request podlint checks, so a
// values file elsewhere (/etc, a CI secret, ../..) could be rendered into
// the manifests and quoted in the report. A file the user names with
// --values is theirs to choose. A values file that does not exist is
// reported by rendering, at the chart; rendering reads the others through
// the same confinement.
func (s *settings) valuesInRepo(chart, file string) error {
	if s.cfg.dir == "" {
		return nil
	}
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.cfg.dir, p)
	}
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	why := "is outside the repository"
	root, err := safefile.Open(repoRoot(absPath(s.cfg.dir)), s.cfg.dir)
	if err == nil {
		defer root.Close()
		fi, serr := root.Stat(p)
		switch {
		case serr == nil && fi.Mode().IsRegular():
			return nil
		case serr == nil:
			why = "is not a regular file"
		case !errors.Is(serr, safefile.ErrOutside):
			why = "cannot be resolved inside the repository"
		}
	}
	return &exitError{ExitError, fmt.Sprintf("config %s: charts: %s: values file %s %s; "+
		"a configuration may come from the pull request being checked, so podlint reads only regular files inside the repository as its values files. "+
		"Move the file into the repository, or name it on the command line with --values",
		textsafe.Quote(s.cfg.path), textsafe.Quote(chart), textsafe.Quote(file), why)}
}

// configRel turns a path of the config file (relative to its folder) into
// one relative to the working directory, as paths are given.
func (s *settings) configRel(p string) string {
	if s.cfg.dir == "" || filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if rel, err := filepath.Rel(s.workDir, filepath.Join(s.cfg.dir, p)); err == nil {
		return rel
	}
	return filepath.Clean(p)
}
