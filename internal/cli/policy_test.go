package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testgit"
	"github.com/podlint/podlint/rules"
)

// runIn runs podlint with args in dir and returns the exit code, standard
// output and standard error.
func runIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code := Run(append([]string{"podlint"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// checkGolden compares got with the golden file, or with -update writes it;
// rewrite says how to rewrite it.
func checkGolden(t *testing.T, file string, got []byte, rewrite string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (%s creates it)", err, rewrite)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (%s rewrites it)\n--- got\n%s", file, rewrite, got)
	}
}

// onlyPolicyRules turns off every rule but the policies' and the
// suppressions': the policy goldens change only with them.
func onlyPolicyRules() string {
	var off []string
	for _, r := range rules.All {
		switch r {
		case rules.Policy, rules.SuppressionMissingReason, rules.UnusedSuppression:
		default:
			off = append(off, r.ID)
		}
	}
	return "--disable=" + strings.Join(off, ",")
}

// TestPolicyGolden is the output of a run with the workflow's policies in
// every format: findings at the field to change with the policy's name,
// severity and numbers, one suppressed with a reason (listed in the text
// and JSON summaries), one whose suppression gives none (kept). go test
// ./internal/cli -run TestPolicyGolden -update rewrites the goldens.
func TestPolicyGolden(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	t.Setenv("NO_COLOR", "1")
	t.Setenv("COLUMNS", "")
	dir := filepath.Join("internal", "cli", "testdata", "policy")
	for _, format := range []string{"text", "json", "sarif", "github", "junit", "codeclimate", "markdown"} {
		t.Run(format, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := []string{"podlint", "check", "--no-config", "--policy", filepath.Join(dir, "policies.yaml"), onlyPolicyRules(), "-f", format, filepath.Join(dir, "manifests")}
			if code := Run(args, strings.NewReader(""), &out, &errb); code != ExitFindings {
				t.Fatalf("exit %d, want 1 (error policies failed): %s", code, errb.String())
			}
			checkGolden(t, filepath.Join(dir, "golden", format+".golden"), goldenOf(t, format, out.Bytes()), "go test ./internal/cli -run TestPolicyGolden -update")
		})
	}
}

// TestPolicySummary reads what the goldens show: the finding a suppression
// with a reason hid is listed with the reason in the text and JSON
// summaries and counted on the tally; the one whose suppression gives no
// reason stays, beside PL011.
func TestPolicySummary(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("testdata", "policy", "golden", "text.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Suppressed, with the reasons given:\n  internal/cli/testdata/policy/manifests/web.yaml:40:31: error: startup probe gives up sooner than policy \"prod-startup\" allows [PL801 policy]\n    reason: the cache warm-up is off here; starts in 5s, measured\n",
		"; 1 policy finding suppressed\n",
		"web.yaml:52:38: warning: grace period is shorter than policy \"lb-deregistration\" requires [PL801 policy]",
		"web.yaml:52:40: warning: suppression of PL801 (policy) gives no reason [PL011 suppression-missing-reason]",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("text.golden lacks %q", want)
		}
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "policy", "golden", "json.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Summary struct {
			Errors     int
			Suppressed []struct {
				ID, Message, Reason string
				Line, Column        int
			}
		}
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	s := rep.Summary.Suppressed
	if len(s) != 1 || s[0].ID != "PL801" || s[0].Line != 40 || s[0].Column != 31 || s[0].Reason != "the cache warm-up is off here; starts in 5s, measured" ||
		!strings.Contains(s[0].Message, `"prod-startup"`) {
		t.Errorf("summary.suppressed = %+v", s)
	}
	if rep.Summary.Errors != 2 {
		t.Errorf("summary.errors = %d, want 2 (prod-startup on web, job-deadline on migrate)", rep.Summary.Errors)
	}
}

const policyPod = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 10
  containers:
    - name: app
      image: example/app:1
      resources: {requests: {cpu: 10m}}
