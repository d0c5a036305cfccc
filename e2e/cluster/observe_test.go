package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Pods that ran together count once: the runs are the time at least one
// Pod ran, the gaps between them the controller's. A Pod's end is its
// containers' finishedAt when the kubelet wrote it, else its failure.
func TestSumRunsIsTheTimeAPodRan(t *testing.T) {
	ps := []*podLife{
		{name: "a", created: 1, ended: 2, hasEnded: true},
		{name: "b", created: 1.2, ended: 3.2, hasEnded: true},
		{name: "c", created: 12, ended: 13.5, hasEnded: true},
	}
	got, err := sumRuns(ps)
	if err != nil || math.Abs(got-3.7) > 1e-9 {
		t.Errorf("sumRuns = %v, %v; want 3.7 (2.2 for a and b together, 1.5 for c)", got, err)
	}
	ps[2].finished, ps[2].hasFinished = 13, true
	if got, _ := sumRuns(ps); math.Abs(got-3.2) > 1e-9 {
		t.Errorf("with c's finishedAt at 13: %v, want 3.2", got)
	}
	ps = append(ps, &podLife{name: "d", created: 20})
	if _, err := sumRuns(ps); err == nil || !strings.Contains(err.Error(), "the Pod d never failed") {
		t.Errorf("a Pod that never ended: %v", err)
	}
}

func TestStartsByWave(t *testing.T) {
	ps := []*podLife{
		{name: "b", created: 5.1, running: 6.4, hasRunning: true},
		{name: "a", created: 5, running: 5.8, hasRunning: true},
		{name: "c", created: 9, running: 9.5, hasRunning: true},
	}
	got, err := startsByWave(ps)
	if err != nil || math.Abs(got-1.9) > 1e-9 {
		t.Errorf("startsByWave = %v, %v; want 1.9 (1.4 while a or b started, 0.5 for c)", got, err)
	}
}

// A rollout: the update at 10 s, two waves of new Pods, the Deployment
// settled at 20 s.
func TestRolloutLessStarts(t *testing.T) {
	r := &recording{Obs: []obs{
		{T: 1, Kind: "Deployment", Replicas: 2, Updated: 2, ReadyN: 2, Available: 2},
		{T: 10, Kind: "Mark", Name: "update", Message: "Deployment 2 2"},
		{T: 10.01, Kind: "Deployment", Reason: "stale", Replicas: 2, Updated: 2, ReadyN: 2, Available: 2},
		{T: 10.1, Kind: "Pod", Name: "n1", UID: "n1", Op: "ADDED"},
		{T: 11.1, Kind: "Pod", Name: "n1", UID: "n1", Running: true},
		{T: 14, Kind: "Pod", Name: "n2", UID: "n2", Op: "ADDED"},
		{T: 14.5, Kind: "Pod", Name: "n2", UID: "n2", Running: true},
		{T: 15, Kind: "Deployment", Replicas: 3, Updated: 1, ReadyN: 2, Available: 2},
		{T: 20, Kind: "Deployment", Replicas: 2, Updated: 2, ReadyN: 2, Available: 2},
	}}
	got, err := rolloutLessStarts(r)
	if err != nil || math.Abs(got-8.5) > 1e-9 {
		t.Errorf("rolloutLessStarts = %v, %v; want 8.5 (10 s less 1 s and 0.5 s of Pod starts)", got, err)
	}
	// The status the controller had not yet synced (stale) does not
	// count as the rollout's end.
	if done, _ := rolledOut(r); done != 20 {
		t.Errorf("rolledOut = %v, want 20", done)
	}
}

