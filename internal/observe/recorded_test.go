package observe

import (
	"bytes"
	"os"
	"regexp"
	"testing"
	"time"
)

// The files in testdata/recorded come from a real cluster: the one-node
// v1.37.2 control plane of scripts/e2e-cluster.sh, during the end-to-end
// test of podlint observe (scripts/e2e-observe.sh, e2e/cluster's
// observelive.go, whose manifest says what each workload does). Both were
// read as the user bound only to the documented ClusterRole and scrubbed
// with this package's Scrub:
//
//	lists.json       kubectl get pods,events,replicasets,jobs -n observe-e2e -o json, at the end
//	watch-pods.json  every version of every Pod a watch saw, in order, as a List
//
//	go run -tags observescrub ./internal/observe/cmd/scrub < FILE > testdata/recorded/FILE
func recorded(t *testing.T, files ...string) *Profile {
	t.Helper()
	b := NewBuilder()
	for _, f := range files {
		data, err := os.ReadFile("testdata/recorded/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadList(bytes.NewReader(data), b); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	mode := ModeSnapshot
	if len(files) > 1 {
		mode = ModeWatch
	}
	return b.Profile("", mode, time.Time{})
}

// Each Pod of slow-start runs 30 s before it is Ready the first time, and
// its liveness probe kills it at about 10 s; the second run is Ready
// after 3 s. The kubelet's Killing events and each Pod's lastState tell
// both: a censored start (not Ready after the killed run) and an
// uncensored one.
func TestRecordedDeploymentCrossingTheLivenessWindow(t *testing.T) {
	for _, files := range [][]string{{"lists.json"}, {"watch-pods.json", "lists.json"}} {
		w, c := find(t, recorded(t, files...), "observe-e2e/Deployment/slow-start", "app")
		if w.Pods != 2 {
			t.Errorf("%v: %d Pods, want 2", files, w.Pods)
		}
		if c.Censored == nil || c.Censored.Kills != 2 || c.Censored.NotReadyAfter == nil || c.Censored.NotReadyAfter.Count != 2 {
			t.Fatalf("%v: censored %+v, want 2 kills before Ready and 2 killed runs", files, c.Censored)
		}
		// The kill comes 7-10 s after the start (initialDelaySeconds 6,
		// period 2, failureThreshold 2) and the grace period is 1 s;
		// the API's times are whole seconds.
		if lo, hi := c.Censored.NotReadyAfter.Min, c.Censored.NotReadyAfter.Max; lo < 7 || hi > 12 {
			t.Errorf("%v: killed runs not Ready after %s-%s, want within 7s-12s", files, lo, hi)
		}
		if c.Startup == nil || c.Startup.Count != 2 || c.Startup.Max > 6 || c.Startup.Min < 3 {
			t.Errorf("%v: start-ups %s, want the two 3 s runs (3s-6s)", files, samples(c.Startup))
		}
		if r := restart(c, "liveness-probe"); r == nil || r.Count != 2 {
			t.Errorf("%v: liveness-probe restarts %+v, want 2", files, r)
		}
	}
}

// cache is OOM-killed (a 32 MiB limit, tail buffering /dev/zero) again
// and again. A snapshot shows only the last termination and counts the
// earlier restarts as unknown; a watch sees each.
func TestRecordedOOMKilled(t *testing.T) {
	_, c := find(t, recorded(t, "lists.json"), "observe-e2e/Deployment/cache", "app")
	oom := restart(c, "OOMKilled")
	if oom == nil || oom.Count < 1 {
		t.Fatalf("snapshot: OOMKilled %+v, want the last terminations (state and lastState)", oom)
	}
	total := oom.Count
	if u := restart(c, "unknown"); u != nil {
		total += u.Count
	}
	_, c = find(t, recorded(t, "watch-pods.json", "lists.json"), "observe-e2e/Deployment/cache", "app")
	oom = restart(c, "OOMKilled")
	if oom == nil || oom.Count != total || oom.Runs == nil || oom.Runs.Count != total {
		t.Errorf("watch: OOMKilled %+v, want every one of the %d restarts, each with its run", oom, total)
	}
	if u := restart(c, "unknown"); u != nil {
		t.Errorf("watch: %d restarts of unknown cause; the watch saw every termination", u.Count)
	}
	if c.Censored != nil || c.Shutdowns != nil {
		t.Errorf("an OOM kill is neither a probe kill nor a shutdown: %+v %+v", c.Censored, c.Shutdowns)
	}
}

// stubborn ignores SIGTERM; its Pod was deleted with a grace period of
// 3 s and SIGKILLed. After the kill the kubelet deletes the Pod with a
// grace period of 0, and the API server moves deletionTimestamp to that
// moment (after the container finished): the shutdown is measured from
// the first deletion, not counted as a crash.
func TestRecordedShutdownReachingSIGKILL(t *testing.T) {
	w, c := find(t, recorded(t, "watch-pods.json", "lists.json"), "observe-e2e/Deployment/stubborn", "app")
	if w.Pods != 2 {
		t.Errorf("%d Pods, want 2 (the deleted one and its replacement)", w.Pods)
	}
	if c.Shutdowns == nil || c.Shutdowns.Took.Count != 1 || c.Shutdowns.SIGKILL == nil || c.Shutdowns.SIGKILL.Count != 1 {
		t.Fatalf("shutdowns %+v, want one, ended by SIGKILL", c.Shutdowns)
	}
	if took := c.Shutdowns.SIGKILL.Max; took < 3 || took > 4 {
		t.Errorf("the shutdown took %s, want the grace period, 3s (whole seconds: up to 4s)", took)
	}
	if r := restart(c, "exit-code-137"); r != nil {
		t.Errorf("the SIGKILL at deletion is counted as a crash: %+v", r)
	}
}

// migrate's two Pods exit 1 (backoffLimit 1); api's Pod outlives its
// ReplicaSet (a finalizer holds it after the Deployment was deleted), so
// its Deployment is named from the ReplicaSet's name; it has two
// containers, so its start-up is the Pod's. The list, made after the
// kubelet's final delete, shows its containers finished before the
// deletionTimestamp that delete wrote, so only the watch sees their
// shutdown.
func TestRecordedJobAndOwnerGone(t *testing.T) {
	p := recorded(t, "lists.json")
	w, c := find(t, p, "observe-e2e/Job/migrate", "run")
	if w.Pods != 2 || w.FailedPods != 2 {
		t.Errorf("migrate: %d Pods, %d failed; want 2, 2", w.Pods, w.FailedPods)
	}
	if r := restart(c, "exit-code-1"); r == nil || r.Count != 2 {
		t.Errorf("migrate: exit-code-1 %+v, want 2", r)
	}
	for _, files := range [][]string{{"lists.json"}, {"watch-pods.json", "lists.json"}} {
		p := recorded(t, files...)
		var w *Workload
		for _, x := range p.Workloads {
			if x.Key == "observe-e2e/Deployment/api" {
				w = x
			}
		}
		if w == nil || !regexp.MustCompile(`ReplicaSet api-\w+ was not listed`).MatchString(w.Inferred) || !w.PodStartup || w.Pods != 1 {
			t.Fatalf("%v: api: %+v", files, w)
		}
	}
	for _, name := range []string{"api", "proxy"} {
		_, c := find(t, recorded(t, "watch-pods.json", "lists.json"), "observe-e2e/Deployment/api", name)
		if c.Startup == nil || c.Startup.Count != 1 || c.Shutdowns == nil || c.Shutdowns.Took.Count != 1 || c.Shutdowns.SIGKILL != nil {
			t.Errorf("api/%s: start-ups %s, shutdowns %+v; want 1 start-up, 1 shutdown without SIGKILL", name, samples(c.Startup), c.Shutdowns)
		}
	}
}

// The recordings are what Scrub leaves: scrubbing them again changes
// nothing, and no UID, container ID, IP or node name is left.
func TestRecordedIsScrubbed(t *testing.T) {
	for _, f := range []string{"lists.json", "watch-pods.json"} {
		data, err := os.ReadFile("testdata/recorded/" + f)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Scrub(data)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimSpace(again), bytes.TrimSpace(data)) {
			t.Errorf("%s: scrubbing it again changes it", f)
		}
		leak := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64}|podlint-e2e|"(uid|nodeName|podIP|hostIP|containerID)"`)
		for _, m := range leak.FindAll(data, -1) {
			if string(m) != "00000000-0000-0000-0000-000000000000" {
				t.Errorf("%s holds %s", f, m)
			}
		}
	}
}

// What check --observed takes from the watched profile: stubborn's one
// shutdown was cut off by SIGKILL, so it gives no expected shutdown (a
// lower bound, which PL208 reports), while slow-start's start-ups and its
// kills before Ready are there.
func TestRecordedExpectations(t *testing.T) {
	data, err := recorded(t, "watch-pods.json", "lists.json").Encode()
	if err != nil {
		t.Fatal(err)
	}
	o, err := Expectations(data, "observed.yaml", time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	stub := o.Workloads["observe-e2e/Deployment/stubborn"]["app"]
	if stub.Shutdowns != 1 || stub.SIGKILLs != 1 || stub.ShutdownMax < 3 || stub.CompletedShutdownMax != 0 {
		t.Errorf("stubborn: %+v; want 1 shutdown, SIGKILLed after the 3 s grace, none completed", stub)
	}
	slow := o.Workloads["observe-e2e/Deployment/slow-start"]["app"]
	if slow.KillsBeforeReady != 2 || slow.Starts != 2 || slow.NotReadyAfter < 7 || slow.StartupMax > 6 {
		t.Errorf("slow-start: %+v", slow)
	}
}
