package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/internal/testgit"
	podversion "github.com/podlint/podlint/internal/version"
)

const goodPod = `apiVersion: v1
kind: Pod
metadata: {name: good}
spec:
  containers:
    - name: app
      image: nginx
      resources: {requests: {cpu: 10m}}
`

const badPod = `apiVersion: v1
kind: Pod
metadata: {name: bad}
spec:
  containers:
    - name: app
      image: nginx
      resources: {requests: {cpu: 10m}}
    - name: app
      image: nginx
`

// warnPod has only a warning-level finding (an unused suppression).
const warnPod = `apiVersion: v1
kind: Pod
metadata:
  name: warn
  annotations:
    ignore-check.podlint.dev/PL010: "kept for a migration"
spec:
  containers:
    - name: app
      image: nginx
      resources: {requests: {cpu: 10m}}
`

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRun pins the exit codes and the behaviour users script against.
func TestRun(t *testing.T) {
	cases := []struct {
		name          string
		files         map[string]string
		args          []string
		stdin         string
		env           map[string]string
		wantCode      int
		wantOut       []string // regexps on stdout
		notOut        []string
		wantErr       []string // regexps on stderr
		notErr        []string
		wantNoErr     bool
		wantOutput    string // file that must exist after the run (-o)
		wantFailedRun string // the -o file is a SARIF log of a failed run with this error
	}{
		{name: "clean file exits 0", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "ok.yaml"},
			wantCode: 0, wantOut: []string{`1 file, 1 object \(1 workload\)`}, wantNoErr: true},
		{name: "error finding exits 1", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "bad.yaml"},
			wantCode: 1, wantOut: []string{`bad.yaml:9:13: error: container name "app" is already used`, `\[PL010 duplicate-container-name\]`}},
		{name: "warnings do not fail by default", files: map[string]string{"w.yaml": warnPod}, args: []string{"check", "w.yaml"},
			wantCode: 0, wantOut: []string{`warning: suppression of PL010`}},
		{name: "fail-on warning", files: map[string]string{"w.yaml": warnPod}, args: []string{"check", "--fail-on", "warning", "w.yaml"},
			wantCode: 1},
		{name: "flags after paths", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "bad.yaml", "-f", "json", "--disable", "PL010"},
			wantCode: 0, wantOut: []string{`"findings": \[\]`}},
		{name: "disable by name", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "--disable=duplicate-container-name", "bad.yaml"},
			wantCode: 0},
		{name: "stdin with a name", args: []string{"check", "--stdin-filename", "rendered.yaml", "-"}, stdin: badPod,
			wantCode: 1, wantOut: []string{`^rendered.yaml:9:13: error`}},
		{name: "stdin and a file together", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "-", "ok.yaml"}, stdin: badPod,
			wantCode: 1, wantOut: []string{`<stdin>:9:13`, `2 files, 2 objects`}},
		{name: "missing path is exit 2 but others are linted", files: map[string]string{"bad.yaml": badPod},
			args: []string{"check", "nope.yaml", "bad.yaml"}, wantCode: 2,
			wantOut: []string{`bad.yaml:9:13: error`}, wantErr: []string{`podlint: nope.yaml: no such file or directory`}},
		{name: "no paths is a usage error", args: []string{"check"}, wantCode: 2, wantErr: []string{`needs at least one PATH`}},
		{name: "unknown flag", args: []string{"check", "--frobnicate", "x"}, wantCode: 2, wantErr: []string{`flag provided but not defined: -frobnicate`}},
		{name: "unknown rule", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "--disable", "PL999", "ok.yaml"}, wantCode: 2,
			wantErr: []string{`unknown rule "PL999"`}},
		{name: "bad format", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "-f", "xml", "ok.yaml"}, wantCode: 2,
			wantErr: []string{`--format "xml"`}},
		{name: "bad kube version", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "--kube-version", "banana", "ok.yaml"}, wantCode: 2},
		{name: "NO_COLOR keeps text plain", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "bad.yaml"},
			env: map[string]string{"NO_COLOR": "1"}, wantCode: 1, notOut: []string{"\x1b\\["}},
		{name: "color always", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "--color", "always", "bad.yaml"},
			wantCode: 1, wantOut: []string{"\x1b\\["}},
		{name: "config discovered upwards", files: map[string]string{".podlint.yaml": "disable: [PL010]\n", "sub/bad.yaml": badPod},
			args: []string{"check", "sub/bad.yaml"}, wantCode: 0},
		{name: "config rule severity", files: map[string]string{".podlint.yaml": "rules: {duplicate-container-name: warning}\n", "bad.yaml": badPod},
			args: []string{"check", "bad.yaml"}, wantCode: 0, wantOut: []string{`warning: container name`}},
		{name: "no-config ignores it", files: map[string]string{".podlint.yaml": "disable: [PL010]\n", "bad.yaml": badPod},
			args: []string{"check", "--no-config", "bad.yaml"}, wantCode: 1},
		{name: "config fail-on", files: map[string]string{".podlint.yaml": "fail-on: warning\n", "w.yaml": warnPod},
			args: []string{"check", "w.yaml"}, wantCode: 1},
		{name: "config excludes", files: map[string]string{".podlint.yaml": "exclude: [\"vendor/**\"]\n", "vendor/bad.yaml": badPod, "ok.yaml": goodPod},
			args: []string{"check", "."}, wantCode: 0, wantOut: []string{`1 file,`}},
		{name: "broken config is exit 2", files: map[string]string{".podlint.yaml": "fail_on: warning\n", "ok.yaml": goodPod},
			args: []string{"check", "ok.yaml"}, wantCode: 2, wantErr: []string{`unknown key "fail_on" in \S*\.podlint\.yaml:1; did you mean "fail-on"\?`}},
		{name: "config key in camel case", files: map[string]string{".podlint.yaml": "kube-version: \"1.30\"\nfailOn: warning\n", "ok.yaml": goodPod},
			args: []string{"check", "ok.yaml"}, wantCode: 2, wantErr: []string{`unknown key "failOn" in \S*\.podlint\.yaml:2; did you mean "fail-on"\?`}, notErr: []string{`settings.Config`}},
		{name: "config chart key", files: map[string]string{".podlint.yaml": "charts:\n  shop:\n    valuse: [a.yaml]\n", "ok.yaml": goodPod},
			args: []string{"check", "ok.yaml"}, wantCode: 2, wantErr: []string{`unknown key "charts.shop.valuse" in \S*\.podlint\.yaml:3; did you mean "values"\?`}},
		{name: "bad config value names the key and file", files: map[string]string{".podlint.yaml": "\nfail-on: warnin\n", "ok.yaml": goodPod},
			args: []string{"check", "ok.yaml"}, wantCode: 2, wantErr: []string{`fail-on in \S*\.podlint\.yaml:2 "warnin": want error, warning, info or never; did you mean "warning"\?`}, notErr: []string{`--fail-on`}},
		{name: "kube version from config", files: map[string]string{".podlint.yaml": "kube-version: \"2.0\"\n", "ok.yaml": goodPod},
			args: []string{"check", "ok.yaml"}, wantCode: 2, wantErr: []string{`kube-version in \S*\.podlint\.yaml:1 "2.0": not a Kubernetes version podlint models \(1.21 to 1.37\)`}},
		{name: "kube version too old", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "--kube-version", "1.3", "ok.yaml"}, wantCode: 2,
			wantErr: []string{`--kube-version "1.3": not a Kubernetes version podlint models \(1.21 to 1.37\) \(did you mean 1.30\?`}},
		{name: "kube version too new", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "--kube-version", "1.40", "ok.yaml"}, wantCode: 0,
			wantErr: []string{`--kube-version "1.40" is newer than the newest Kubernetes podlint models; linting as 1.37`}},
		{name: "explicit config", files: map[string]string{"cfg.yaml": "disable: [PL010]\n", "bad.yaml": badPod},
			args: []string{"check", "--config", "cfg.yaml", "bad.yaml"}, wantCode: 0},
		{name: "output file", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "-o", "out.sarif", "-f", "sarif", "bad.yaml"},
			wantCode: 1, wantOutput: "out.sarif", wantErr: []string{`^podlint: 1 file, 1 object \(1 workload\): 1 error, 0 warnings, 0 infos; sarif report written to out.sarif\n$`}},
		{name: "sarif category and src-root", files: map[string]string{"deploy/k8s/bad.yaml": badPod},
			args: []string{"check", "-f", "sarif", "--category", "podlint-prod", "--src-root", "deploy", "deploy/k8s/bad.yaml"}, wantCode: 1,
			wantOut: []string{`"automationDetails": \{\s*"id": "podlint-prod/"`, `"uri": "k8s/bad.yaml"`}, notOut: []string{`"uri": "deploy/`}},
		{name: "github annotations relative to src-root", files: map[string]string{"deploy/bad.yaml": badPod},
			args: []string{"check", "-f", "github", "--src-root", "..", "deploy/bad.yaml"}, wantCode: 1,
			wantOut: []string{`file=[^,]+/deploy/bad.yaml,line=9,`}},
		{name: "src-root must be a directory", files: map[string]string{"ok.yaml": goodPod},
			args: []string{"check", "--src-root", "nope", "ok.yaml"}, wantCode: 2, wantErr: []string{`--src-root "nope" is not a directory`}},
		{name: "hidden folders are skipped", files: map[string]string{".git/bad.yaml": badPod, "ok.yaml": goodPod},
			args: []string{"check", "."}, wantCode: 0, wantOut: []string{`1 file,`}},
		{name: "helm chart hint", files: map[string]string{"chart/Chart.yaml": "name: x\n", "chart/templates/d.yaml": "kind: {{ .Values.kind }}\n"},
			args: []string{"check", "--render=never", "chart"}, wantCode: 1, wantErr: []string{`hint: \"chart\" is a Helm chart`}, wantOut: []string{`helm-template`}},
		{name: "helm chart rendered", files: map[string]string{"chart/Chart.yaml": "name: x\n", "chart/templates/d.yaml": "kind: {{ .Values.kind }}\n"},
			args: []string{"check", "chart"}, wantCode: 1, wantOut: []string{`chart/Chart.yaml:1:1: error: Helm cannot load the chart: validation: chart.metadata.version is required \[PL012`}},
		{name: "bad --render", args: []string{"check", "--render=sometimes", "."}, wantCode: 2, wantErr: []string{`--render "sometimes": want auto or never`}},
		{name: "rules command", args: []string{"rules"}, wantCode: 0, wantOut: []string{`PL010  duplicate-container-name`}},
		{name: "rules markdown", args: []string{"rules", "--format", "markdown"}, wantCode: 0, wantOut: []string{`\| \[PL010\]\(rules/PL010.md\)`}},
		{name: "rule page by ID", args: []string{"rules", "PL203"}, wantCode: 0, wantOut: []string{`^PL203 zero-grace-period\n=+\n`, "terminationGracePeriodSeconds: 0", `Examples: https://\S+/docs/rules/PL203.md`},
			notOut: []string{"\\*\\*", "\\]\\(", "`"}},
		{name: "rule page by name", args: []string{"rules", "zero-grace-period"}, wantCode: 0, wantOut: []string{`^PL203 zero-grace-period\n`}},
		{name: "rule page in Markdown", args: []string{"rules", "-f", "markdown", "PL101"}, wantCode: 0,
			wantOut: []string{`^# PL101 liveness-kills-before-ready\n`, `\]\(\.\./semantics\.md#f-4\)`}},
		{name: "unknown rule page", args: []string{"rules", "PL999"}, wantCode: 2, wantErr: []string{`unknown rule "PL999"`}},
		{name: "version", args: []string{"version"}, wantCode: 0, wantOut: []string{`^podlint `}},
		{name: "rules doc by ID", args: []string{"rules", "PL101"}, wantCode: 0, wantOut: []string{`^PL101 liveness-kills-before-ready`, `startup probe`,
			`F-4 \(https://github.com/podlint/podlint/blob/main/docs/semantics.md#f-4\)`}},
		{name: "rules doc by name", args: []string{"rules", "duplicate-container-name"}, wantCode: 0, wantOut: []string{`^PL010 duplicate-container-name`}},
		{name: "rules json", args: []string{"rules", "-f", "json"}, wantCode: 0, wantOut: []string{`"id": "PL010",`, `"helpUri": "https://`}},
		{name: "rules unknown suggests", args: []string{"rules", "liveness-kills-before-redy"}, wantCode: 2,
			wantErr: []string{`unknown rule "liveness-kills-before-redy"; did you mean "liveness-kills-before-ready"\?`}},
		{name: "did you mean a flag", args: []string{"check", "--fial-on", "warning", "x"}, wantCode: 2, wantErr: []string{`did you mean "--fail-on"\?`}},
		{name: "did you mean a format", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "-f", "sarf", "ok.yaml"}, wantCode: 2,
			wantErr: []string{`did you mean "sarif"\?`}},
		{name: "did you mean a rule", files: map[string]string{"ok.yaml": goodPod}, args: []string{"check", "--enable", "PL10", "ok.yaml"}, wantCode: 2,
			wantErr: []string{`did you mean "PL010"\?|did you mean "PL101"\?`}},
		{name: "did you mean a command", args: []string{"chek"}, wantCode: 2, wantErr: []string{`did you mean "check"\?`}},
		{name: "complete formats", args: []string{"__complete", "check", "-f"}, wantCode: 0, wantOut: []string{`^sarif$`, `^codeclimate$`}},
		{name: "complete rules", args: []string{"__complete", "check", "--enable"}, wantCode: 0, wantOut: []string{`^PL101$`, `^liveness-kills-before-ready$`}},
		{name: "complete nothing for a path", args: []string{"__complete", "check", "k8s/"}, wantCode: 0, notOut: []string{`.`}},
		{name: "powershell completion", args: []string{"completion", "powershell"}, wantCode: 0,
			wantOut: []string{`Register-ArgumentCompleter -Native -CommandName podlint`, `podlint __complete`}},
		{name: "expected-startup flag, printed as written", files: map[string]string{"live.yaml": livePod},
			args: []string{"check", "--expected-startup", "app=5m,10s", "live.yaml"}, wantCode: 1,
			wantOut: []string{`error: liveness probe kills "app" .* after start, before its expected start-up of 5m \[PL101`}},
		{name: "exclude flag", files: map[string]string{"vendor/bad.yaml": badPod, "ok.yaml": goodPod},
			args: []string{"check", "--exclude", "vendor/**", "."}, wantCode: 0, wantOut: []string{`1 file,`}},
		{name: "fail-on never", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "--fail-on", "never", "bad.yaml"}, wantCode: 0,
			wantOut: []string{`error: container name`}},
		{name: "show warning hides infos", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "--show", "warning", "-f", "json", "bad.yaml"}, wantCode: 1,
			notOut: []string{`"severity": "info"`}},
		{name: "brief is one line per finding", files: map[string]string{"bad.yaml": badPod}, args: []string{"check", "--brief", "bad.yaml"}, wantCode: 1,
			notOut: []string{`\n\d+ \| `}},
		{name: ".podlint.yml is found", files: map[string]string{".podlint.yml": "disable: [PL010]\n", "bad.yaml": badPod},
			args: []string{"check", "bad.yaml"}, wantCode: 0},
		{name: "both config names is an error", files: map[string]string{".podlint.yml": "disable: [PL010]\n", ".podlint.yaml": "disable: [PL010]\n", "bad.yaml": badPod},
			args: []string{"check", "bad.yaml"}, wantCode: 2, wantErr: []string{`both .podlint.yaml and .podlint.yml exist`}},
		{name: "config of the linted folder", files: map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/index": string(testgit.Index(map[string]uint32{"svc/bad.yaml": testgit.File})),
			"svc/.podlint.yaml": "disable: [PL010]\n", "svc/bad.yaml": badPod},
			args: []string{"check", "svc"}, wantCode: 0},
		{name: "config error writes a failed SARIF", files: map[string]string{".podlint.yaml": "fail_on: warning\n", "ok.yaml": goodPod},
			args: []string{"check", "-f", "sarif", "-o", "out.sarif", "ok.yaml"}, wantCode: 2, wantOutput: "out.sarif", wantFailedRun: "unknown key "},
		{name: "I/O error writes a failed SARIF with the findings", files: map[string]string{"bad.yaml": badPod},
			args: []string{"check", "-f", "sarif", "-o", "out.sarif", "nope.yaml", "bad.yaml"}, wantCode: 2, wantOutput: "out.sarif", wantFailedRun: "nope.yaml: "},
		{name: "unknown command", args: []string{"frob"}, wantCode: 2, wantErr: []string{`unknown command "frob"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			t.Chdir(dir)
			t.Setenv("NO_COLOR", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := Run(append([]string{"podlint"}, tc.args...), strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, stdout.String(), stderr.String())
			}
			for _, re := range tc.wantOut {
				if !regexp.MustCompile("(?m)" + re).MatchString(stdout.String()) {
					t.Errorf("stdout does not match %q:\n%s", re, stdout.String())
				}
			}
			for _, re := range tc.notOut {
				if regexp.MustCompile(re).MatchString(stdout.String()) {
					t.Errorf("stdout matches %q but must not:\n%q", re, stdout.String())
				}
			}
			for _, re := range tc.wantErr {
				if !regexp.MustCompile(re).MatchString(stderr.String()) {
					t.Errorf("stderr does not match %q:\n%s", re, stderr.String())
				}
			}
			for _, re := range tc.notErr {
				if regexp.MustCompile(re).MatchString(stderr.String()) {
					t.Errorf("stderr matches %q but must not:\n%s", re, stderr.String())
				}
			}
			if tc.wantNoErr && stderr.Len() > 0 {
				t.Errorf("unexpected stderr: %s", stderr.String())
			}
			if tc.wantOutput != "" {
				data, err := os.ReadFile(filepath.Join(dir, tc.wantOutput))
				if err != nil || !json.Valid(data) {
					t.Errorf("output file %s missing or not JSON: %v", tc.wantOutput, err)
				}
				if stdout.Len() != 0 {
					t.Errorf("report went to stdout as well as -o: %s", stdout.String())
				}
				if tc.wantFailedRun != "" && !regexp.MustCompile(`"executionSuccessful": false,\s+"toolExecutionNotifications": \[\s+\{\s+"level": "error",\s+"message": \{\s+"text": "`+regexp.QuoteMeta(tc.wantFailedRun)).Match(data) {
					t.Errorf("output file does not say the run failed:\n%s", data)
				}
			}
		})
	}
}