func TestLateStartAndRefusedStarts(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)
	r := &recording{Start: start, Obs: []obs{
		{T: 30.05, Kind: "Job", Name: "cron-1", Sched: "2026-01-01T10:01:00Z"},
		{T: 30.1, Kind: "Pod", Name: "p1", UID: "p1", Owner: "Job/cron-1"},
		{T: 31.3, Kind: "Pod", Name: "p1", UID: "p1", Owner: "Job/cron-1", Running: true},
		{T: 90.02, Kind: "Event", Name: "CronJob/cron", Reason: "JobAlreadyActive"},
		{T: 106.5, Kind: "Job", Name: "cron-2", Sched: "2026-01-01T10:02:00Z"},
	}}
	got, err := lateStartLessStart(r)
	if err != nil || math.Abs(got-15.3) > 1e-9 {
		t.Errorf("lateStartLessStart = %v, %v; want 15.3 (106.5 − 90 − 1.2)", got, err)
	}
	if n, err := alreadyActive(r); err != nil || n != 1 {
		t.Errorf("alreadyActive = %v, %v; want 1", n, err)
	}
	// The first run's end reported 1.4 s after its finishedAt (10:02:15,
	// 105 s in): that too is the kubelet's, and comes off.
	r.Obs = append(r.Obs[:3:3],
		obs{T: 105.6, Kind: "Pod", Name: "p1", UID: "p1", Owner: "Job/cron-1", Stopped: true, Finished: "2026-01-01T10:02:15Z"},
		obs{T: 106.4, Kind: "Pod", Name: "p1", UID: "p1", Owner: "Job/cron-1", Phase: "Succeeded", Finished: "2026-01-01T10:02:15Z"},
		r.Obs[3], r.Obs[4])
	if got, err := lateStartLessStart(r); err != nil || math.Abs(got-13.9) > 1e-9 {
		t.Errorf("with the end reported: %v, %v; want 13.9 (15.3 − 1.4)", got, err)
	}
}

// The progress deadline counts from the last progress: the update at
// 10 s, the new ReplicaSet created at 10.1 s and its Pod counted at
// 10.4 s (ReplicaSetUpdated), the deadline exceeded at 21.2 s: 10.8 s
// after the last progress.
func TestDeadlineLessProgress(t *testing.T) {
	r := &recording{Obs: []obs{
		{T: 2, Kind: "Deployment", Conds: []string{"Progressing=True:ReplicaSetUpdated"}},
		{T: 5, Kind: "Deployment", Conds: []string{"Progressing=True:NewReplicaSetAvailable"}},
		{T: 10, Kind: "Mark", Name: "update", Message: "Deployment 1 1"},
		{T: 10.05, Kind: "Deployment", Reason: "stale", Conds: []string{"Progressing=True:NewReplicaSetAvailable"}},
		{T: 10.1, Kind: "Deployment", Conds: []string{"Progressing=True:NewReplicaSetCreated"}},
		{T: 10.4, Kind: "Deployment", Conds: []string{"Progressing=True:ReplicaSetUpdated"}},
		{T: 21.2, Kind: "Deployment", Conds: []string{"Progressing=False:ProgressDeadlineExceeded"}},
	}}
	got, err := deadlineLessProgress(r)
	if err != nil || math.Abs(got-10.8) > 1e-9 {
		t.Errorf("deadlineLessProgress = %v, %v; want 10.8 (11.2 after the update, less 0.4 to the last progress)", got, err)
	}
	r.Obs = append(r.Obs[:4:4], r.Obs[6])
	if _, err := deadlineLessProgress(r); err == nil {
		t.Error("no progress after the update: want an error, not a number")
	}
}

// Under OnFailure each restart's creation by the runtime comes off: the
// kubelet's Pulled event to the status with the new restart count
// running (2.5 s and 3 s here).
func TestRestartCreations(t *testing.T) {
	r := &recording{Obs: []obs{
		{T: 0.1, Kind: "Pod", Name: "p", UID: "p", Op: "ADDED"},
		{T: 3, Kind: "Event", Name: "Pod/p", Reason: "Pulled"},
		{T: 4, Kind: "Pod", Name: "p", UID: "p", Running: true},
		{T: 5, Kind: "Event", Name: "Pod/p", Reason: "Pulled"},
		{T: 7.5, Kind: "Pod", Name: "p", UID: "p", Running: true, Restarts: 1},
		{T: 8, Kind: "Pod", Name: "p", UID: "p", Restarts: 1, Stopped: true},
		{T: 18, Kind: "Event", Name: "Pod/p", Reason: "Pulled"},
		{T: 21, Kind: "Pod", Name: "p", UID: "p", Running: true, Restarts: 2},
		{T: 21.5, Kind: "Pod", Name: "p", UID: "p", Running: true, Restarts: 2, Deleting: true},
		{T: 24, Kind: "Job", Name: "job", Conds: []string{"Failed=True:BackoffLimitExceeded"}},
	}}
	got, err := jobFailedAfterFirstRun(r)
	if err != nil || math.Abs(got-14.5) > 1e-9 {
		t.Errorf("jobFailedAfterFirstRun = %v, %v; want 14.5 (24 − 4, less 2.5 and 3)", got, err)
	}
}

