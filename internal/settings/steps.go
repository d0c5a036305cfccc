package settings

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/report"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// The steps of Load, each a function of plain values so that a
// table test can hold it to its errors (steps_test.go): the
// configuration file, then the Kubernetes version, the fail and show
// levels, the rules, the model parameters, the limits, the excludes and
// the color. Flags win over the configuration file throughout.

// settingsConfig finds and reads the configuration: the file --config
// names, or the .podlint.yaml discovery finds from the working directory
// wd for the paths args, or none (--no-config, or nothing found).
func settingsConfig(path string, noConfig bool, wd string, args []string) (*Config, error) {
	switch {
	case path != "":
		return loadConfig(path)
	case noConfig:
		return &Config{}, nil
	}
	p, err := discoverConfig(wd, args)
	if err != nil || p == "" {
		return &Config{}, err
	}
	return loadFoundConfig(p)
}

// kubeVersion is the Kubernetes version to lint for: the flag's value
// (flagSet says it was given) or the configuration's, the newest modelled
// when neither is set. A version newer than that is linted as it, with a
// warning.
func kubeVersion(flag string, flagSet bool, cfg *Config, warnf func(format string, args ...any)) (timeline.Version, error) {
	kv := cmp.Or(flag, cfg.KubeVersion)
	if kv == "" {
		return timeline.Latest, nil
	}
	v, err := timeline.ParseVersion(kv)
	where := cfg.setting(flagSet, "kube-version")
	switch {
	case err != nil:
		return v, fmt.Errorf("%s %q: %v", where, kv, err)
	case v.Major != 1 || v.Minor < timeline.Oldest.Minor:
		hint := ""
		if v.Major == 1 && v.Minor < 10 {
			hint = fmt.Sprintf(" (did you mean 1.%d0? YAML reads an unquoted 1.%d0 as 1.%d: quote it)", v.Minor, v.Minor, v.Minor)
		}
		return v, fmt.Errorf("%s %q: not a Kubernetes version podlint models (%s to %s)%s", where, kv, timeline.Oldest, timeline.Latest, hint)
	case v.Minor > timeline.Latest.Minor:
		warnf("%s %q is newer than the newest Kubernetes podlint models; linting as %s", where, kv, timeline.Latest)
		return timeline.Latest, nil
	}
	return v, nil
}

// failLevels are the severity at which `check` fails (--fail-on or the
// configuration's fail-on, error by default; never is report.Never) and
// the lowest it shows (--show, info by default).
func failLevels(failOn string, failOnSet bool, show string, cfg *Config) (fail, shown finding.Severity, err error) {
	fo := cmp.Or(failOn, cfg.FailOn, "error")
	fail, err = finding.ParseSeverity(fo)
	switch {
	case strings.EqualFold(strings.TrimSpace(fo), "never"):
		fail = report.Never
	case err != nil || fail == finding.Off:
		return 0, 0, fmt.Errorf("%s %q: want error, warning, info or never%s", cfg.setting(failOnSet, "fail-on"), fo, DidYouMean(fo, []string{"error", "warning", "info", "never"}))
	}
	show = cmp.Or(show, "info")
	shown, err = finding.ParseSeverity(show)
	if err != nil || shown == finding.Off {
		return 0, 0, fmt.Errorf("--show %q: want error, warning or info%s", show, DidYouMean(show, []string{"error", "warning", "info"}))
	}
	return fail, shown, nil
}

