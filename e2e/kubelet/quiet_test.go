package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var updateQuiet = flag.Bool("update", false, "rewrite the scenario manifests of testdata/quiet")

// quietUID names the Pods of testdata/quiet: any fixed uid does, podlint
// does not read it.
const quietUID = "00000000-0000-4000-8000-000000000038"

// quietRow is one observation of the quiet-machine run of 7 December 2026
// (docs/validation.md, "Results", runs 1-3), with the verdict that run's
// table gave it against the predictions of the time.
type quietRow struct {
	Scenario string  `json:"scenario"`
	Run      int     `json:"run"`
	Field    string  `json:"field"`
	Observed float64 `json:"observed"`
	Before   string  `json:"before"`
}

// TestQuietRun evaluates the observations of the rows that run left
// outside (the sidecar stop chain, SIGKILL after the grace period, the
// Failed phase after an init failure) and the other rows of the same
// scenarios, with the scenarios' own checks and tolerances:
//
//   - against the predictions podlint made then (NAME.before.json,
//     `podlint timeline -f json` of commit ac4b56d), exactly the rows the
//     table marked fail are outside, 13 of 30;
//   - against podlint's predictions now (NAME.json, which
//     internal/cli's TestKubeletScenarioPredictions keeps equal to what
//     podlint computes), every row is inside;
//   - a prediction moved later by its own width and 1 s, one field at a
//     time, puts that row, and only it, outside in every run.
//
// The manifests (NAME.yaml) are the scenarios' own; -update rewrites them.
func TestQuietRun(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "quiet", "observed.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []quietRow
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	byScenario := map[string][]quietRow{}
	for _, r := range rows {
		byScenario[r.Scenario] = append(byScenario[r.Scenario], r)
	}
	if len(byScenario) != 4 || len(rows) != 30 {
		t.Fatalf("%d scenarios, %d rows, want the 4 scenarios and 30 rows of the table", len(byScenario), len(rows))
	}
	outsideBefore, outsideNow := 0, 0
	for _, sc := range scenarios() {
		obs := byScenario[sc.name]
		if obs == nil {
			continue
		}
		manifest := filepath.Join("testdata", "quiet", sc.name+".yaml")
		want := sc.render(sc.name, quietUID, "/tmp/obs")
		if *updateQuiet {
			if err := os.WriteFile(manifest, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := os.ReadFile(manifest); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s is not the scenario's manifest (go test -run TestQuietRun -update rewrites it): %v", manifest, err)
		}
		for _, when := range []string{"before", "now"} {
			file := sc.name + ".json"
			if when == "before" {
				file = sc.name + ".before.json"
			}
			pred := readPrediction(t, filepath.Join("testdata", "quiet", file))
			res := evaluate(quietPods(t, sc, obs, pred))
			if len(res) != len(obs) {
				t.Fatalf("%s: %d results for %d observations: every check of the scenario needs its rows", sc.name, len(res), len(obs))
			}
			for _, r := range res {
				wantVerdict := "pass"
				if when == "before" {
					wantVerdict = rowOf(t, obs, r.run, r.field).Before
				}
				if r.verdict != wantVerdict {
					t.Errorf("%s run %d, %s against the predictions %s: %s (observed %v, predicted %v, ±%v), want %s", sc.name, r.run, r.field, when, r.verdict, r.obs, r.pred, r.tol, wantVerdict)
				}
				if r.verdict == "fail" && when == "before" {
					outsideBefore++
				}
				if r.verdict != "pass" && when == "now" {
					outsideNow++
				}
			}
		}
		// One field at a time predicted too late, by its interval's width
		// and 1 s: that row is outside in every run, the others stay
		// inside.
		for _, ck := range sc.checks {
			pred := readPrediction(t, filepath.Join("testdata", "quiet", sc.name+".json"))
			v, err := pred.get(ck.field)
			if err != nil {
				t.Fatal(err)
			}
			iv, err := pred.iv(ck.field)
			if err != nil {
				t.Fatal(err)
			}
			setField(t, pred, ck.field, shifted(v, iv.hi-iv.lo+1))
			for _, r := range evaluate(quietPods(t, sc, obs, pred)) {
				want := "pass"
				if r.field == ck.field {
					want = "fail"
				}
				if r.verdict != want {
					t.Errorf("%s run %d, %s predicted too late: %s is %s (observed %v, predicted %v), want %s", sc.name, r.run, ck.field, r.field, r.verdict, r.obs, r.pred, want)
				}
			}
		}
	}
	if outsideBefore != 13 || outsideNow != 0 {
		t.Errorf("%d rows outside before (want the table's 13), %d now (want 0)", outsideBefore, outsideNow)
	}
}

// quietPods are the three runs of scenario sc with its checks observing
// the recorded values; obs is in the order of runs, then checks.
func quietPods(t *testing.T, sc *scenario, obs []quietRow, pred *prediction) []*pod {
	t.Helper()
	var pods []*pod
	for run := 1; run <= 3; run++ {
		s := *sc
		s.checks = nil
		for _, ck := range sc.checks {
			v := rowOf(t, obs, run, ck.field).Observed
			ck.observe = func(*pod) (float64, error) { return v, nil }
			s.checks = append(s.checks, ck)
		}
		pods = append(pods, &pod{sc: &s, run: run, pred: pred})
	}
	return pods
}

// rowOf is the observation of field in run.
func rowOf(t *testing.T, obs []quietRow, run int, field string) quietRow {
	t.Helper()
	for _, r := range obs {
		if r.Run == run && r.Field == field {
			return r
		}
	}
	t.Fatalf("%s run %d: no observation of %s", obs[0].Scenario, run, field)
	return quietRow{}
}

func readPrediction(t *testing.T, path string) *prediction {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(fmt.Errorf("%s: %v", path, err))
	}
	return &prediction{obj: obj}
}