// TestRecordingRoundTrip: what the harness saves is what the table is
// computed from later.
func TestRecordingRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := jobRecording().save(path); err != nil {
		t.Fatal(err)
	}
	r, err := loadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := jobFailedLessRuns(r); err != nil || math.Abs(got-30.5) > 1e-9 {
		t.Errorf("after a round trip: %v, %v", got, err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadRecording(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a broken recording: %v", err)
	}
}

func TestWriteDoc(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v.md")
	if err := os.WriteFile(path, []byte("intro\n"+beginMark+"\nold\n"+endMark+"\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(path, "new\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if want := "intro\n" + beginMark + "\nnew\n" + endMark + "\nafter\n"; string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
	if err := os.WriteFile(path, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(path, "x"); err == nil {
		t.Error("a file without the markers was accepted")
	}
}

// Every scenario's manifest decodes into objects the harness can create.
func TestScenariosDecode(t *testing.T) {
	names := map[string]bool{}
	for _, sc := range scenarios() {
		if names[sc.name] {
			t.Errorf("two scenarios named %s", sc.name)
		}
		names[sc.name] = true
		for _, m := range []string{sc.manifest, sc.after} {
			if m == "" {
				continue
			}
			objs, err := decode(strings.ReplaceAll(m, "@NS@", "ns"))
			if err != nil {
				t.Errorf("%s: %v", sc.name, err)
				continue
			}
			for _, o := range objs {
				if err := creatable(o); err != nil {
					t.Errorf("%s: %v", sc.name, err)
				}
			}
		}
		if sc.expect == "" || len(sc.checks) == 0 || sc.limit == 0 {
			t.Errorf("%s: an expectation, checks and a time limit are required", sc.name)
		}
	}
	if len(names) < 12 {
		t.Errorf("%d scenarios, the issue asks for at least 12", len(names))
	}
}

// An Indexed Job's indexes started at different times: the runs
// subtracted are those of the index that failed last, not the time any
// index ran (which covers the others' back-offs).
func TestLastIndexRuns(t *testing.T) {
	p := func(name, index string, created, finished, ended float64) *podLife {
		return &podLife{name: name, index: index, created: created, finished: finished, hasFinished: true, ended: ended, hasEnded: true}
	}
	ps := []*podLife{
		p("0a", "0", 0.4, 12.2, 16.8), p("1a", "1", 0.5, 21.2, 25.8), p("0b", "0", 22.2, 37.2, 39.7), p("1b", "1", 31.2, 43.2, 44.5),
	}
	got := lastIndex(ps)
	if len(got) != 2 || got[0].name != "1a" || got[1].name != "1b" {
		t.Fatalf("lastIndex kept %v", got)
	}
	runs, _ := sumRuns(got)
	if want := (21.2 - 0.5) + (43.2 - 31.2); math.Abs(runs-want) > 1e-9 || math.Abs(reportLag(got)-1.3) > 1e-9 {
		t.Errorf("runs %v (want %v), lag %v (want 1.3)", runs, want, reportLag(got))
	}
	plain := []*podLife{p("a", "", 0, 1, 2), p("b", "", 12, 13, 14)}
	if got := lastIndex(plain); len(got) != 2 {
		t.Errorf("a Job without indexes keeps every Pod: %v", got)
	}
}

// The eviction's request was sent at 17.5 s and answered 10 s later: the
// evicted Pod's stop counts from its delete (deleting at 27.6 s), not
// from the request.
func TestEvictedCountsFromTheDelete(t *testing.T) {
	r := &recording{Obs: []obs{
		{T: 17.5, Kind: "Mark", Name: "evict-accepted", Message: "web-a"},
		{T: 27.6, Kind: "Pod", Name: "web-a", UID: "a", Running: true, Ready: true, Deleting: true},
		{T: 31, Kind: "Pod", Name: "web-a", UID: "a", Deleting: true, Stopped: true},
	}}
	got, err := evictedStopped(r)
	if err != nil || math.Abs(got-3.4) > 1e-9 {
		t.Errorf("evictedStopped = %v, %v; want 3.4 (31 − 27.6)", got, err)
	}
}