`

// policyRepo is a repository with policyPod and the configuration given
// ("" for none), and beside it, outside it, the workflow's policy file
// org/org.yaml with the policy "lb" (30s after the preStop, error).
func policyRepo(t *testing.T, config string) (repo, org string) {
	t.Helper()
	root := t.TempDir()
	repo, org = filepath.Join(root, "repo"), filepath.Join(root, "org")
	files := map[string]string{"pod.yaml": policyPod}
	if config != "" {
		files[".podlint.yaml"] = config
	}
	writeFiles(t, repo, files)
	if err := testgit.InitAll(repo); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, org, map[string]string{"org.yaml": "policies:\n  - name: lb\n    require: {min-grace-after-prestop: 30s}\n"})
	return repo, filepath.Join(org, "org.yaml")
}

// TestPolicyTrust: the repository's configuration may add policies but not
// take one of the workflow's away, by redefining it, turning the rule off
// or setting fail-on never; the command line may.
func TestPolicyTrust(t *testing.T) {
	const own = "policies:\n  - name: team\n    require: {min-grace-after-prestop: 20s}\n"
	for _, c := range []struct {
		name, config string
		args         []string
		code         int
		out, stderr  string // regexps; "" matches anything
		noOut        string // must not be in the output
	}{
		{name: "flag policy alone", code: 1, out: `pod.yaml:5:34: error: .*policy "lb"`},
		{name: "configuration adds a policy", config: own, code: 1, out: `policy "lb"(?s:.*)policy "team"(?s:.*)Policy "team" is defined at \.podlint\.yaml:2\.`},
		{name: "configuration redefines the workflow's policy", config: "policies:\n  - name: lb\n    require: {min-grace-after-prestop: 1s}\n", code: 2,
			stderr: `config .*\.podlint\.yaml:2: policy "lb" is the workflow's, defined at .*org\.yaml:2 \(--policy\); the repository's configuration may add policies but not replace one`},
		{name: "configuration disables the rule", config: own + "disable: [policy]\n", code: 1, out: `policy "lb"(?s:.*)policy "team"`,
			stderr: `turns rule PL801 \(policy\) off, which a configuration may not do while --policy is given`},
		{name: "configuration turns the rule off by severity", config: own + "rules: {PL801: off}\n", code: 1, out: `policy "lb"`,
			stderr: `turns rule PL801 \(policy\) off`},
		{name: "configuration sets fail-on never", config: "fail-on: never\n", code: 1, out: `policy "lb"`,
			stderr: `fail-on in .*\.podlint\.yaml:1: "never" would let findings of the workflow's policies pass`},
		{name: "the command line may set fail-on never", config: "fail-on: never\n", args: []string{"--fail-on", "never"}, code: 0, out: `policy "lb"`},
		{name: "the command line may disable the rule", args: []string{"--disable", "policy"}, code: 0, noOut: "PL801"},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo, org := policyRepo(t, c.config)
			args := append([]string{"check", "--policy", org}, c.args...)
			code, out, stderr := runIn(t, repo, append(args, "pod.yaml")...)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s%s", code, c.code, out, stderr)
			}
			if c.out != "" && !regexp.MustCompile(c.out).MatchString(out) {
				t.Errorf("output does not match %q:\n%s", c.out, out)
			}
			if c.stderr != "" && !regexp.MustCompile(c.stderr).MatchString(stderr) {
				t.Errorf("standard error does not match %q:\n%s", c.stderr, stderr)
			}
			if c.noOut != "" && strings.Contains(out, c.noOut) {
				t.Errorf("output holds %q:\n%s", c.noOut, out)
			}
		})
	}
	// Without --policy the repository's policies are its own to turn off.
	t.Run("configuration disables its own policies", func(t *testing.T) {
		repo, _ := policyRepo(t, own+"disable: [policy]\n")
		code, out, stderr := runIn(t, repo, "check", "pod.yaml")
		if code != 0 || strings.Contains(out, "PL801") || stderr != "" {
			t.Errorf("exit %d, want 0 and no policy finding:\n%s%s", code, out, stderr)
		}
	})
	t.Run("configuration policies alone", func(t *testing.T) {
		repo, _ := policyRepo(t, own)
		code, out, _ := runIn(t, repo, "check", "pod.yaml")
		if code != 1 || !strings.Contains(out, `policy "team"`) {
			t.Errorf("exit %d, want 1 with the configuration's policy:\n%s", code, out)
		}
	})
}

// TestPolicyExitCodes: policy findings count at their severity, as any
// finding does.
func TestPolicyExitCodes(t *testing.T) {
	for _, c := range []struct {
		severity, failOn string
		code             int
	}{
		{"", "", 1}, {"error", "", 1}, {"warning", "", 0}, {"warning", "warning", 1}, {"info", "warning", 0}, {"info", "info", 1},
	} {
		repo, _ := policyRepo(t, "")
		sev := ""
		if c.severity != "" {
			sev = "    severity: " + c.severity + "\n"
		}
		writeFiles(t, repo, map[string]string{"p.yaml": "policies:\n  - name: lb\n" + sev + "    require: {min-grace-after-prestop: 30s}\n"})
		args := []string{"check", "--policy", "p.yaml"}
		if c.failOn != "" {
			args = append(args, "--fail-on", c.failOn)
		}
		if code, out, stderr := runIn(t, repo, append(args, "pod.yaml")...); code != c.code {
			t.Errorf("severity %q, --fail-on %q: exit %d, want %d\n%s%s", c.severity, c.failOn, code, c.code, out, stderr)
		}
	}
}

