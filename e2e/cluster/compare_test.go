package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// jobRecording is a Job whose three Pods fail one after another, each 1 s
// after its creation, and which is Failed at 33.5 s: 30.5 s of
// controller time once the runs are taken out.
func jobRecording() *recording {
	exit := int32(1)
	r := &recording{Scenario: "job-backoff", Run: 1, Start: time.Unix(1000, 0)}
	for i, created := range []float64{0.1, 11.2, 32.3} {
		uid := string(rune('a' + i))
		r.Obs = append(r.Obs,
			obs{T: created, Kind: "Pod", Name: "job-" + uid, UID: uid, Op: "ADDED", Phase: "Pending"},
			obs{T: created + 1, Kind: "Pod", Name: "job-" + uid, UID: uid, Op: "MODIFIED", Phase: "Failed", Exit: &exit})
	}
	r.Obs = append(r.Obs, obs{T: 33.5, Kind: "Job", Name: "job", Op: "MODIFIED", Conds: []string{"Failed=True:BackoffLimitExceeded"}})
	return r
}

func jobPrediction(gives string) map[string]*prediction {
	p, err := pickObject([]byte(`{"objects": [{"kind": "Job", "name": "job", "controller": {"jobGivesUp": `+gives+`}}]}`), "Job/job")
	if err != nil {
		panic(err)
	}
	return map[string]*prediction{"job-backoff": p}
}

func jobScenario() []*scenario {
	return []*scenario{{name: "job-backoff", checks: []check{
		{quantity: "Job Failed, less the runs", field: "controller.jobGivesUp", observe: jobFailedLessRuns},
	}}}
}

// TestWrongPredictionIsOutside: the same recorded observations against
// the right interval are inside, against a deliberately wrong one outside,
// and the table and the harness's failure count say so: a prediction that
// disagrees with the cluster cannot pass.
func TestWrongPredictionIsOutside(t *testing.T) {
	recs := []*recording{jobRecording()}
	right := evaluate(jobScenario(), jobPrediction("[30, 33]"), recs)
	if len(right) != 1 || right[0].verdict() != inside {
		t.Fatalf("[30, 33] against 30.5: %+v, want inside", right)
	}
	if got := right[0].obs[0]; math.Abs(got-30.5) > 1e-9 {
		t.Errorf("observed %v, want 30.5 (33.5 less three 1 s runs)", got)
	}
	wrong := evaluate(jobScenario(), jobPrediction("[40, 43]"), recs)
	if wrong[0].verdict() != outside {
		t.Fatalf("[40, 43] against 30.5: %s, want outside", wrong[0].verdict())
	}
	table := renderTable(config{kubeVersion: "v1.37.2"}, wrong, jobScenario(), []time.Duration{time.Minute})
	if !strings.Contains(table, "| [40, 43] | 3 | 30.5 | outside |") || !strings.Contains(table, "**0 inside the predicted interval**, 1 outside") {
		t.Errorf("the table does not show the wrong prediction outside:\n%s", table)
	}
	// Just outside the tolerance on either side.
	for _, iv := range []string{"[30.76, 33]", "[20, 30.24]"} {
		if v := evaluate(jobScenario(), jobPrediction(iv), recs)[0].verdict(); v != outside {
			t.Errorf("%s against 30.5 ± 0.25: %s, want outside", iv, v)
		}
	}
}

// TestUnboundedIsNotChecked: [lo, ∞) holds any value above lo, so it
// counts as not checked, never as inside, and the table prints its width
// as ∞.
func TestUnboundedIsNotChecked(t *testing.T) {
	rows := evaluate(jobScenario(), jobPrediction("[0, null]"), []*recording{jobRecording()})
	if v := rows[0].verdict(); v != notChecked {
		t.Fatalf("[0, ∞) against 30.5: %s, want %s", v, notChecked)
	}
	table := renderTable(config{}, rows, jobScenario(), nil)
	if !strings.Contains(table, "| [0, ∞) | ∞ | 30.5 | not checked (unbounded) |") || !strings.Contains(table, "**0 inside") {
		t.Errorf("table:\n%s", table)
	}
}

// TestNotObservedIsNotInside: a run where the Job never failed, or a
// prediction podlint's JSON lacks, is reported, not skipped.
func TestNotObservedIsNotInside(t *testing.T) {
	r := jobRecording()
	r.Obs = r.Obs[:len(r.Obs)-1]
	rows := evaluate(jobScenario(), jobPrediction("[30, 33]"), []*recording{jobRecording(), r})
	if v := rows[0].verdict(); v != notSeen {
		t.Errorf("one run without the Failed condition: %s, want %s", v, notSeen)
	}
	if !strings.Contains(rows[0].observed(), "30.5, — (never saw the Job Failed)") {
		t.Errorf("observed: %s", rows[0].observed())
	}
	p, _ := pickObject([]byte(`{"objects": [{"kind": "Job", "name": "job"}]}`), "Job/job")
	rows = evaluate(jobScenario(), map[string]*prediction{"job-backoff": p}, []*recording{jobRecording()})
	if v := rows[0].verdict(); v != notSeen || !strings.Contains(renderTable(config{}, rows, jobScenario(), nil), "podlint's JSON has no controller") {
		t.Errorf("a prediction podlint lacks: %s", v)
	}
}