// ruleSeverities is the severity of every rule of rules.All that runs:
// the defaults, then the configuration's enable, disable and rules, then
// the flags --enable and --disable (each a list of IDs or names, comma
// separated or repeated).
// ruleList reads rule names as the flags and the configuration give them
// (IDs or names, repeated or separated by commas); where names the flag
// or key for the error.
func ruleList(names []string, where string) ([]*rules.Rule, error) {
	var out []*rules.Rule
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			r := rules.Lookup(part)
			if r == nil {
				return nil, fmt.Errorf("%s: unknown rule %s%s; run podlint rules for the list", where, textsafe.Quote(part), DidYouMean(part, RuleNames()))
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func ruleSeverities(cfg *Config, enable, disable []string) (map[*rules.Rule]finding.Severity, error) {
	sev := map[*rules.Rule]finding.Severity{}
	for _, r := range rules.All {
		if !r.DefaultOff {
			sev[r] = r.Severity
		}
	}
	apply := func(names []string, on bool, where string) error {
		list, err := ruleList(names, where)
		for _, r := range list {
			switch {
			case !on:
				sev[r] = finding.Off
			case sev[r] == finding.Off:
				sev[r] = r.Severity
			}
		}
		return err
	}
	if err := apply(cfg.Enable, true, "config enable"); err != nil {
		return nil, err
	}
	if err := apply(cfg.Disable, false, "config disable"); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(cfg.Rules) {
		r := rules.Lookup(k)
		if r == nil {
			return nil, fmt.Errorf("config %s: rules: unknown rule %q%s", cfg.path, k, DidYouMean(k, RuleNames()))
		}
		s, err := finding.ParseSeverity(cfg.Rules[k])
		if err != nil {
			return nil, fmt.Errorf("config %s: rules: %s: %v", cfg.path, k, err)
		}
		sev[r] = s
	}
	if err := apply(enable, true, "--enable"); err != nil {
		return nil, err
	}
	if err := apply(disable, false, "--disable"); err != nil {
		return nil, err
	}
	return sev, nil
}

// paramFlags are the flags of the model's parameters as given (flag
// name → value; absent or "" when not given).
type paramFlags struct {
	values   map[string]string
	nodes    int
	nodesSet bool
}

// paramFlagsOf reads the parameter flags of f.
func paramFlagsOf(f *Flags) paramFlags {
	return paramFlags{values: map[string]string{
		"pull-time": f.PullTime, "start-time": f.StartTime, "shutdown-time": f.ShutdownTime,
		"observation-latency": f.ObservationLatency, "action-latency": f.ActionLatency, "stop-latency": f.StopLatency,
		"expected-startup": f.ExpectedStartup, "expected-shutdown": f.ExpectedShutdown,
	}, nodes: f.Nodes, nodesSet: f.NodesSet}
}

// modelParams are the timeline's parameters: the defaults, the
// configuration's expectations and nodes, then the flags.
func modelParams(f paramFlags, cfg *Config) (timeline.Params, error) {
	p := timeline.DefaultParams()
	for _, d := range []struct {
		flag string
		set  func(float64)
	}{
		{"pull-time", func(x float64) { p.ImagePull = timeline.Seconds(x) }},
		{"start-time", func(x float64) { p.AppStart = timeline.Seconds(x) }},
		{"shutdown-time", func(x float64) { p.AppShutdown = timeline.Seconds(x) }},
		{"observation-latency", func(x float64) { p.Epsilon = x }},
		{"action-latency", func(x float64) { p.Lambda = x }},
		{"stop-latency", func(x float64) { p.StopLatency = x }},
	} {
		if v := f.values[d.flag]; v != "" {
			sec, err := timeline.ParseSeconds(v)
			if err != nil {
				return p, fmt.Errorf("--%s %q: %v", d.flag, v, err)
			}
			d.set(sec)
		}
	}
	var err error
	if p.ExpectedStartup, err = cfg.expectations(&cfg.ExpectedStartup, "expected-startup"); err != nil {
		return p, err
	}
	if p.ExpectedShutdown, err = cfg.expectations(&cfg.ExpectedShutdown, "expected-shutdown"); err != nil {
		return p, err
	}
	for _, e := range []struct {
		flag string
		dst  *[]timeline.Expectation
	}{{"expected-startup", &p.ExpectedStartup}, {"expected-shutdown", &p.ExpectedShutdown}} {
		if v := f.values[e.flag]; v != "" {
			list, err := flagExpectations(v)
			if err != nil {
				return p, fmt.Errorf("--%s %q: %v", e.flag, v, err)
			}
			*e.dst = list // flags win over the configuration file
		}
	}
	p.Nodes = cfg.Nodes
	if f.nodesSet {
		p.Nodes = f.nodes
	}
	if p.Nodes < 0 {
		return p, fmt.Errorf("--nodes %d: want a positive number of nodes, or 0 for unknown", p.Nodes)
	}
	return p, nil
}

// checkLimits refuses limits that are not all positive.
func checkLimits(l manifest.Limits) error {
	if l.MaxFileSize <= 0 || l.MaxDocuments <= 0 || l.MaxDepth <= 0 || l.MaxNodes <= 0 {
		return fmt.Errorf("--max-file-size, --max-documents, --max-depth and --max-nodes must be positive")
	}
	return nil
}

// excludePatterns are the configuration's excludes, made relative to the
// working directory wd from the configuration file's folder (patterns
// starting with ** and absolute ones stay as written), then the flags'.
func excludePatterns(cfg *Config, wd string, flags []string) []string {
	var out []string
	for _, e := range cfg.Exclude {
		if cfg.dir != "" && !filepath.IsAbs(e) && !strings.HasPrefix(e, "**") {
			if rel, err := filepath.Rel(wd, filepath.Join(cfg.dir, e)); err == nil {
				e = filepath.ToSlash(rel)
			}
		}
		out = append(out, e)
	}
	return append(out, flags...)
}

// useColor decides --color: auto colors a terminal (terminal says whether
// standard output is one; asked last) unless NO_COLOR is set (noColor),
// TERM is dumb or the output goes to a file.
func useColor(color string, noColor, dumb, toFile bool, terminal func() bool) (bool, error) {
	switch color {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return !noColor && !dumb && !toFile && terminal(), nil
	}
	return false, fmt.Errorf("--color %q: want auto, always or never", color)
}
