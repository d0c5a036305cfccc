package timeline

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The tests of this file pin what a v1.37.2 kubelet showed in the runs of
// e2e/kubelet (docs/validation.md) and the issue that reported them.

// TestProbeKillRestarts: a container killed by its liveness probe every
// cycle seconds is restarted at once while the two previous exits lie at
// least the current back-off apart (R-3 liveness kills). Observed with a
// 12 s cycle: restarts 1–3 immediate, then a 20 s back-off (up to 30 s
// with the re-queue jitter), then immediate again when that wait and the
// next run add up to 40 s or more.
func TestProbeKillRestarts(t *testing.T) {
	rs := probeKillRestarts(At(12), 6, Latest, DefaultParams())
	want := []Interval{At(0), At(0), At(0), iv(20, 30), iv(0, 60), iv(80, 110)}
	if len(rs) != len(want) {
		t.Fatalf("%d restarts, want %d", len(rs), len(want))
	}
	for i, w := range want {
		wantInterval(t, "delay of restart "+string(rune('1'+i)), rs[i].Delay, w)
	}
	wantInterval(t, "start of restart 4", rs[3].Start.Interval, iv(48+20, 48+30))

	// A 2 s cycle: the back-off catches up from restart 3 on.
	rs = probeKillRestarts(At(2), 5, Latest, DefaultParams())
	for i, w := range []Interval{At(0), At(0), iv(10, 15), iv(20, 30), iv(40, 60)} {
		wantInterval(t, "2 s cycle, delay of restart "+string(rune('1'+i)), rs[i].Delay, w)
	}
	if rs := probeKillRestarts(From(5), 5, Latest, DefaultParams()); rs != nil {
		t.Errorf("unbounded cycle: %v, want no schedule", rs)
	}
}

// TestProbeKillRestartsInTimeline: the schedule hangs off the liveness
// probe of a container that is restarted, and is absent under Never.
func TestProbeKillRestartsInTimeline(t *testing.T) {
	spec := &corev1.PodSpec{TerminationGracePeriodSeconds: i64(1),
		Containers: []corev1.Container{{Name: "app", LivenessProbe: probe(0, 1, 1, 0, 1)}}}
	l := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Liveness
	if len(l.Restarts) != crashLoopSteps || l.Restarts[0].Delay != At(0) {
		t.Fatalf("restarts %+v, want %d starting immediately", l.Restarts, crashLoopSteps)
	}
	if l.UnhealthyRestarts[2].Delay.Lo != 10 {
		t.Errorf("unhealthy at every start: restart 3 waits %v, want the 10 s back-off (cycle < 10 s)", l.UnhealthyRestarts[2].Delay)
	}
	// Nothing states how long the app stays healthy: a long run makes
	// restart 3 immediate.
	if l.HealthyFor.Known || l.Restarts[2].Delay != iv(0, 15) || !l.Restarts[2].Start.HiUnbounded {
		t.Errorf("health unknown: healthy for %+v, restart 3 %+v, want unknown, a wait of [0, 15] and no latest start", l.HealthyFor, l.Restarts[2])
	}
	// A command that ends 1 s after its probe's file is gone exits before
	// the probe can act: a crash, not this schedule.
	spec.Containers[0].Command = []string{"sh", "-c", "touch /tmp/ok; sleep 20; rm /tmp/ok; sleep 1"}
	spec.Containers[0].LivenessProbe.Exec = &corev1.ExecAction{Command: []string{"cat", "/tmp/ok"}}
	spec.Containers[0].LivenessProbe.FailureThreshold = 3
	if l := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Liveness; l.HealthyFor.Known || !l.Restarts[0].Exit.HiUnbounded {
		t.Errorf("command ends before the kill: healthy for %+v, restart 1 %+v, want the unknown case", l.HealthyFor, l.Restarts[0])
	}
	spec.Containers[0].Command[2] = "touch /tmp/ok; sleep 20; rm /tmp/ok; sleep 5"
	if l := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Liveness; l.HealthyFor != Seconds(20) || l.Restarts[0].Exit.HiUnbounded {
		t.Errorf("command outlives the kill decision: healthy for %+v, restart 1 %+v, want 20 s and a bounded exit", l.HealthyFor, l.Restarts[0])
	}
	spec.RestartPolicy = corev1.RestartPolicyNever
	if l := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Liveness; l.Restarts != nil || l.UnhealthyRestarts != nil {
		t.Errorf("restartPolicy Never: restarts %+v, want none", l.Restarts)
	}
}

