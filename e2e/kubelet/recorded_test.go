package main

import (
	"path/filepath"
	"testing"
)

// TestRecordedRuns evaluates Pods recorded on a real kubelet v1.37.2
// (testdata/recorded, the record.json files of a run of
// scripts/e2e-kubelet.sh) with the scenarios' checks: every check is
// inside as it was on the day, and a deliberately wrong prediction for one
// quantity (shifted 5 s later) is reported outside while the others stay
// inside.
func TestRecordedRuns(t *testing.T) {
	files, err := filepath.Glob("testdata/recorded/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("%d recorded Pods, want at least 2", len(files))
	}
	for _, f := range files {
		p, err := readRecord(f, scenarios())
		if err != nil {
			t.Fatal(err)
		}
		res := evaluate([]*pod{p})
		if len(res) != len(p.sc.checks) {
			t.Fatalf("%s: %d results for %d checks", f, len(res), len(p.sc.checks))
		}
		for _, r := range res {
			if r.verdict != "pass" {
				t.Errorf("%s: %s: %s (observed %v, predicted %v, %s)", f, r.quantity, r.verdict, r.obs, r.pred, r.why)
			}
		}
		// The first check whose prediction is podlint's own field.
		for i, ck := range p.sc.checks {
			if ck.predict != nil {
				continue
			}
			v, err := p.pred.get(ck.field)
			if err != nil {
				t.Fatal(err)
			}
			setField(t, p.pred, ck.field, shifted(v, 5))
			wrong := evaluate([]*pod{p})
			for j, r := range wrong {
				want := "pass"
				if j == i {
					want = "fail"
				}
				if r.verdict != want {
					t.Errorf("%s, %s predicted 5 s late: %s is %s (observed %v, predicted %v), want %s", f, ck.field, r.quantity, r.verdict, r.obs, r.pred, want)
				}
			}
			break
		}
	}
}

// shifted moves a JSON number or [lo, hi] interval by d.
func shifted(v any, d float64) any {
	switch x := v.(type) {
	case float64:
		return x + d
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if f, ok := e.(float64); ok {
				out[i] = f + d
			} else {
				out[i] = e
			}
		}
		return out
	}
	return v
}

// setField replaces the value at a dotted path of the prediction.
func setField(t *testing.T, p *prediction, path string, v any) {
	t.Helper()
	i := len(path) - 1
	for i >= 0 && path[i] != '.' {
		i--
	}
	parent, err := p.get(path[:i])
	if err != nil {
		t.Fatal(err)
	}
	m, ok := parent.(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object", path[:i])
	}
	m[path[i+1:]] = v
}