// TestDeterministic checks that the same input gives byte-identical output
// whatever the number of workers.
func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		files[filepath.Join("d", string(rune('a'+i%26))+strings.Repeat("x", i/26)+".yaml")] = badPod + "---\n" + warnPod
	}
	writeFiles(t, dir, files)
	t.Chdir(dir)
	var first string
	for _, procs := range []string{"1", "2", "8"} {
		t.Setenv("GOMAXPROCS", procs)
		for _, format := range []string{"text", "json", "sarif"} {
			var out, errb bytes.Buffer
			Run([]string{"podlint", "check", "-f", format, "--color", "never", "d"}, strings.NewReader(""), &out, &errb)
			if format == "sarif" {
				if first == "" {
					first = out.String()
				} else if out.String() != first {
					t.Fatalf("SARIF output differs between runs (GOMAXPROCS=%s)", procs)
				}
			}
		}
	}
}

// TestConfigKeysHaveFlags holds the documented promise: every key of
// .podlint.yaml except the maps rules and charts (per chart; --values,
// --set, --release-name and --namespace apply to every chart) is a flag
// of podlint check.
func TestConfigKeysHaveFlags(t *testing.T) {
	flags := map[string]bool{}
	for _, f := range checkCommand(&runEnv{}).Flags {
		for _, n := range f.Names() {
			flags[n] = true
		}
	}
	typ := reflect.TypeFor[settings.Config]()
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("yaml"), ",")
		if key == "" || key == "rules" || key == "charts" || key == "fix" || key == "policies" { // sections; policies adds to --policy FILE
			continue
		}
		if !flags[key] {
			t.Errorf("config key %q has no flag --%s", key, key)
		}
	}
}

