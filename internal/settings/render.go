package settings

import (
	"cmp"
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
)

// ChartConfig is what .podlint.yaml says about one chart (the key of
// "charts" is the chart folder, relative to the config file).
type ChartConfig struct {
	Values      []string `yaml:"values"` // relative to the config file
	Set         []string `yaml:"set"`
	ReleaseName string   `yaml:"release-name"`
	Namespace   string   `yaml:"namespace"`
}

// renderLimits reads the render limits from the flags, else the
// configuration, which may only lower them (trustedLimit); an unset one
// keeps its default.
func (s *Settings) renderLimits(f *Flags, warnf func(format string, args ...any)) (render.Limits, error) {
	lim := render.DefaultLimits
	for _, d := range []struct {
		key, flag, config string
		dst               *time.Duration
	}{{"render-cpu", f.RenderCPU, s.Config.RenderCPU, &lim.CPU}, {"render-timeout", f.RenderTimeout, s.Config.RenderTimeout, &lim.Wall}} {
		v, err := trustedLimit(s.Config, d.key, d.flag, d.config, *d.dst, positiveDuration, time.Duration.String, warnf)
		if err != nil {
			return lim, err
		}
		*d.dst = v
	}
	for _, z := range []struct {
		key, flag, config string
		dst               *int64
	}{{"render-memory", f.RenderMemory, s.Config.RenderMemory, &lim.Memory}, {"render-max-output", f.RenderMaxOutput, s.Config.RenderMaxOutput, &lim.Output}} {
		v, err := trustedLimit(s.Config, z.key, z.flag, z.config, *z.dst, parseSize, SizeString, warnf)
		if err != nil {
			return lim, err
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

// SizeString writes a size as the flags take it: 1GiB, 64MiB.
func SizeString(n int64) string {
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
func (s *Settings) renderSetup(f *Flags, warnf func(format string, args ...any)) error {
	if err := safefile.SetUntracked(f.ReadUntracked); err != nil {
		return errors.New("--read-untracked " + textsafe.Escape(err.Error()))
	}
	mode := cmp.Or(f.Render, s.Config.Render, "auto")
	switch mode {
	case "auto":
		s.Render = true
	case "never":
		return nil
	default:
		return fmt.Errorf("--render %q: want auto or never", mode)
	}
	cfg := s.Config
	charts := map[string]ChartConfig{}
	for k, v := range cfg.Charts {
		for _, vf := range v.Values {
			if err := s.valuesInRepo(k, vf); err != nil {
				return err
			}
		}
		charts[absPath(s.configRel(k))] = v
	}
	lim, err := s.renderLimits(f, warnf)
	if err != nil {
		return err
	}
	if s.Budget, err = trustedLimit(cfg, "render-budget", f.RenderBudget, cfg.RenderBudget, render.DefaultBudget, nonNegativeDuration, time.Duration.String, warnf); err != nil {
		return err
	}
	flagValues, flagSet := f.Values, f.Set
	if err := render.CheckCommandLineValues(flagValues, flagSet); err != nil {
		return err
	}
	release, ns := f.ReleaseName, f.Namespace
	opts := &render.Options{KubeVersion: s.Linter.Version.String(), Limits: lim, Trace: s.Trace, Helm: func(dir string) render.HelmOptions {
		cc := charts[absPath(dir)]
		var ho render.HelmOptions
		for _, v := range cc.Values {
			ho.ConfigValues = append(ho.ConfigValues, s.configRel(v))
		}
		if len(ho.ConfigValues) > 0 {
			ho.ConfigRoot = repoRoot(absPath(cfg.dir))
		}
		ho.Values = append(ho.Values, flagValues...)
		ho.Set = append(append(ho.Set, cc.Set...), flagSet...)
		ho.ReleaseName = cmp.Or(release, cc.ReleaseName)
		ho.Namespace = cmp.Or(ns, cc.Namespace)
		return ho
	}}
	s.Linter.Open = opts.Open
	s.Renderer = opts
	return nil
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
func (s *Settings) valuesInRepo(chart, file string) error {
	if s.Config.dir == "" {
		return nil
	}
	p := file
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Config.dir, p)
	}
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	why := "is outside the repository"
	root, err := safefile.Open(repoRoot(absPath(s.Config.dir)), s.Config.dir)
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
	return fmt.Errorf("config %s: charts: %s: values file %s %s; "+
		"a configuration may come from the pull request being checked, so podlint reads only regular files inside the repository as its values files. "+
		"Move the file into the repository, or name it on the command line with --values",
		textsafe.Quote(s.Config.path), textsafe.Quote(chart), textsafe.Quote(file), why)
}

// configRel turns a path of the config file (relative to its folder) into
// one relative to the working directory, as paths are given.
func (s *Settings) configRel(p string) string {
	if s.Config.dir == "" || filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if rel, err := filepath.Rel(s.WorkDir, filepath.Join(s.Config.dir, p)); err == nil {
		return rel
	}
	return filepath.Clean(p)
}
