package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Lines as the v1.37.2 kubelet and ctr 1.6 print them.
func TestParsers(t *testing.T) {
	dir := t.TempDir()
	klog := filepath.Join(dir, "kubelet.log")
	if err := os.WriteFile(klog, []byte(strings.Join([]string{
		`I1127 23:20:01.250000   4242 prober.go:123] "Probe failed" probeType="Liveness" pod="podlint-e2e/a-r1-podlint-e2e" podUID="u" containerName="app" probeResult="failure" output=""`,
		`I1127 23:20:01.500000   4242 prober.go:114] "Probe succeeded" probeType="Readiness" pod="podlint-e2e/a-r1-podlint-e2e" podUID="u" containerName="app"`,
		`I1127 23:20:01.600000   4242 kuberuntime_container.go:912] "Killing container with a grace period" pod="podlint-e2e/a-r1-podlint-e2e" podUID="u" containerName="app" containerID="containerd://x" gracePeriod=4`,
		`I1127 23:20:01.700000   4242 other.go:1] "Something else" pod="podlint-e2e/a-r1-podlint-e2e"`,
		`I1127 23:20:01.800000   4242 cpu_manager.go:314] "Added Container" pod="podlint-e2e/a-r1-podlint-e2e" podUID="u" containerName="init" containerID="e3b7f4b5"`,
		`I1127 23:20:01.850000   4242 kuberuntime_manager.go:1829] "Creating container in pod" containerType="container" container="app" pod="podlint-e2e/a-r1-podlint-e2e"`,
		`I1127 23:20:01.900000   4242 prober.go:157] "Exec-Probe runProbe" pod="podlint-e2e/a-r1-podlint-e2e" containerName="app" execCommand=["sh","-c","C=app; . /obs/lib.sh; log rprobe; exit 0"]`,
	}, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ls, err := parseKubeletLog(klog, time.Date(2026, 11, 27, 23, 30, 0, 0, time.Local))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 6 || ls[0].kind != "probe-failed" || ls[0].probe != "Liveness" || ls[0].container != "app" ||
		ls[0].pod != "podlint-e2e/a-r1-podlint-e2e" || ls[1].kind != "probe-succeeded" || ls[2].kind != "kill" || ls[2].id != "x" ||
		ls[3].kind != "added" || ls[3].container != "init" || ls[3].id != "e3b7f4b5" ||
		ls[4].kind != "create" || ls[4].container != "app" || ls[4].pod != "podlint-e2e/a-r1-podlint-e2e" ||
		ls[5].kind != "probe-run" || ls[5].container != "app" || ls[5].event != "rprobe" {
		t.Fatalf("kubelet lines %+v", ls)
	}
	if got := ls[1].t.Sub(ls[0].t); got != 250*time.Millisecond {
		t.Errorf("probe lines %v apart, want 250ms", got)
	}

	ev := filepath.Join(dir, "events.log")
	if err := os.WriteFile(ev, []byte(strings.Join([]string{
		`2026-11-27 23:20:02.1 +0000 UTC k8s.io /tasks/exit {"container_id":"c1","id":"exec9","pid":7,"exit_status":1,"exited_at":"2026-11-27T23:20:02.09Z"}`,
		`2026-11-27 23:20:03.123456789 +0000 UTC k8s.io /tasks/exit {"container_id":"c1","id":"c1","pid":5,"exit_status":137,"exited_at":"2026-11-27T23:20:03.12Z"}`,
		`2026-11-27 23:20:03.2 +0000 UTC k8s.io /tasks/delete {"container_id":"c1","pid":5,"exit_status":137}`,
		`2026-11-27 23:20:01.5 +0000 UTC k8s.io /tasks/start {"container_id":"c1","pid":5}`,
		`2026-11-27 23:20:02.0 +0000 UTC k8s.io /tasks/exec-started {"container_id":"c1","exec_id":"exec9","pid":7}`,
	}, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	es, starts, err := parseEvents(ev)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].id != "c1" || es[0].status != 137 || es[0].t.Nanosecond() != 123456789 {
		t.Fatalf("exits %+v, want the container's own exit only", es)
	}
	if len(starts) != 1 || starts[0].id != "c1" || starts[0].t.Nanosecond() != 500_000_000 {
		t.Fatalf("starts %+v, want the container's own start only", starts)
	}

	obs := filepath.Join(dir, "log")
	if err := os.WriteFile(obs, []byte("12.50 app sigterm\n10.00 app start\nbad line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os0 := 100 * time.Second
	ol, err := readObs(obs, os0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ol) != 2 || ol[0].event != "start" || ol[1].t.Sub(ol[0].t) != 2500*time.Millisecond {
		t.Fatalf("obs %+v", ol)
	}
}

// TestScenariosPredictable: every scenario is a valid manifest shape and
// names a podlint field for each check.
func TestScenarios(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range scenarios() {
		if seen[s.name] {
			t.Errorf("scenario %s twice", s.name)
		}
		seen[s.name] = true
		if len(s.checks) == 0 || !strings.Contains(s.manifest, "uid: @UID@") || s.deleteAfter <= 0 {
			t.Errorf("scenario %s: %d checks, deleteAfter %v", s.name, len(s.checks), s.deleteAfter)
		}
		for _, c := range s.checks {
			if c.field == "" || c.observe == nil {
				t.Errorf("%s: check %q has no field or observation", s.name, c.quantity)
			}
		}
	}
	if len(seen) < 15 {
		t.Errorf("%d scenarios, want at least 15", len(seen))
	}
}

// TestExitsOf: an exit is named by the kubelet's "Added Container" line
// for its ID even when /pods never showed the container (on a loaded
// kubelet, sleep-action-floor's container ran and was SIGKILLed before
// /pods left Pending: "ctr events saw 0 exits of app"), by /pods when the
// kubelet's line is missing, and other Pods' exits are not taken.
func TestExitsOf(t *testing.T) {
	p := &pod{name: "s-r1-abc-podlint-e2e", kubelet: []kubeletLine{
		{t: at(0), pod: "podlint-e2e/s-r1-abc-podlint-e2e", container: "init", kind: "added", id: "c1"},
		{t: at(1), pod: "podlint-e2e/s-r1-abc-podlint-e2e", container: "app", kind: "added", id: "c2"},
		{t: at(5), pod: "podlint-e2e/s-r1-abc-podlint-e2e", container: "app", kind: "kill", id: "c2"},
	}}
	exits := []exitEvent{{at(0.5), "c1", 0}, {at(6), "c2", 137}, {at(7), "c3", 1}, {at(8), "other", 1}, {at(9), "unknown", 1}}
	ids := map[string]string{"c3": p.name + "/app", "other": "t-r1-abc-podlint-e2e/app"}
	got := exitsOf(p, exits, ids)
	if len(got) != 2 || len(got["init"]) != 1 || got["init"][0].id != "c1" ||
		len(got["app"]) != 2 || got["app"][0].id != "c2" || got["app"][0].status != 137 || got["app"][1].id != "c3" {
		t.Fatalf("exits %+v", got)
	}
	// Without the kubelet's lines, only what /pods showed.
	p.kubelet = nil
	if got := exitsOf(p, exits, ids); len(got) != 1 || len(got["app"]) != 1 || got["app"][0].id != "c3" {
		t.Fatalf("exits from /pods only %+v", got)
	}
}

// TestWaitStart: the time of a Pod's first "start" line, whichever
// container wrote it; none within the timeout is reported as such.
func TestWaitStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	if _, ok := waitStart(path, 0, 0); ok {
		t.Fatal("a missing file has a start")
	}
	if err := os.WriteFile(path, []byte("5.00 init probe\n7.25 app start\n6.50 init start\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, ok := waitStart(path, 100*time.Second, 0)
	if !ok || got != time.Unix(106, 500_000_000) {
		t.Fatalf("first start %v %v, want 106.5 s after the epoch", got, ok)
	}
}