// TestHealthUnknownRestarts: a container healthy for an unknown while
// before each kill runs at least the earliest kill, any longer. Every
// sequence of such runs, with and without the re-queue slack, must wait
// and start inside the reported intervals (runs up to 300 s, where
// kubeletKillPath needs no expiry), and the waits that runs longer than
// the back-off skip must show as lower edges of 0 (the real kubelet's
// 0.96 s before restart 3 of a container healthy 8 s per run).
func TestHealthUnknownRestarts(t *testing.T) {
	p, v := DefaultParams(), Latest
	const n = 6
	rs := healthUnknownRestarts(iv(1, 6.5), n, v, p)
	for i, want := range []Interval{At(0), At(0), iv(0, 15), iv(0, 30), iv(0, 60), iv(0, 110)} {
		wantInterval(t, "delay of restart "+string(rune('1'+i)), rs[i].Delay, want)
	}
	grid := []float64{1, 6.5, 10, 25, 45, 100, 300}
	runs := make([]float64, n)
	var walk func(i int)
	walk = func(i int) {
		if i == n {
			for _, late := range []bool{false, true} {
				starts := kubeletKillPath(runs, late, v, p)
				for k, s := range starts {
					exit := runs[0]
					if k > 0 {
						exit = starts[k-1] + runs[k]
					}
					if r := rs[k]; s < r.Start.Lo-1e-9 || s-exit < r.Delay.Lo-1e-9 || s-exit > r.Delay.Hi+1e-9 {
						t.Fatalf("runs %v (late %v): restart %d waits %v and starts at %v, outside %+v", runs, late, k+1, s-exit, s, r)
					}
				}
			}
			return
		}
		for _, c := range grid {
			runs[i] = c
			walk(i + 1)
		}
	}
	walk(0)
}

// TestInitialDelayTruncation: doProbe measures initialDelaySeconds from
// startedAt truncated to whole seconds, so the first probe (observed 3.66 s
// with D = 4), the kill decision (7.70 s, P = 2, FT = 3) and the startup
// budget are up to 1 s earlier than S + D would say (P-11).
func TestInitialDelayTruncation(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", LivenessProbe: probe(4, 2, 1, 0, 3),
		StartupProbe: nil}}}
	l := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Liveness
	wantInterval(t, "first probe", l.FirstProbe.Interval, iv(3, 6))
	wantInterval(t, "kill decision", l.KillDecision.Interval, iv(7, 10))
	spec.Containers[0].LivenessProbe = nil
	spec.Containers[0].StartupProbe = probe(4, 2, 1, 0, 3)
	s := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Startup
	wantInterval(t, "guaranteed budget", s.GuaranteedBudget.Interval, At(7))
	// D = 0 has nothing to truncate.
	spec.Containers[0].StartupProbe = probe(0, 2, 1, 0, 3)
	s = Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Startup
	wantInterval(t, "first probe, D = 0", s.FirstProbe.Interval, iv(0, 3))
}

// TestNotReadyFastAndHang: a readiness check that fails fast is counted
// when its command exits, [(FT−1)·P, FT·P) after the failure begins
// (observed 2.02 s with P = 2, FT = 2); one that hangs takes T per attempt.
func TestNotReadyFastAndHang(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", ReadinessProbe: probe(0, 2, 1, 1, 2)}}}
	r := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Readiness
	wantInterval(t, "fast", r.NotReadyDetectionFast.Interval, iv(2, 4))
	wantInterval(t, "hang", r.NotReadyDetection.Interval, iv(3, 5))
}

// TestProbeKillSignals: SIGTERM of a probe kill follows the verdict within
// λ (observed in milliseconds), SIGKILL the probe's grace later.
func TestProbeKillSignals(t *testing.T) {
	pr := probe(1, 1, 1, 0, 2)
	pr.TerminationGracePeriodSeconds = i64(3)
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", LivenessProbe: pr}}}
	p := DefaultParams()
	k := Compute(podWorkload(spec), Latest, p).Container("app").Liveness.Kill
	wantInterval(t, "SIGTERM", k.StopSignal.Interval, iv(0, p.Lambda))
	wantInterval(t, "SIGKILL", k.SIGKILL.Interval, iv(3, 3+p.Lambda))
}

