package analyzer

import (
	"testing"

	"github.com/podlint/podlint/finding"
)

// TestMergeOverlaysTakesOffNamePrefixes: two overlays' findings on one
// line of a base, whose messages name the objects with the overlay's
// prefix or suffix, are one finding naming both roots, while a difference
// outside the names (a value a patch changed) or a different object keeps
// them apart.
func TestMergeOverlaysTakesOffNamePrefixes(t *testing.T) {
	at := func(root, name, detail, related string) finding.Finding {
		return finding.Finding{RuleID: "PL705", Severity: finding.Warning, Object: &finding.ObjectRef{Kind: "Deployment", Name: name},
			Location: finding.Location{File: "base/deployment.yaml", Line: 18, Column: 11}, Container: "web",
			Message: `container "web" gets Service traffic but has no readinessProbe`, Detail: detail,
			Related:  []finding.Location{{File: "base/service.yaml", Line: 10, Column: 3, Message: related}},
			Rendered: &finding.RenderOrigin{Root: root}}
	}
	for _, c := range []struct {
		name   string
		fs     []finding.Finding
		merged bool
	}{
		{"prefix", []finding.Finding{
			at("dev", "dev-web", `Service "dev-web-svc" sends traffic to "web".`, `Service "dev-web-svc" selects these Pods`),
			at("production", "production-web", `Service "production-web-svc" sends traffic to "web".`, `Service "production-web-svc" selects these Pods`)}, true},
		{"suffix", []finding.Finding{
			at("a", "web-a", `Service "web-svc-a" sends traffic to "web".`, `Service "web-svc-a" selects these Pods`),
			at("b", "web-b", `Service "web-svc-b" sends traffic to "web".`, `Service "web-svc-b" selects these Pods`)}, true},
		{"value outside the names", []finding.Finding{
			at("2", "web-2", `Service "web-svc-2" sends traffic to 2 replicas.`, `Service "web-svc-2" selects these Pods`),
			at("3", "web-3", `Service "web-svc-3" sends traffic to 3 replicas.`, `Service "web-svc-3" selects these Pods`)}, false},
		{"another Service", []finding.Finding{
			at("dev", "dev-web", `Service "dev-web-svc" sends traffic to "web".`, `Service "dev-web-svc" selects these Pods`),
			at("prod", "prod-web", `Service "prod-api-svc" sends traffic to "web".`, `Service "prod-api-svc" selects these Pods`)}, false},
	} {
		got := mergeOverlays(c.fs)
		switch {
		case c.merged && (len(got) != 1 || len(got[0].Rendered.Roots) != 2):
			t.Errorf("%s: %d findings, want one naming both roots", c.name, len(got))
		case !c.merged && len(got) != 2:
			t.Errorf("%s: %d findings, want both", c.name, len(got))
		}
	}
}
