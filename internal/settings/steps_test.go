package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/report"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// wantErr checks err against want: "" means no error, anything else a
// substring of the message.
func wantErr(t *testing.T, name string, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: unexpected error %v", name, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: error %v, want one containing %q", name, err, want)
	default:
		return err == nil
	}
	return false
}

func TestSettingsConfig(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "k8s"), 0o755)
	os.WriteFile(filepath.Join(repo, ".podlint.yaml"), []byte("kube-version: \"1.30\"\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "other.yaml"), []byte("fail-on: warning\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "bad.yaml"), []byte("fail-on: [\n"), 0o644)
	for _, tc := range []struct {
		name, path string
		noConfig   bool
		wantKube   string
		wantFail   string
		err        string
	}{
		{"discovered from the working directory", "", false, "1.30", "", ""},
		{"--no-config", "", true, "", "", ""},
		{"--config wins over discovery", filepath.Join(repo, "other.yaml"), false, "", "warning", ""},
		{"--config wins over --no-config", filepath.Join(repo, "other.yaml"), true, "", "warning", ""},
		{"--config of a missing file", filepath.Join(repo, "missing.yaml"), false, "", "", "missing.yaml"},
		{"--config of a broken file", filepath.Join(repo, "bad.yaml"), false, "", "", "bad.yaml"},
	} {
		cfg, err := settingsConfig(tc.path, tc.noConfig, filepath.Join(repo, "k8s"), []string{"."})
		if wantErr(t, tc.name, err, tc.err) && (cfg.KubeVersion != tc.wantKube || cfg.FailOn != tc.wantFail) {
			t.Errorf("%s: kube-version %q, fail-on %q; want %q, %q", tc.name, cfg.KubeVersion, cfg.FailOn, tc.wantKube, tc.wantFail)
		}
	}
}

func TestKubeVersion(t *testing.T) {
	t.Parallel()
	newer := fmt.Sprintf("1.%d", timeline.Latest.Minor+1)
	for _, tc := range []struct {
		name, flag, config string
		want               timeline.Version
		warning, err       string
	}{
		{"neither: the newest", "", "", timeline.Latest, "", ""},
		{"the flag", "1.28", "", timeline.Version{Major: 1, Minor: 28}, "", ""},
		{"the configuration", "", "1.29", timeline.Version{Major: 1, Minor: 29}, "", ""},
		{"the flag wins", "1.28", "1.29", timeline.Version{Major: 1, Minor: 28}, "", ""},
		{"newer than modelled", newer, "", timeline.Latest, "is newer than the newest Kubernetes podlint models", ""},
		{"YAML's 1.3 for 1.30", "1.3", "", timeline.Version{}, "", "did you mean 1.30?"},
		{"not Kubernetes 1", "2.0", "", timeline.Version{}, "", "not a Kubernetes version podlint models"},
		{"not a version", "latest", "", timeline.Version{}, "", `--kube-version "latest"`},
	} {
		var warnings []string
		warnf := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
		v, err := kubeVersion(tc.flag, tc.flag != "", &Config{KubeVersion: tc.config}, warnf)
		if !wantErr(t, tc.name, err, tc.err) {
			continue
		}
		if v != tc.want {
			t.Errorf("%s: version %v, want %v", tc.name, v, tc.want)
		}
		if got := strings.Join(warnings, "\n"); (tc.warning == "") != (got == "") || !strings.Contains(got, tc.warning) {
			t.Errorf("%s: warnings %q, want %q", tc.name, got, tc.warning)
		}
	}
}