// TestInitFailure: under Never a failing init container fails the Pod in
// the sync after the kubelet sees the exit, [0, ε + λ] (observed 0.32–1.16
// s on v1.37.2: the relist period, then the sync that writes the phase,
// R-4); under
// OnFailure or Always it is retried with the crash-loop back-off.
func TestInitFailure(t *testing.T) {
	for _, policy := range []corev1.RestartPolicy{corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure, corev1.RestartPolicyAlways} {
		spec := &corev1.PodSpec{RestartPolicy: policy, InitContainers: []corev1.Container{{Name: "init"}}, Containers: []corev1.Container{{Name: "app"}}}
		p := DefaultParams()
		f := Compute(podWorkload(spec), Latest, p).Container("init").InitFailure
		if f == nil {
			t.Fatalf("%s: no init failure outcome", policy)
		}
		if policy == corev1.RestartPolicyNever {
			if !f.PodFails || f.PodFailed == nil || f.Restarts != nil {
				t.Fatalf("Never: %+v, want the Pod to fail", f)
			}
			wantInterval(t, "Pod failed after the exit", f.PodFailed.Interval, iv(0, p.Epsilon+p.Lambda))
			continue
		}
		if f.PodFails || len(f.Restarts) < 2 {
			t.Fatalf("%s: %+v, want restarts", policy, f)
		}
		wantInterval(t, string(policy)+" restart 1", f.Restarts[0].Delay, At(0))
		if f.Restarts[1].Delay.Lo != 10 {
			t.Errorf("%s: restart 2 waits %v, want 10 s", policy, f.Restarts[1].Delay)
		}
	}
}

// TestTerminationEdgesReached: when the app uses the whole grace period,
// the sidecar's wait for its turn times out exactly at G and the app is
// SIGKILLed exactly at G, so those upper edges are closed (T-2, T-4).
func TestTerminationEdgesReached(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	spec := &corev1.PodSpec{TerminationGracePeriodSeconds: i64(5),
		InitContainers: []corev1.Container{{Name: "sc1", RestartPolicy: &always}},
		Containers:     []corev1.Container{{Name: "app"}}}
	tl := Compute(podWorkload(spec), Latest, DefaultParams())
	sc, app := tl.Container("sc1").Termination, tl.Container("app").Termination
	for what, got := range map[string]Interval{"sidecar SIGTERM": sc.StopSignal.Interval, "app SIGKILL": app.SIGKILL.Interval,
		"app exit": app.Exit.Interval, "Pod gone": tl.Pod.Terminated.Interval} {
		if !got.reachesHi() || !got.Exact() && !got.HiClosed {
			t.Errorf("%s = %v, want a closed upper edge", what, got)
		}
	}
	if sc.StopSignal.Hi != 5 {
		t.Errorf("sidecar SIGTERM at most %v, want 5 (the grace)", sc.StopSignal.Hi)
	}
	if got := Between(1, 2).Add(At(3)); got.HiClosed {
		t.Errorf("%v: an open edge plus a constant stays open", got)
	}
}

// TestProbeKillOfLastContainer: a probe kill that leaves nothing to keep or
// restart kills the whole Pod (KillPod), with the Pod's grace period: the
// probe's terminationGracePeriodSeconds is ignored (observed on v1.37.2).
func TestProbeKillOfLastContainer(t *testing.T) {
	pr := probe(1, 1, 1, 0, 2)
	pr.TerminationGracePeriodSeconds = i64(3)
	spec := &corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: i64(30),
		Containers: []corev1.Container{{Name: "app", LivenessProbe: pr}}}
	tl := Compute(podWorkload(spec), Latest, DefaultParams())
	if g := tl.Container("app").Liveness.GracePeriod.V; g != 30 {
		t.Errorf("only container, not restarted: grace %v, want the Pod's 30", g)
	}
	if len(tl.Notes) == 0 {
		t.Errorf("no note that the probe's grace period is ignored")
	}
	spec.RestartPolicy = corev1.RestartPolicyAlways
	if g := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Liveness.GracePeriod.V; g != 3 {
		t.Errorf("restarted: grace %v, want the probe's 3", g)
	}
}