// livePod has a liveness probe and no startup probe.
const livePod = `apiVersion: v1
kind: Pod
metadata:
  name: live
spec:
  containers:
    - name: app
      image: example.com/app:1
      livenessProbe:
        httpGet: {path: /healthz, port: 8080}
`

// TestVersionFlagMatchesCommand: `podlint --version`, `-v` and `podlint
// version` print the same line, the one internal/version builds.
func TestVersionFlagMatchesCommand(t *testing.T) {
	var outs []string
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		var out, errb bytes.Buffer
		if code := Run(append([]string{"podlint"}, args...), strings.NewReader(""), &out, &errb); code != ExitOK || errb.Len() > 0 {
			t.Fatalf("podlint %v: exit %d, stderr %q", args, code, errb.String())
		}
		outs = append(outs, out.String())
	}
	want := podversion.Get().String() + "\n"
	for i, o := range outs {
		if o != want {
			t.Errorf("output %d is %q, want %q (all: %q)", i, o, want, outs)
		}
	}
}

// TestCheckReportsAnnotationErrors: a podlint.dev annotation podlint cannot
// read is an error at its value (PL014), not "no findings" with the value
// silently replaced by the defaults.
func TestCheckReportsAnnotationErrors(t *testing.T) {
	dir := t.TempDir()
	pod := `apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    podlint.dev/expected-startup: "90sec"
    podlint.dev/expected-shutdown: "app=5s,app=6s"
spec:
  containers:
    - name: app
      image: nginx
      readinessProbe:
        httpGet: {path: /ready, port: 8080}
`
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(pod), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, dir, strings.NewReader(""), "check", "--no-config", "--color", "never", "pod.yaml")
	if code != ExitFindings {
		t.Fatalf("exit %d, want %d: %s%s", code, ExitFindings, out, errOut)
	}
	for _, want := range []string{
		`pod.yaml:6:35: error: podlint.dev/expected-startup "90sec" cannot be read [PL014 invalid-annotation]`,
		`pod.yaml:7:36: error: podlint.dev/expected-shutdown "app=5s,app=6s" cannot be read [PL014 invalid-annotation]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