// TestPolicyErrors: a mistyped key gets the closest one, a value of the
// wrong type the key, the line, the type wanted and an example, in a
// policy file and in .podlint.yaml alike; each stops the run (exit 2).
func TestPolicyErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, content, want string
	}{
		{"top-level typo", "p.yaml", "polices: []\n", `unknown key "polices" in --policy p.yaml:1; did you mean "policies"?`},
		{"policy key typo", "p.yaml", "policies:\n  - name: a\n    requires: {max-job-time: 1h}\n",
			`unknown key "policies[0].requires" in --policy p.yaml:3; did you mean "require"?`},
		{"requirement typo", "p.yaml", "policies:\n  - name: a\n    require:\n      min-startup-budjet: 2m\n",
			`unknown key "policies[0].require.min-startup-budjet" in --policy p.yaml:4; did you mean "min-startup-budget"?`},
		{"match typo", "p.yaml", "policies:\n  - name: a\n    match: {namespace: [prod]}\n    require: {max-job-time: 1h}\n",
			`unknown key "policies[0].match.namespace" in --policy p.yaml:3; did you mean "namespaces"?`},
		{"kinds not a list", "p.yaml", "policies:\n  - name: a\n    match:\n      kinds: Deployment\n    require: {max-job-time: 1h}\n",
			`--policy p.yaml:4: "policies[0].match.kinds" is the string "Deployment"; want a list of strings, e.g. kinds: [Deployment, StatefulSet]`},
		{"labels not a mapping", "p.yaml", "policies:\n  - name: a\n    match:\n      labels: [tier]\n    require: {max-job-time: 1h}\n",
			`--policy p.yaml:4: "policies[0].match.labels" is a list; want a mapping, e.g. labels: {tier: web}`},
		{"duration a list", "p.yaml", "policies:\n  - name: a\n    require:\n      max-job-time: [1h]\n",
			`--policy p.yaml:4: "policies[0].require.max-job-time" is a list; want a string, e.g. max-job-time: 1h`},
		{"not a mapping", "p.yaml", "- name: a\n", `--policy p.yaml:1: want a mapping with a policies list`},
		{"empty", "p.yaml", "", `--policy "p.yaml": the file is empty`},
		{"two documents", "p.yaml", "policies: []\n---\npolicies: []\n", `--policy "p.yaml": holds more than one YAML document`},
		{"configuration typo", ".podlint.yaml", "policies:\n  - name: a\n    require: {min-liveness-kil: 1m}\n",
			`unknown key "policies[0].require.min-liveness-kil" in .podlint.yaml:3; did you mean "min-liveness-kill"?`},
		{"configuration wrong type", ".podlint.yaml", "policies:\n  - name: a\n    severity: [error]\n    require: {max-job-time: 1h}\n",
			`config .podlint.yaml:3: "policies[0].severity" is a list; want a string, e.g. severity: warning`},
		{"configuration policies not a list", ".podlint.yaml", "policies: {name: a}\n",
			`config .podlint.yaml:1: policies is a mapping; want a list of policies`},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo, _ := policyRepo(t, "")
			writeFiles(t, repo, map[string]string{c.file: c.content})
			args := []string{"check", "pod.yaml"}
			if c.file == "p.yaml" {
				args = append(args, "--policy", "p.yaml")
			}
			code, out, stderr := runIn(t, repo, args...)
			stderr = strings.ReplaceAll(stderr, repo+string(filepath.Separator), "") // a configuration found is named by its path
			if code != ExitError || out != "" {
				t.Errorf("exit %d, want 2 and no report:\n%s", code, out)
			}
			if !strings.HasPrefix(stderr, "podlint: "+c.want) {
				t.Errorf("standard error:\n%s\nwant it to start with\npodlint: %s", stderr, c.want)
			}
		})
	}
}

// TestPolicyFileRead: the workflow's policy file may be outside the
// repository being checked, but it is read as confined as a configuration
// found by searching: a regular file, not a link out of its own folder or
// repository, not a device.
func TestPolicyFileRead(t *testing.T) {
	repo, org := policyRepo(t, "")
	if code, out, stderr := runIn(t, repo, "check", "--policy", org, "pod.yaml"); code != 1 || !strings.Contains(out, `policy "lb"`) {
		t.Errorf("a policy file outside the repository: exit %d, want 1 with its finding\n%s%s", code, out, stderr)
	}
	if err := os.Symlink(org, filepath.Join(repo, "link.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, c := range []struct{ path, want string }{
		{"link.yaml", `--policy "link.yaml": a symbolic link out of the repository, which podlint does not read`},
		{os.DevNull, `not a regular file`},
		{"missing.yaml", `--policy "missing.yaml": `},
	} {
		code, out, stderr := runIn(t, repo, "check", "--policy", c.path, "pod.yaml")
		if code != ExitError || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("--policy %s: exit %d, want 2 with %q\n%s%s", c.path, code, c.want, out, stderr)
		}
	}
}