func TestFailLevels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, failOn, config, show string
		fail, shown                finding.Severity
		err                        string
	}{
		{"defaults", "", "", "", finding.Error, finding.Info, ""},
		{"the configuration", "", "warning", "", finding.Warning, finding.Info, ""},
		{"the flag wins", "info", "warning", "", finding.Info, finding.Info, ""},
		{"never", "never", "", "", report.Never, finding.Info, ""},
		{"never in capitals", " Never ", "", "", report.Never, finding.Info, ""},
		{"show warning", "", "", "warning", finding.Error, finding.Warning, ""},
		{"a misspelt level", "warnign", "", "", 0, 0, `--fail-on "warnign": want error, warning, info or never; did you mean "warning"?`},
		{"off is no level", "off", "", "", 0, 0, "want error, warning, info or never"},
		{"show off", "", "", "off", 0, 0, `--show "off": want error, warning or info`},
	} {
		fail, shown, err := failLevels(tc.failOn, tc.failOn != "", tc.show, &Config{FailOn: tc.config})
		if wantErr(t, tc.name, err, tc.err) && (fail != tc.fail || shown != tc.shown) {
			t.Errorf("%s: fail %v, show %v; want %v, %v", tc.name, fail, shown, tc.fail, tc.shown)
		}
	}
}

func TestRuleSeverities(t *testing.T) {
	t.Parallel()
	off := rules.MissingLivenessProbe // DefaultOff
	on := rules.LivenessKillsBeforeReady
	if !off.DefaultOff || on.DefaultOff {
		t.Fatal("the test needs one rule that is off by default and one that is on")
	}
	for _, tc := range []struct {
		name            string
		cfg             Config
		enable, disable []string
		want            map[*rules.Rule]finding.Severity
		err             string
	}{
		{"defaults", Config{}, nil, nil, map[*rules.Rule]finding.Severity{off: finding.Off, on: on.Severity}, ""},
		{"enabled by the configuration", Config{Enable: []string{off.ID}}, nil, nil, map[*rules.Rule]finding.Severity{off: off.Severity}, ""},
		{"disabled by name, in a list", Config{}, nil, []string{"x," + on.Name}, nil, "unknown rule \"x\""},
		{"disabled by the flag", Config{}, nil, []string{" " + on.Name + " ,"}, map[*rules.Rule]finding.Severity{on: finding.Off}, ""},
		{"the flag enables what the configuration disabled", Config{Disable: []string{on.ID}}, []string{on.ID}, nil, map[*rules.Rule]finding.Severity{on: on.Severity}, ""},
		{"a severity from the configuration stays when enabled", Config{Rules: map[string]string{on.ID: "info"}}, []string{on.ID}, nil, map[*rules.Rule]finding.Severity{on: finding.Info}, ""},
		{"the configuration turns a rule off", Config{Rules: map[string]string{on.Name: "off"}}, nil, nil, map[*rules.Rule]finding.Severity{on: finding.Off}, ""},
		{"a misspelt rule in the configuration", Config{Enable: []string{"liveness-kills-befor-ready"}}, nil, nil, nil, `config enable: unknown rule "liveness-kills-befor-ready"; did you mean "liveness-kills-before-ready"?`},
		{"an unknown rule of rules", Config{Rules: map[string]string{"PL999": "info"}, path: "p.yaml"}, nil, nil, nil, `config p.yaml: rules: unknown rule "PL999"`},
		{"a bad severity", Config{Rules: map[string]string{on.ID: "loud"}, path: "p.yaml"}, nil, nil, nil, "config p.yaml: rules: " + on.ID + ":"},
		{"an unknown rule of --enable", Config{}, []string{"nope"}, nil, nil, `--enable: unknown rule "nope"`},
	} {
		sev, err := ruleSeverities(&tc.cfg, tc.enable, tc.disable)
		if !wantErr(t, tc.name, err, tc.err) {
			continue
		}
		for r, want := range tc.want {
			if sev[r] != want {
				t.Errorf("%s: %s is %v, want %v", tc.name, r.ID, sev[r], want)
			}
		}
	}
}

