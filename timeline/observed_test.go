package timeline

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/workload"
)

// An observation lengthens what an annotation or the configuration says,
// never shortens it, so a profile can only add findings.
func TestObservedOnlyLengthensExpectations(t *testing.T) {
	obs := &Observed{Source: "snapshot of 2026-12-01", Workloads: map[string]map[string]ObservedContainer{
		"shop/Deployment/web": {"app": {Starts: 37, StartupMax: 52, StartupP95: 48, Shutdowns: 2, ShutdownMax: 31, SIGKILLs: 1, CompletedShutdownMax: 12}},
		"shop/Deployment/cut": {"app": {Shutdowns: 2, ShutdownMax: 31, SIGKILLs: 2}},
		"a/Deployment/twice":  {"app": {Starts: 1, StartupMax: 9}},
		"b/Deployment/twice":  {"app": {Starts: 1, StartupMax: 9}},
	}}
	web := func(ns, annotation string) *workload.Workload {
		w := &workload.Workload{Kind: "Deployment", Name: "web", Namespace: ns, Annotations: map[string]string{}}
		if annotation != "" {
			w.Annotations[AnnotationExpectedStartup] = annotation
		}
		return w
	}
	p := DefaultParams()
	p.Observed = obs
	for _, tc := range []struct {
		name string
		w    *workload.Workload
		p    func(Params) Params
		want float64
		src  ExpectSource
	}{
		{"observed alone", web("shop", ""), nil, 52, FromObserved},
		{"namespace unstated, one match", web("", ""), nil, 52, FromObserved},
		{"annotation shorter", web("shop", "30s"), nil, 52, FromObserved},
		{"annotation longer", web("shop", "90s"), nil, 90, FromAnnotation},
		{"config longer", web("shop", ""), func(p Params) Params {
			p.ExpectedStartup = []Expectation{{Pattern: "*", Seconds: 60, Text: "60s"}}
			return p
		}, 60, FromConfig},
		{"other namespace", web("prod", ""), nil, 0, ""},
		{"ambiguous without namespace", &workload.Workload{Kind: "Deployment", Name: "twice"}, nil, 0, ""},
	} {
		pp := p
		if tc.p != nil {
			pp = tc.p(p)
		}
		e, err := ExpectedStartup(tc.w, pp, "app")
		if err != nil || e.Seconds != tc.want || e.Source != tc.src {
			t.Errorf("%s: got %v %s (%v); want %v %s", tc.name, e.Seconds, e.Source, err, tc.want, tc.src)
		}
	}
	e, _ := ExpectedStartup(web("shop", ""), p, "app")
	if want := "observed start-up up to 52s, p95 48s, 37 starts, snapshot of 2026-12-01"; e.Key != want || e.Text != "52s" {
		t.Errorf("note %q, text %q; want %q, 52s", e.Key, e.Text, want)
	}
	s, _ := ExpectedShutdown(web("shop", ""), p, "app")
	// The SIGKILLed shutdown (31 s) was cut off: only the one that ended
	// by itself tells what the container needs.
	if s.Seconds != 12 || !strings.Contains(s.Key, "up to 12s, 2 deletions, 1 ended by SIGKILL") {
		t.Errorf("shutdown %v %q", s.Seconds, s.Key)
	}
	cut := &workload.Workload{Kind: "Deployment", Name: "cut", Namespace: "shop"}
	if s, _ := ExpectedShutdown(cut, p, "app"); s.OK {
		t.Errorf("every shutdown SIGKILLed: an expected shutdown of %v (%q); want none", s.Seconds, s.Key)
	}
	if e, _ := ExpectedStartup(web("shop", ""), DefaultParams(), "app"); e.OK {
		t.Errorf("without a profile: %+v", e)
	}
}