// TestProbeKillRestartsVaryingCycle: each run of a probe-killed container
// lasts its own time within the kill window (the probe worker's ticker
// keeps its phase across restarts, so every new instance meets it at
// another point), and doBackOff (kuberuntime_manager.go) decides each
// restart from the two latest exits: a long run can make a restart
// immediate that a short one would have delayed, so runs of mixed lengths
// restart sooner than any run of one length repeated. Observed on a real
// v1.37.2 kubelet: the fifth restart 90.15 s after the first start, with a
// kill window of [7, 14.5] s (initialDelaySeconds 2, periodSeconds 3,
// failureThreshold 3, grace 1 s), where podlint said [102.5, 132.5]. Runs
// of 7, 7, 7, 10 and 7 s restart at 7, 14, 31 (10 s back-off), 41
// (immediate: the exits at 21 and 41 s lie 20 s apart, which covers the
// 20 s back-off) and 88 s (the 40 s back-off after a 7 s run).
// Every sequence of run lengths in the window, with and without the
// re-queue slack, must start each restart inside the reported interval.
func TestProbeKillRestartsVaryingCycle(t *testing.T) {
	p, v := DefaultParams(), Latest
	const n = 5
	rs := probeKillRestarts(iv(7, 14.5), n, v, p)
	if len(rs) != n {
		t.Fatalf("%d restarts, want %d", len(rs), n)
	}
	if got := kubeletKillPath([]float64{7, 7, 7, 10, 7}, false, v, p); got[4] != 88 {
		t.Fatalf("reference path: restart 5 at %v, want 88", got[4])
	}
	if rs[4].Start.Lo > 88 {
		t.Errorf("restart 5 starts at the earliest %v, want ≤ 88 s (observed 90.15 s)", rs[4].Start.Lo)
	}
	grid := []float64{7, 8, 9, 10, 11, 12, 13, 14, 14.5}
	cycles := make([]float64, n)
	var walk func(i int)
	walk = func(i int) {
		if i == n {
			for _, late := range []bool{false, true} {
				for k, s := range kubeletKillPath(cycles, late, v, p) {
					if r := rs[k].Start.Interval; s < r.Lo-1e-9 || !r.HiUnbounded && s > r.Hi+1e-9 {
						t.Fatalf("runs %v (late %v): restart %d starts at %v, outside %v", cycles, late, k+1, s, r)
					}
				}
			}
			return
		}
		for _, c := range grid {
			cycles[i] = c
			walk(i + 1)
		}
	}
	walk(0)
}

// kubeletKillPath replays doBackOff and flowcontrol.Backoff for runs of the
// given lengths (start → exit), for back-offs shorter than the 600 s
// expiry: the killing sync checks the previous exit; a refused restart
// waits the back-off from the new exit (plus the whole re-queue slack when
// late) and the entry doubles; an allowed one is immediate and Next creates
// or doubles the entry. It returns each restart's start after the first.
func kubeletKillPath(cycles []float64, late bool, v Version, p Params) []float64 {
	p = p.clean().crashCurve(v)
	var out []float64
	entry, prevExit, start := 0.0, 0.0, 0.0
	for i, c := range cycles {
		exit := start + c
		wait := 0.0
		if i > 0 {
			if entry != 0 && exit-prevExit < entry {
				wait = entry
				if late {
					wait += crashOvershoot(entry, v)
				}
			}
			if entry == 0 {
				entry = p.CrashLoopInitial
			} else {
				entry = min(2*entry, p.CrashLoopMax)
			}
		}
		prevExit, start = exit, exit+wait
		out = append(out, start)
	}
	return out
}

// TestProbeKillRestartsAtTheCap: item 3 of issue 38 at the back-off's
// cap. Over eight restarts of a container killed every 7–14.5 s (the
// window where a v1.37.2 kubelet restarted the fifth time at 90.15 s) the
// entry reaches the 300 s maximum (MaxContainerBackOff); every sequence of
// run lengths, with and without the re-queue slack of the version (0.5·
// min(B, 60 s) since 1.35, the 10 s × 1.5 resync before), waits and
// starts inside the reported intervals, and the last wait is the cap plus
// exactly that slack.
func TestProbeKillRestartsAtTheCap(t *testing.T) {
	p := DefaultParams()
	const n = 8
	for _, tc := range []struct {
		v        Version
		lastWait Interval
	}{{Latest, iv(300, 330)}, {Version{1, 34}, iv(300, 315)}} {
		rs := probeKillRestarts(iv(7, 14.5), n, tc.v, p)
		wantInterval(t, tc.v.String()+": wait before restart 8", rs[n-1].Delay, tc.lastWait)
		if r := rs[4].Start.Interval; r.Lo > 90.15 || r.Hi < 90.15 {
			t.Errorf("%v: restart 5 starts %v, not covering the observed 90.15 s", tc.v, r)
		}
		runs := make([]float64, n)
		var walk func(i int)
		walk = func(i int) {
			if i == n {
				for _, late := range []bool{false, true} {
					starts := kubeletKillPath(runs, late, tc.v, p)
					for k, s := range starts {
						exit := runs[0]
						if k > 0 {
							exit = starts[k-1] + runs[k]
						}
						if r := rs[k]; s < r.Start.Lo-1e-9 || s > r.Start.Hi+1e-9 || s-exit < r.Delay.Lo-1e-9 || s-exit > r.Delay.Hi+1e-9 {
							t.Fatalf("%v, runs %v (late %v): restart %d waits %v and starts at %v, outside %+v", tc.v, runs, late, k+1, s-exit, s, r)
						}
					}
				}
				return
			}
			for _, c := range []float64{7, 10, 14.5} {
				runs[i] = c
				walk(i + 1)
			}
		}
		walk(0)
	}
}