// TestOneRunOutsideMakesTheRowOutside: the verdict covers every run.
func TestOneRunOutsideMakesTheRowOutside(t *testing.T) {
	late := jobRecording()
	late.Run = 2
	late.Obs[len(late.Obs)-1].T = 40
	rows := evaluate(jobScenario(), jobPrediction("[30, 33]"), []*recording{jobRecording(), late})
	if v := rows[0].verdict(); v != outside {
		t.Errorf("runs 30.5 and 37 against [30, 33]: %s, want outside", v)
	}
	if got := rows[0].observed(); got != "30.5, 37" {
		t.Errorf("observed per run: %q", got)
	}
}

func TestWidthAndString(t *testing.T) {
	for _, c := range []struct {
		iv         interval
		str, width string
	}{
		{interval{30, 33}, "[30, 33]", "3"},
		{interval{1, 1}, "1", "0"},
		{interval{0, math.Inf(1)}, "[0, ∞)", "∞"},
		{interval{0.25, 1.5}, "[0.25, 1.5]", "1.25"},
	} {
		if c.iv.String() != c.str || c.iv.width() != c.width {
			t.Errorf("%v: %s width %s, want %s width %s", c.iv, c.iv.String(), c.iv.width(), c.str, c.width)
		}
	}
}

// TestRecordedJobBackoff reads a real recording (job-backoff, run 1 of
// scripts/e2e-cluster.sh at load 20-27 on 2 cores): the replacements were
// created 10.02 s and 20.03 s after the previous Pod's finishedAt, and the
// Job's Failed condition, less the Pods' runs (49.96 s, their sandboxes
// took 10-25 s on that machine) and the kubelet's 2.49 s report of the last
// failure, is 31.23 s. podlint's [30, 33] holds it; an interval the
// back-off does not explain is reported outside.
func TestRecordedJobBackoff(t *testing.T) {
	r, err := loadRecording("testdata/job-backoff-r1.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := jobFailedLessRuns(r)
	if err != nil || math.Abs(got-31.23) > 0.01 {
		t.Fatalf("jobFailedLessRuns = %v, %v; want 31.23", got, err)
	}
	recs := []*recording{r}
	if v := evaluate(jobScenario(), jobPrediction("[30, 33]"), recs)[0].verdict(); v != inside {
		t.Errorf("podlint's [30, 33]: %s, want inside", v)
	}
	// A model that forgot the second back-off (10 + 10 s) is caught.
	if v := evaluate(jobScenario(), jobPrediction("[20, 23]"), recs)[0].verdict(); v != outside {
		t.Errorf("[20, 23]: %s, want outside", v)
	}
}

func TestBatchesKeepEveryScenarioOnceInOrder(t *testing.T) {
	var scs []*scenario
	for i := 0; i < 7; i++ {
		scs = append(scs, &scenario{name: fmt.Sprint(i)})
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "[0123456]"}, {3, "[012][345][6]"}, {7, "[0123456]"}, {9, "[0123456]"}} {
		var got strings.Builder
		for _, g := range batches(scs, tc.n) {
			got.WriteString("[")
			for _, s := range g {
				got.WriteString(s.name)
			}
			got.WriteString("]")
		}
		if got.String() != tc.want {
			t.Errorf("batches(7 scenarios, %d) = %s, want %s", tc.n, got.String(), tc.want)
		}
	}
	if got := atOnce(5, 15); got != "at most 5 scenarios at once (in 3 groups one after another)" {
		t.Errorf("atOnce(5, 15) = %q", got)
	}
	if got := atOnce(0, 15); got != "all scenarios of a run at once" {
		t.Errorf("atOnce(0, 15) = %q", got)
	}
}

// The reason a row gives for being outside is printed on an outside row
// only: on an inside row it would read as an excuse for nothing.
func TestOutsideReasonOnlyOnOutsideRows(t *testing.T) {
	mk := func(obs float64) row {
		return row{scenario: "s", quantity: "q", field: "f", ifOutside: "the kubelet's term",
			pred: interval{0, 3}, tol: defaultTolerance, obs: []float64{obs}, errs: []error{nil}}
	}
	table := renderTable(config{kubeVersion: "v1.37.2"}, []row{mk(2), mk(5)}, nil, []time.Duration{time.Minute})
	var lines []string
	for _, l := range strings.Split(table, "\n") {
		if strings.HasPrefix(l, "| s |") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("want 2 rows, got %d:\n%s", len(lines), table)
	}
	if strings.Contains(lines[0], "kubelet's term") || !strings.HasSuffix(lines[0], "| inside |") {
		t.Errorf("inside row carries the outside reason: %s", lines[0])
	}
	if !strings.HasSuffix(lines[1], "| outside; the kubelet's term |") {
		t.Errorf("outside row lacks its reason: %s", lines[1])
	}
}
