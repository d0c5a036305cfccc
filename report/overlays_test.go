package report

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
)

// TestOverlayRoots: a finding in a kustomize base found through several
// overlays names them in text (by folder name, or by path when two share
// one), in JSON (rendered.roots) and in SARIF (properties.rendered.roots);
// a finding with one root lists it in roots and adds nothing to the text.
func TestOverlayRoots(t *testing.T) {
	base := func(roots ...string) *finding.Result {
		return &finding.Result{Summary: finding.Summary{Files: 1, Objects: 2, Workloads: 2}, Findings: []finding.Finding{{
			RuleID: "PL601", RuleName: "best-effort-qos", Severity: finding.Info,
			Location: finding.Location{File: "deploy/base/web.yaml", Line: 13, Column: 9},
			Message:  "Pods of this Deployment are BestEffort: no container requests cpu or memory",
			Rendered: &finding.RenderOrigin{Root: roots[0], Path: "spec.template.spec.containers[0]", Roots: roots[1:]},
		}}}
	}
	for _, tc := range []struct {
		res               *finding.Result
		text, json, sarif string
	}{
		{base("deploy/dev", "deploy/dev", "deploy/prod"), " (in overlays dev, prod) [PL601",
			`"roots": [
          "deploy/dev",
          "deploy/prod"
        ]`, `"roots":["deploy/dev","deploy/prod"]`},
		{base("a/dev", "a/dev", "b/dev"), " (in overlays a/dev, b/dev) [PL601", `"a/dev",`, `"roots":["a/dev","b/dev"]`},
		{base("deploy/prod", "deploy/prod"), " (in overlay prod) [PL601", `"deploy/prod"`, `"roots":["deploy/prod"]`},
		{base("deploy/prod"), "memory [PL601", `"roots": [
          "deploy/prod"
        ]`, `"roots":["deploy/prod"]`},
	} {
		opts := testOptions(t)
		text := string(render(t, "text", tc.res, opts))
		if !strings.Contains(text, tc.text) {
			t.Errorf("text lacks %q:\n%s", tc.text, text)
		}
		if js := string(render(t, "json", tc.res, opts)); !strings.Contains(js, tc.json) {
			t.Errorf("json lacks %q:\n%s", tc.json, js)
		}
		if sarif := strings.Join(strings.Fields(string(render(t, "sarif", tc.res, opts))), ""); !strings.Contains(sarif, tc.sarif) {
			t.Errorf("sarif lacks %q", tc.sarif)
		}
	}
}
