package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const renderData = "../../render/testdata"

type jsonOut struct {
	Findings []struct {
		ID      string
		File    string
		Line    int
		Column  int
		Message string
		Detail  string
		Related []struct {
			File         string
			Line, Column int
			Message      string
		}
		Object   *struct{ Kind, Name string }
		Rendered *struct{ Root, Template, Path string }
	}
	Summary struct {
		Files, Objects, Workloads int
		Rendered                  []string
	}
}

// checkJSON runs podlint check -f json and decodes the report.
func checkJSON(t *testing.T, args ...string) (jsonOut, int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(append([]string{"podlint", "check", "-f", "json", "--no-config"}, args...), strings.NewReader(""), &stdout, &stderr)
	var out jsonOut
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("podlint %v: exit %d, stderr %s: %v", args, code, stderr.String(), err)
	}
	return out, code, stderr.String()
}

// slowApps makes every container need more start-up and shutdown time
// than the charts allow, so that the charts have findings to map.
func slowApps(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "podlint.yaml")
	if err := os.WriteFile(p, []byte("expected-startup:\n  \"*\": 300s\nexpected-shutdown:\n  \"*\": 120s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestChartsLintedInTemplates is the acceptance test of rendering: the real
// charts, with their default values and with a values file from their ci/
// folder, are rendered and every finding is in a template of the chart,
// with values files only as related locations; none is PL005.
func TestChartsLintedInTemplates(t *testing.T) {
	cfg := slowApps(t)
	for _, tc := range []struct {
		chart  string
		values string
	}{
		{"podinfo", ""},
		{"podinfo", "values-prod.yaml"},
		{"ingress-nginx", ""},
		{"ingress-nginx", "ci/controller-deployment-values.yaml"},
		{"ingress-nginx", "ci/controller-daemonset-metrics-values.yaml"},
		{"promtail", ""},
		{"promtail", "ci/deployment-values.yaml"},
	} {
		t.Run(tc.chart+"/"+tc.values, func(t *testing.T) {
			dir := filepath.Join(renderData, "helm", tc.chart)
			args := []string{"--config", cfg, dir}
			if tc.values != "" {
				args = append(args, "--values", filepath.Join(dir, tc.values))
			}
			out, code, stderr := checkJSON(t, append(args, "--fail-on", "info")...)
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			if out.Summary.Workloads == 0 || len(out.Summary.Rendered) != 1 {
				t.Fatalf("summary %+v: want the chart rendered with its workloads", out.Summary)
			}
			if len(out.Findings) == 0 || code != ExitFindings {
				t.Fatalf("exit %d with %d findings; the slow apps must give findings", code, len(out.Findings))
			}
			templates := filepath.Join(dir, "templates") + string(filepath.Separator)
			for _, f := range out.Findings {
				if f.ID == "PL005" || f.ID == "PL012" {
					t.Errorf("%s:%d: %s %s", f.File, f.Line, f.ID, f.Message)
				}
				if strings.Contains(f.Detail, "Rendered from") {
					t.Errorf("%s:%d: %s detail %q names the template the finding is already in", f.File, f.Line, f.ID, f.Detail)
				}
				if !strings.HasPrefix(f.File, templates) || f.Line < 1 || f.Column < 1 {
					t.Errorf("finding at %s:%d:%d, not in a template of the chart", f.File, f.Line, f.Column)
				}
				if f.Rendered == nil || f.Rendered.Root != dir || !strings.HasPrefix(f.Rendered.Template, tc.chart+"/templates/") || f.Object == nil {
					t.Errorf("%s:%d: rendered %+v object %+v: want the root, the template and the object", f.File, f.Line, f.Rendered, f.Object)
				}
				for _, r := range f.Related {
					ok := strings.HasPrefix(r.File, templates) || r.File == filepath.Join(dir, "values.yaml") || (tc.values != "" && r.File == filepath.Join(dir, tc.values))
					if !ok {
						t.Errorf("%s:%d: related location %s:%d is neither a template nor a values file", f.File, f.Line, r.File, r.Line)
					}
				}
			}
		})
	}
}

// TestValuesRelatedLocation: a probe written by toYaml .Values.… points at
// the template line, and at the values line as related location.
func TestValuesRelatedLocation(t *testing.T) {
	dir := filepath.Join(renderData, "helm", "ingress-nginx")
	out, _, _ := checkJSON(t, "--config", slowApps(t), dir)
	for _, f := range out.Findings {
		if f.ID != "PL101" {
			continue
		}
		if f.File != filepath.Join(dir, "templates/controller-deployment.yaml") || f.Line != 116 {
			t.Errorf("PL101 at %s:%d, want controller-deployment.yaml:116 (livenessProbe: {{ toYaml .Values.controller.livenessProbe … }})", f.File, f.Line)
		}
		for _, r := range f.Related {
			if r.File == filepath.Join(dir, "values.yaml") && r.Line == 352 && strings.Contains(r.Message, ".Values.controller.livenessProbe") {
				return
			}
		}
		t.Fatalf("PL101 related %+v: want values.yaml:352 (controller.livenessProbe)", f.Related)
	}
	t.Fatal("no PL101 finding in ingress-nginx with a 300s start-up")
}

// TestKustomizePatchedProbe: the overlay's patch raises the liveness
// initialDelaySeconds to 90; the finding is about 90s and points at the
// patch line, not at the base.
func TestKustomizePatchedProbe(t *testing.T) {
	dir := filepath.Join(renderData, "kustomize", "probe-patch")
	out, code, _ := checkJSON(t, dir)
	var hit bool
	for _, f := range out.Findings {
		if f.ID != "PL103" {
			continue
		}
		hit = true
		if f.File != filepath.Join(dir, "overlay/slow-start.yaml") || f.Line != 12 || f.Column != 34 || !strings.Contains(f.Message+" "+f.Detail, "90s") {
			t.Errorf("PL103 at %s:%d:%d %q, want overlay/slow-start.yaml:12:34 about 90s", f.File, f.Line, f.Column, f.Message)
		}
		if f.Object == nil || f.Object.Name != "prod-api" {
			t.Errorf("object %+v, want the rendered prod-api", f.Object)
		}
	}
	if !hit || code != ExitOK {
		// PL103 is a warning: exit 0 at the default --fail-on.
		t.Errorf("PL103 found %v, exit %d", hit, code)
	}
	want := filepath.Join(dir, "overlay") + " (kustomization), also rendering " + filepath.Join(dir, "base")
	if len(out.Summary.Rendered) != 1 || out.Summary.Rendered[0] != want {
		t.Errorf("rendered %q, want only %q: the base is rendered through its overlay", out.Summary.Rendered, want)
	}
}

// TestRenderErrors: a missing dependency, a template syntax error and a
// remote base are each a positioned finding; exit 1; the rest of each chart
// and the other inputs are still linted.
func TestRenderErrors(t *testing.T) {
	h := func(p string) string { return filepath.Join(renderData, "helm", p) }
	k := func(p string) string { return filepath.Join(renderData, "kustomize", p) }
	// helloWorld's container is said to start slowly, so that its missing
	// readiness probe is a finding (PL705) of an input that still renders.
	out, code, _ := checkJSON(t, "--expected-startup", "the-container=30s", h("missing-dep"), h("syntax-error"), k("remote-base"), k("helloWorld"))
	if code != ExitFindings {
		t.Errorf("exit %d, want %d", code, ExitFindings)
	}
	type at struct {
		id, file string
		line     int
		msg      string
	}
	wants := []at{
		{"PL012", h("missing-dep/Chart.yaml"), 5, "helm dependency build"},
		{"PL103", h("missing-dep/templates/deployment.yaml"), 17, "120s"},
		{"PL012", h("syntax-error/templates/broken.yaml"), 6, "unclosed action"},
		{"PL110", h("syntax-error/templates/pod.yaml"), 10, "never restarted"},
		{"PL012", k("remote-base/kustomization.yaml"), 2, "remote base"},
		{"PL705", k("helloWorld/deployment.yaml"), 16, "expected to need 30s to start"},
	}
	for _, w := range wants {
		found := false
		for _, f := range out.Findings {
			if f.ID == w.id && f.File == w.file && f.Line == w.line && strings.Contains(f.Message+" "+f.Detail, w.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s at %s:%d (%q)", w.id, w.file, w.line, w.msg)
		}
	}
	if t.Failed() {
		for _, f := range out.Findings {
			t.Logf("%s:%d %s %s", f.File, f.Line, f.ID, f.Message)
		}
	}
}

// TestNamedFileInChart: a template named on the command line (as
// pre-commit passes changed files) renders its chart and reports the
// findings in that file only.
func TestNamedFileInChart(t *testing.T) {
	named := filepath.Join(renderData, "helm", "podinfo", "templates", "tests", "jwt.yaml")
	out, _, _ := checkJSON(t, "--config", slowApps(t), named)
	if len(out.Findings) == 0 {
		t.Fatal("no findings in the named template")
	}
	for _, f := range out.Findings {
		if f.File != named {
			t.Errorf("finding in %s:%d, want only %s", f.File, f.Line, named)
		}
	}
	whole, _, _ := checkJSON(t, "--config", slowApps(t), filepath.Join(renderData, "helm", "podinfo", "values.yaml"))
	if len(whole.Findings) <= len(out.Findings) {
		t.Errorf("naming values.yaml gave %d findings, naming one template %d: a values file stands for the whole chart", len(whole.Findings), len(out.Findings))
	}
}

// TestNamedTemplateKeepsItsHelpers: naming a chart's template reports the
// findings of the documents it renders whose field a named template it
// includes writes (grafana's Pod in _pod.tpl), at the helper's line, as
// the whole chart does; naming the helper reports them too.
func TestNamedTemplateKeepsItsHelpers(t *testing.T) {
	dir := filepath.Join(renderData, "helm", "grafana-pod")
	helper := filepath.Join(dir, "templates", "_pod.tpl")
	whole, _, _ := checkJSON(t, "--fail-on", "info", dir)
	if len(whole.Findings) == 0 {
		t.Fatal("no findings in the chart")
	}
	at := func(out jsonOut) []string {
		var s []string
		for _, f := range out.Findings {
			s = append(s, fmt.Sprintf("%s:%d:%d %s", f.File, f.Line, f.Column, f.ID))
		}
		return s
	}
	for _, f := range whole.Findings {
		if f.File != helper {
			t.Errorf("%s:%d %s: want every finding in %s", f.File, f.Line, f.ID, helper)
		}
	}
	for _, named := range []string{filepath.Join(dir, "templates", "deployment.yaml"), helper} {
		out, code, stderr := checkJSON(t, "--fail-on", "info", named)
		if got, want := at(out), at(whole); code != ExitFindings || !slices.Equal(got, want) {
			t.Errorf("naming %s: exit %d, findings %q, want %q (stderr %q)", named, code, got, want, stderr)
		}
	}
}

// TestRenderNever keeps the old behaviour: the templates are files, PL005.
func TestRenderNever(t *testing.T) {
	out, code, stderr := checkJSON(t, "--render=never", filepath.Join(renderData, "helm", "podinfo"))
	if code != ExitFindings || len(out.Summary.Rendered) != 0 || !strings.Contains(stderr, "is a Helm chart") {
		t.Errorf("exit %d, rendered %v, stderr %q", code, out.Summary.Rendered, stderr)
	}
	for _, f := range out.Findings {
		if f.ID != "PL005" {
			t.Errorf("%s:%d %s, want only PL005", f.File, f.Line, f.ID)
		}
	}
}

// TestChartConfig: release name, namespace and values per chart in
// .podlint.yaml (paths relative to it), and --set for every chart.
func TestChartConfig(t *testing.T) {
	dir := t.TempDir()
	chart, _ := filepath.Abs(filepath.Join(renderData, "helm", "podinfo"))
	writeFiles(t, dir, map[string]string{
		".podlint.yaml": "expected-startup:\n  \"*\": 300s\ncharts:\n  " + chart + ":\n    release-name: shop\n    namespace: web\n    values: [prod.yaml]\n",
		"prod.yaml":     "replicaCount: 3\nprobes:\n  liveness:\n    initialDelaySeconds: 7\n",
	})
	out, _, _ := checkJSON(t, "--config", filepath.Join(dir, ".podlint.yaml"), "--set", "hpa.enabled=true", filepath.Join(renderData, "helm", "podinfo"))
	var hit bool
	for _, f := range out.Findings {
		if f.ID != "PL101" {
			continue
		}
		hit = true
		if f.Object == nil || f.Object.Name != "shop-podinfo" {
			t.Errorf("object %+v, want shop-podinfo (release-name from the config)", f.Object)
		}
		if !strings.Contains(f.Message+" "+f.Detail, "37s") {
			t.Errorf("message %q: want the initialDelaySeconds 7 of the config's values file (7s + 3 × 10s)", f.Message)
		}
	}
	if !hit {
		t.Fatalf("no PL101 in %+v", out.Findings)
	}
	if out.Summary.Objects != 6 {
		t.Errorf("%d objects, want 6 (--set hpa.enabled=true adds the HorizontalPodAutoscaler)", out.Summary.Objects)
	}
}

// TestRenderErrorSuppressed: a render error is suppressed, with a reason, by
// a comment above the line it points at, like any finding.
func TestRenderErrorSuppressed(t *testing.T) {
	dir := t.TempDir()
	chart := "apiVersion: v2\nname: web\nversion: 0.1.0\ndependencies:\n  # podlint:ignore chart-render-error CI runs helm dependency build first\n  - name: redis\n    version: 19.x.x\n    repository: oci://registry-1.docker.io/bitnamicharts\n"
	writeFiles(t, dir, map[string]string{"web/Chart.yaml": chart, "web/templates/pod.yaml": goodPod})
	out, code, _ := checkJSON(t, filepath.Join(dir, "web"))
	if code != ExitOK || len(out.Findings) != 0 || out.Summary.Workloads != 1 {
		t.Errorf("exit %d, findings %+v, summary %+v: want the suppressed dependency and the pod linted", code, out.Findings, out.Summary)
	}
	writeFiles(t, dir, map[string]string{"web/Chart.yaml": strings.Replace(chart, "  # podlint:ignore chart-render-error CI runs helm dependency build first\n", "", 1)})
	out, code, _ = checkJSON(t, filepath.Join(dir, "web"))
	if code != ExitFindings || len(out.Findings) != 1 || out.Findings[0].ID != "PL012" || out.Findings[0].Line != 5 {
		t.Errorf("exit %d, findings %+v: want PL012 at Chart.yaml:5", code, out.Findings)
	}
}

// TestKustomizeFeatures: a component's patch, a JSON 6902 patch file,
// images, replicas, namePrefix and a merged generator: each finding points
// at the file that set its field.
func TestKustomizeFeatures(t *testing.T) {
	dir := filepath.Join(renderData, "kustomize", "features")
	out, code, _ := checkJSON(t, dir)
	if code != ExitFindings {
		t.Errorf("exit %d", code)
	}
	got := map[string]string{}
	for _, f := range out.Findings {
		rel := ""
		for _, r := range f.Related {
			rel += fmt.Sprintf(" %s:%d:%d", r.File, r.Line, r.Column)
		}
		got[f.ID] = fmt.Sprintf("%s:%d:%d%s %s", f.File, f.Line, f.Column, rel, f.Object.Name)
	}
	want := map[string]string{
		"PL106": filepath.Join(dir, "components/probes/liveness.yaml") + ":15:29 prod-app",
		"PL201": filepath.Join(dir, "base/deployment.yaml") + ":31:17 " + filepath.Join(dir, "overlay/grace.yaml") + ":3:10 prod-app",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s at %q, want %q", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("findings %v, want only %v", got, want)
	}
	if len(out.Summary.Rendered) != 1 || out.Summary.Objects != 2 {
		t.Errorf("summary %+v: want the overlay rendered (base and component through it), 2 objects", out.Summary)
	}
}

// TestNamedFileFromInsideChart: run from inside the chart, a template named
// by its short path renders the chart above and keeps that spelling.
func TestNamedFileFromInsideChart(t *testing.T) {
	cfg, err := filepath.Abs(slowApps(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(renderData, "helm", "podinfo", "templates", "tests"))
	out, _, _ := checkJSON(t, "--config", cfg, "jwt.yaml")
	if len(out.Findings) == 0 || len(out.Summary.Rendered) != 1 {
		t.Fatalf("findings %+v, rendered %v", out.Findings, out.Summary.Rendered)
	}
	for _, f := range out.Findings {
		if f.File != "jwt.yaml" {
			t.Errorf("finding in %s, want jwt.yaml as named", f.File)
		}
	}
}

// TestChartConfigValuesStayInRepo: a values file that the configuration
// names must be inside the repository, symbolic links resolved: the
// configuration may come from the pull request being checked. --values
// names any file.
func TestChartConfigValuesStayInRepo(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	chart, _ := filepath.Abs(filepath.Join(renderData, "helm", "podinfo"))
	writeFiles(t, top, map[string]string{
		"secret.yaml":    "replicaCount: 3\n",
		"repo/.git/HEAD": "ref: refs/heads/main\n",
		"repo/ok.yaml":   "replicaCount: 2\n",
	})
	if err := os.Symlink(filepath.Join(top, "secret.yaml"), filepath.Join(repo, "link.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	configure := func(values string) {
		cfg := "charts:\n  " + chart + ":\n    values: [" + strconv.Quote(values) + "]\n"
		if err := os.WriteFile(filepath.Join(repo, ".podlint.yaml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		values  string
		refused bool
	}{
		{"ok.yaml", false},
		{"../secret.yaml", true},
		{"link.yaml", true},
		{filepath.Join(top, "secret.yaml"), true},
		// Issue 21: a path that resolves to no file was let through
		// (fail open), and rendering then read standard input.
		{"/dev/stdin", true},
		{"/proc/self/environ", true},
	} {
		configure(tc.values)
		code, stdout, stderr := run(t, repo, nil, "check", "--format", "json", chart)
		if refused := code == ExitError && strings.Contains(stderr, "outside the repository"); refused != tc.refused {
			t.Errorf("values %s: exit %d, stderr %q; want refused=%v", tc.values, code, stderr, tc.refused)
		}
		if strings.Contains(stdout+stderr, filepath.Join(top, "secret.yaml")) && !strings.Contains(tc.values, top) {
			t.Errorf("values %s: the refusal names the link's target: %s", tc.values, stderr)
		}
	}
	// A file named on the command line is the user's choice.
	configure("ok.yaml")
	if code, _, stderr := run(t, repo, nil, "check", "--format", "json", "--values", filepath.Join(top, "secret.yaml"), chart); code == ExitError {
		t.Errorf("--values outside the repository: exit %d; stderr: %s", code, stderr)
	}
}

// TestRenderLimitFlags: the --render-* flags and their configuration keys
// reach the render process, a hit limit is a finding naming its flag, and
// a value that is not a duration or size is a usage error.
func TestRenderLimitFlags(t *testing.T) {
	chart := filepath.Join(renderData, "helm", "podinfo")
	out, code, _ := checkJSON(t, "--render-max-output", "1KiB", chart)
	if code != 1 || len(out.Findings) != 1 || out.Findings[0].ID != "PL012" ||
		!strings.Contains(out.Findings[0].Message, "produced more than 1 KiB of output") || !strings.Contains(out.Findings[0].Detail, "--render-max-output") {
		t.Errorf("--render-max-output 1KiB: exit %d, %+v", code, out.Findings)
	}
	cfg := filepath.Join(t.TempDir(), "podlint.yaml")
	if err := os.WriteFile(cfg, []byte("render-max-output: 2KiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code, _ = checkJSON(t, "--config", cfg, chart)
	if code != 1 || len(out.Findings) != 1 || !strings.Contains(out.Findings[0].Message, "more than 2 KiB") {
		t.Errorf("render-max-output: 2KiB in the config: exit %d, %+v", code, out.Findings)
	}
	out, code, _ = checkJSON(t, "--config", cfg, "--render-max-output", "64MiB", chart)
	if code != 0 || len(out.Findings) != 0 {
		t.Errorf("the flag should win over the config: exit %d, %+v", code, out.Findings)
	}
	for _, args := range [][]string{{"--render-cpu", "5"}, {"--render-timeout", "-1s"}, {"--render-memory", "0"}, {"--render-memory", "1TB"}, {"--render-max-output", "many"}} {
		var stdout, stderr bytes.Buffer
		code := Run(append([]string{"podlint", "check", "--no-config"}, append(args, chart)...), nil, &stdout, &stderr)
		if code != ExitError || !strings.Contains(stderr.String(), args[0]) {
			t.Errorf("%v: exit %d, want %d naming the flag: %s", args, code, ExitError, stderr.String())
		}
	}
}

// TestRenderBudgetFlag: --render-budget and its configuration key reach
// the run (0 renders nothing: a finding per root, and the summary counts
// and lists them), the configuration may lower it but not raise it, and a
// negative or malformed value is a usage error.
func TestRenderBudgetFlag(t *testing.T) {
	tiny := filepath.Join(hostileDir, "render", "many-tiny")
	code, stdout, stderr := run(t, "", nil, "check", "--no-config", "--color", "never", "--render-budget", "0", tiny)
	if code != ExitFindings || strings.Count(stdout, "not rendered: the run's render budget of 0s of CPU time was spent") != 3 ||
		!strings.Contains(stdout, "Not rendered, the render budget being spent:\n  "+filepath.Join(tiny, "chart-1")+" (helm chart)\n") ||
		!strings.Contains(stdout, "; 3 charts and kustomizations not rendered, the render budget being spent\n") {
		t.Errorf("--render-budget 0: exit %d, want %d, three findings and the roots counted in the summary line and listed above it:\n%s%s", code, ExitFindings, stdout, stderr)
	}
	out, code, _ := checkJSON(t, tiny)
	if code != ExitOK || len(out.Findings) != 0 {
		t.Errorf("the default budget: exit %d, %+v", code, out.Findings)
	}
	cfg := filepath.Join(t.TempDir(), "podlint.yaml")
	for _, tc := range []struct {
		config, warning string
		rendered        bool
	}{
		{"render-budget: 0s\n", "", false},
		{"render-budget: 100h\n", `render-budget in ` + cfg + `:1: "100h" is above the default 5m0s`, true},
	} {
		if err := os.WriteFile(cfg, []byte(tc.config), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, "", nil, "check", "--config", cfg, "-f", "json", tiny)
		if rendered := !strings.Contains(stdout, "notRendered"); rendered != tc.rendered || !strings.Contains(stderr, tc.warning) {
			t.Errorf("%s: exit %d, rendered %v (want %v), stderr %q (want %q)", tc.config, code, rendered, tc.rendered, stderr, tc.warning)
		}
	}
	for _, v := range []string{"-1s", "lots"} {
		if code, _, stderr := run(t, "", nil, "check", "--no-config", "--render-budget", v, tiny); code != ExitError || !strings.Contains(stderr, "--render-budget") {
			t.Errorf("--render-budget %s: exit %d, want %d naming the flag: %s", v, code, ExitError, stderr)
		}
	}
}
