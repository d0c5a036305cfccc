package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// TestSubchartsAndExecutionErrors: subcharts under charts/ are rendered
// with the parent's values for them; a template failing at execution is a
// problem at the line and column Helm reports, and the others still render.
func TestSubchartsAndExecutionErrors(t *testing.T) {
	dir := filepath.Join("testdata", "helm", "subchart")
	r := RenderChart(dir, HelmOptions{KubeVersion: "1.30"})
	if len(r.Problems) != 1 {
		t.Fatalf("problems %+v, want the required value", r.Problems)
	}
	p := r.Problems[0]
	if p.File != filepath.Join(dir, "templates/needs.yaml") || p.Line != 6 || p.Column < 10 || !strings.Contains(p.Message+" "+p.Detail, "token is required") {
		t.Errorf("problem %+v, want templates/needs.yaml:6 token is required", p)
	}
	sources := map[string]string{}
	for _, d := range r.Docs {
		sources[d.Name] = d.Source
		if d.Name == "shop/charts/cache/templates/sts.yaml" && !strings.Contains(d.YAML, "replicas: 2") {
			t.Errorf("subchart rendered without the parent's values:\n%s", d.YAML)
		}
	}
	if sources["shop/charts/cache/templates/sts.yaml"] != filepath.Join(dir, "charts/cache/templates/sts.yaml") || sources["shop/templates/pod.yaml"] == "" {
		t.Errorf("rendered %v, want the pod and the subchart's StatefulSet", sources)
	}
}

// TestRenderedSizeLimit: output over --max-file-size is not linted, and
// says so at Chart.yaml.
func TestRenderedSizeLimit(t *testing.T) {
	cfg := analyzer.Default(analyzer.Only(rules.LimitExceeded, rules.LivenessWithRestartNever))
	cfg.Limits.MaxFileSize = 100
	src := manifest.Source{Path: filepath.Join("testdata", "helm", "syntax-error"), Render: manifest.RenderHelm}
	fs, _, err := (&Options{KubeVersion: "1.30"}).Lint(cfg, src)
	if err != nil || len(fs) != 1 || fs[0].RuleID != rules.LimitExceeded.ID || fs[0].File != filepath.Join(src.Path, "Chart.yaml") {
		t.Fatalf("findings %+v, err %v: want one limit-exceeded at Chart.yaml", fs, err)
	}
	cfg.Limits.MaxFileSize = manifest.DefaultLimits.MaxFileSize
	if fs, _, _ := (&Options{KubeVersion: "1.30"}).Lint(cfg, src); len(fs) == 0 {
		t.Error("no finding within the limit: the test would pass for the wrong reason")
	}
}

// TestKubeVersion: .Capabilities.KubeVersion is --kube-version, and a
// chart's kubeVersion constraint is checked against it, as helm template
// --kube-version does.
func TestKubeVersion(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"Chart.yaml":        "apiVersion: v2\nname: kv\nversion: 0.1.0\nkubeVersion: \">=1.25.0-0\"\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kv\ndata:\n  minor: {{ .Capabilities.KubeVersion.Minor | quote }}\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := RenderChart(dir, HelmOptions{KubeVersion: "1.31"})
	if len(r.Problems) != 0 || len(r.Docs) != 1 || !strings.Contains(r.Docs[0].YAML, `minor: "31"`) {
		t.Errorf("1.31: problems %+v, docs %+v", r.Problems, r.Docs)
	}
	r = RenderChart(dir, HelmOptions{KubeVersion: "1.24"})
	if len(r.Problems) != 1 || r.Problems[0].Line != 4 || !strings.Contains(r.Problems[0].Message+" "+r.Problems[0].Detail, "incompatible with Kubernetes v1.24 ") {
		t.Errorf("1.24: problems %+v", r.Problems)
	}
}

// TestChartLinkOutOfTree: Helm's loader follows symbolic links, so a chart
// from an untrusted pull request could render a file from outside it (a
// secret, /proc/self/environ) into the output. Such a chart is refused at
// the link and nothing of the target is read; a link inside the chart is
// fine.
func TestChartLinkOutOfTree(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.yaml")
	if err := os.WriteFile(secret, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: TOPSECRET}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	chart := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(chart, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Chart.yaml", "apiVersion: v2\nname: shop\nversion: 0.1.0\n")
	write("templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop}\n")
	if err := os.Symlink("cm.yaml", filepath.Join(chart, "templates", "alias.yaml")); err != nil {
		t.Fatal(err)
	}
	if r := RenderChart(chart, HelmOptions{KubeVersion: "1.30"}); len(r.Problems) != 0 || len(r.Docs) != 2 {
		t.Fatalf("a link inside the chart: problems %+v, %d documents; want none and 2", r.Problems, len(r.Docs))
	}
	link := filepath.Join(chart, "templates", "leak.yaml")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	r := RenderChart(chart, HelmOptions{KubeVersion: "1.30"})
	if len(r.Problems) != 1 || r.Problems[0].File != link || len(r.Docs) != 0 {
		t.Fatalf("problems %+v, %d documents; want one problem at %s and nothing rendered", r.Problems, len(r.Docs), link)
	}
	for _, p := range r.Problems {
		if strings.Contains(p.Message+p.Detail, "TOPSECRET") {
			t.Errorf("the target's content leaked: %+v", p)
		}
	}
}
