package render

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// TestBaseReportedOncePerRun: a base used by overlays dev and prod gives
// each of its findings once, naming both overlays, unless an overlay's
// patch changes it: then each overlay's finding stays, naming it. The
// overlays' name prefixes do not make two problems of one: PL705 names the
// Service, dev-web in one overlay and prod-web in the other.
func TestBaseReportedOncePerRun(t *testing.T) {
	dir := filepath.Join("testdata", "kustomize", "overlays")
	srcs, _, errs := manifest.Discover([]string{dir}, nil, true)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	srcs = Plan(srcs)
	cfg := analyzer.Default(analyzer.Only(rules.BestEffortQoS, rules.ProbeTimeoutExceedsPeriod, rules.ServiceWithoutReadiness))
	cfg.Open = (&Options{}).Open
	res, errs := analyzer.Run(cfg, analyzer.Options{}, srcs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	base := filepath.Join(dir, "base", "deployment.yaml")
	dev, prod := filepath.Join(dir, "dev"), filepath.Join(dir, "prod")
	var got []string
	for _, f := range res.List() {
		if f.File != base || f.Rendered == nil {
			t.Errorf("%s:%d: %s %s: want findings in the base only", f.File, f.Line, f.RuleID, f.Message)
			continue
		}
		got = append(got, f.RuleID+" "+f.Message)
		switch {
		case (f.RuleID == rules.BestEffortQoS.ID || f.RuleID == rules.ServiceWithoutReadiness.ID) && !slices.Equal(f.Rendered.Roots, []string{dev, prod}):
			t.Errorf("%s: roots %q, want both overlays", f.RuleID, f.Rendered.Roots)
		case f.RuleID == rules.ProbeTimeoutExceedsPeriod.ID && len(f.Rendered.Roots) != 1:
			t.Errorf("%s %s: roots %q, want its own overlay", f.RuleID, f.Message, f.Rendered.Roots)
		}
	}
	if len(got) != 4 {
		t.Errorf("findings %q: want PL601 and PL705 once and PL106 once per overlay (their periods differ)", got)
	}
}