func TestModelParams(t *testing.T) {
	t.Parallel()
	def := timeline.DefaultParams()
	flags := func(nodes int, nodesSet bool, kv ...string) paramFlags {
		f := paramFlags{values: map[string]string{}, nodes: nodes, nodesSet: nodesSet}
		for i := 0; i+1 < len(kv); i += 2 {
			f.values[kv[i]] = kv[i+1]
		}
		return f
	}
	for _, tc := range []struct {
		name  string
		flags paramFlags
		cfg   Config
		check func(timeline.Params) bool
		err   string
	}{
		{"defaults", flags(0, false), Config{}, func(p timeline.Params) bool { return p.ImagePull == def.ImagePull && p.Nodes == 0 }, ""},
		{"pull time", flags(0, false, "pull-time", "30s"), Config{}, func(p timeline.Params) bool { return p.ImagePull == timeline.Seconds(30) }, ""},
		{"latencies in seconds", flags(0, false, "observation-latency", "2", "action-latency", "0.5", "stop-latency", "0.25"), Config{}, func(p timeline.Params) bool { return p.Epsilon == 2 && p.Lambda == 0.5 && p.StopLatency == 0.25 }, ""},
		{"a bad duration", flags(0, false, "start-time", "soon"), Config{}, nil, `--start-time "soon"`},
		{"nodes of the configuration", flags(0, false), Config{Nodes: 3}, func(p timeline.Params) bool { return p.Nodes == 3 }, ""},
		{"nodes of the flag win", flags(5, true), Config{Nodes: 3}, func(p timeline.Params) bool { return p.Nodes == 5 }, ""},
		{"the flag sets 0 nodes", flags(0, true), Config{Nodes: 3}, func(p timeline.Params) bool { return p.Nodes == 0 }, ""},
		{"negative nodes", flags(-1, true), Config{}, nil, "--nodes -1: want a positive number of nodes"},
		{"expected startup", flags(0, false, "expected-startup", "app=90s"), Config{}, func(p timeline.Params) bool { return len(p.ExpectedStartup) == 1 }, ""},
		{"a bad expectation", flags(0, false, "expected-shutdown", "app"), Config{}, nil, `--expected-shutdown "app"`},
	} {
		p, err := modelParams(tc.flags, &tc.cfg)
		if wantErr(t, tc.name, err, tc.err) && !tc.check(p) {
			t.Errorf("%s: params %+v", tc.name, p)
		}
	}
}

func TestExcludePatterns(t *testing.T) {
	t.Parallel()
	wd := filepath.Join(string(filepath.Separator), "repo")
	abs := filepath.Join(string(filepath.Separator), "abs", "x.yaml")
	for _, tc := range []struct {
		name  string
		cfg   Config
		flags []string
		want  []string
	}{
		{"none", Config{}, nil, nil},
		{"flags as given", Config{}, []string{"gen/**"}, []string{"gen/**"}},
		{"relative to the configuration's folder", Config{Exclude: []string{"gen/*.yaml", "**/vendor/**", abs}, dir: filepath.Join(wd, "sub")}, []string{"x"},
			[]string{"sub/gen/*.yaml", "**/vendor/**", abs, "x"}},
		{"a configuration without a folder", Config{Exclude: []string{"gen/*.yaml"}}, nil, []string{"gen/*.yaml"}},
	} {
		if got := excludePatterns(&tc.cfg, wd, tc.flags); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestUseColor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, color                     string
		noColor, dumb, toFile, terminal bool
		want                            bool
		err                             string
	}{
		{"auto on a terminal", "auto", false, false, false, true, true, ""},
		{"empty is auto", "", false, false, false, true, true, ""},
		{"auto off a terminal", "auto", false, false, false, false, false, ""},
		{"NO_COLOR", "auto", true, false, false, true, false, ""},
		{"TERM=dumb", "auto", false, true, false, true, false, ""},
		{"--output", "auto", false, false, true, true, false, ""},
		{"always wins over NO_COLOR", "always", true, true, true, false, true, ""},
		{"never", "never", false, false, false, true, false, ""},
		{"a bad value", "sometimes", false, false, false, true, false, `--color "sometimes": want auto, always or never`},
	} {
		asked := false
		got, err := useColor(tc.color, tc.noColor, tc.dumb, tc.toFile, func() bool { asked = true; return tc.terminal })
		if wantErr(t, tc.name, err, tc.err) && got != tc.want {
			t.Errorf("%s: color %v, want %v", tc.name, got, tc.want)
		}
		if asked && tc.color != "auto" && tc.color != "" {
			t.Errorf("%s: asked whether the output is a terminal", tc.name)
		}
	}
}
