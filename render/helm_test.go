package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
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
	if p.File != filepath.Join(dir, "templates/needs.yaml") || p.Line != 6 || p.Column < 10 || !strings.Contains(p.Message, "token is required") {
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
	cfg := &analyzer.Config{Severity: map[*rules.Rule]finding.Severity{rules.LimitExceeded: finding.Error, rules.LivenessWithRestartNever: finding.Warning},
		Version: timeline.Latest, Params: timeline.DefaultParams(), Limits: manifest.DefaultLimits}
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