// TestPolicyDocs checks what docs/policies.md says of errors and of
// suppressed findings against what podlint prints.
func TestPolicyDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "policies.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := func(heading string) string {
		_, rest, ok := strings.Cut(string(doc), heading)
		if !ok {
			t.Fatalf("docs/policies.md has no %q", heading)
		}
		_, rest, _ = strings.Cut(rest, "```text\n")
		b, _, _ := strings.Cut(rest, "```")
		return b
	}
	repo, _ := policyRepo(t, "")
	// The page's sample policy file is one podlint accepts.
	_, rest, _ := strings.Cut(string(doc), "## A policy file")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	sample, _, _ := strings.Cut(rest, "```")
	writeFiles(t, repo, map[string]string{"org-policies.yaml": sample})
	if code, out, stderr := runIn(t, repo, "check", "--policy", "org-policies.yaml", "pod.yaml"); code == ExitError || !strings.Contains(out, `policy "lb-deregistration"`) {
		t.Errorf("the sample policy file of docs/policies.md: exit %d, want its lb-deregistration finding\n%s%s", code, out, stderr)
	}
	var got strings.Builder
	for _, content := range []string{
		"policies:\n  - name: addon-startup\n    match:\n      kinds: [Deployment]\n    require:\n      min-startup-budjet: 2m\n",
		"policies:\n  - name: addon-startup\n    match:\n      kinds: Deployment\n    require:\n      min-startup-budget: 2m\n",
		"policies:\n  - name: addon-startup\n    match:\n      kinds: [Deployment]\n    require:\n      min-startup-budget: 2 minutes\n",
	} {
		writeFiles(t, repo, map[string]string{"org-policies.yaml": content})
		_, _, stderr := runIn(t, repo, "check", "--policy", "org-policies.yaml", "pod.yaml")
		got.WriteString(stderr)
	}
	if want := block("## Errors in a policy"); got.String() != want {
		t.Errorf("docs/policies.md, Errors in a policy, shows\n%s\npodlint prints\n%s", want, got.String())
	}

	writeFiles(t, repo, map[string]string{
		"org-policies.yaml": "policies:\n  - name: prod-startup\n    require: {min-startup-budget: 2m}\n",
		"deploy/web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    ignore-check.podlint.dev/policy: "warm-up is off in this service; measured 5s"
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: example/app:1
          resources: {requests: {cpu: 10m, memory: 64Mi}}
          readinessProbe:
            httpGet: {path: /ready, port: 8080}
          startupProbe:
            httpGet: {path: /healthz, port: 8080}
            failureThreshold: 3
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
`})
	_, out, _ := runIn(t, repo, "check", "--no-config", "--policy", "org-policies.yaml", "deploy/web.yaml")
	if want := block("## Suppressing a policy finding"); !strings.HasSuffix(out, want) {
		t.Errorf("docs/policies.md, Suppressing a policy finding, shows\n%s\npodlint prints\n%s", want, out)
	}
}

// TestPolicyRenderedChart: policies hold a rendered chart's workloads,
// matched by the namespace the chart renders into, and a finding a
// suppression hides is listed at the template's line, where a reviewer
// reads it.
func TestPolicyRenderedChart(t *testing.T) {
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{
		"org.yaml":          "policies:\n  - name: prod-startup\n    match: {namespaces: [\"prod-*\"]}\n    require: {min-startup-budget: 2m}\n",
		"chart/Chart.yaml":  "apiVersion: v2\nname: demo\nversion: 0.1.0\n",
		"chart/values.yaml": "replicas: 1\n",
		"chart/templates/a.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
  namespace: {{ .Release.Namespace }}
  annotations:
    ignore-check.podlint.dev/policy: "measured: starts in 3s"
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: example/app:1
          resources: {requests: {cpu: 10m, memory: 10Mi}}
          startupProbe:
            httpGet: {path: /, port: 8080}
            failureThreshold: 3
`})
	if err := testgit.InitAll(repo); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runIn(t, repo, "check", "--no-config", "--policy", "org.yaml", "--namespace", "prod-eu", "chart")
	want := "Suppressed, with the reasons given:\n  chart/templates/a.yaml:20:31: error: startup probe gives up sooner than policy \"prod-startup\" allows [PL801 policy]\n    reason: measured: starts in 3s\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, want 0 with\n%s\ngot\n%s%s", code, want, out, stderr)
	}
	if code, out, _ := runIn(t, repo, "check", "--no-config", "--policy", "org.yaml", "--namespace", "staging", "chart"); code != 0 || strings.Contains(out, "[PL801 policy]") {
		t.Errorf("a chart rendered into staging matches no prod-* policy: exit %d\n%s", code, out)
	}
}
