package timeline

import (
	"math"
	"strings"
	"testing"

	"github.com/podlint/podlint/workload"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestWorkedExamples has one row per worked example E-1…E-10 of
// docs/semantics.md#examples plus the two examples of the Kubernetes probe
// docs; each asserts the intervals the text gives.
func TestWorkedExamples(t *testing.T) {
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"E-1 liveness D=5 P=10 FT=3, unhealthy from start", func(t *testing.T) {
			p := DefaultParams()
			tl := Compute(podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "app", LivenessProbe: probe(5, 10, 1, 0, 3)}}}), Latest, p)
			l := tl.Container("app").Liveness
			// ⌊S⌋ + D: probing may begin up to 1 s before S + D (P-11).
			wantInterval(t, "first probe", l.FirstProbe.Interval, iv(4, 15))
			wantInterval(t, "fast failure decision", l.KillDecision.Interval, iv(24, 35))
			wantInterval(t, "hang decision", l.KillDecisionHang.Interval, iv(25, 36))
			// Ignoring SIGTERM: SIGKILL 30 s after the stop signal, gone by < S+66 (+λ).
			// The verdict reaches the pod worker within λ (observed: ms).
			wantInterval(t, "stop signal after decision", l.Kill.StopSignal.Interval, iv(0, p.Lambda))
			wantInterval(t, "SIGKILL after decision", l.Kill.SIGKILL.Interval, iv(30, 30+p.Lambda))
			if got := l.KillDecisionHang.Hi + l.Kill.SIGKILL.Hi; math.Abs(got-(66+p.Lambda)) > tol {
				t.Errorf("gone by %v, want 66+λ", got)
			}
			// Second container starts 24–66 s (+λ) after the first.
			wantInterval(t, "next start", l.NextStart.Interval, iv(24, 66+p.Lambda))

			// With a hanging preStop: SIGTERM at decision+30, SIGKILL at decision+32.
			spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", LivenessProbe: probe(5, 10, 1, 0, 3),
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/sh", "-c", "sleep 3600"}}}}}}}
			l = Compute(podWorkload(spec), Latest, nominal()).Container("app").Liveness
			wantInterval(t, "stop signal with hanging preStop", l.Kill.StopSignal.Interval, At(30))
			wantInterval(t, "SIGKILL with hanging preStop", l.Kill.SIGKILL.Interval, At(32))
			if got := l.KillDecisionHang.Hi + l.Kill.SIGKILL.Hi; got != 68 {
				t.Errorf("gone by %v, want < S+68", got)
			}
		}},
		{"E-2 default probe, hang at h", func(t *testing.T) {
			tl := Compute(podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "app", LivenessProbe: probe(0, 0, 0, 0, 0)}}}), Latest, nominal())
			l := tl.Container("app").Liveness
			wantInterval(t, "hang detection after h", l.HangDetection.Interval, iv(21, 31))
			if got := l.HangDetection.Hi + l.Kill.SIGKILL.Hi; got != 61 {
				t.Errorf("gone by h+%v, want h+61", got)
			}
			spec := tl.Pod // grace 30 default
			if spec.GracePeriod.V != 30 || spec.GracePeriod.Set {
				t.Errorf("grace %+v, want defaulted 30", spec.GracePeriod)
			}
			// preStop using the whole grace: gone by < h+63.
			w := podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "app", LivenessProbe: probe(0, 0, 0, 0, 0),
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 30}}}}}})
			l = Compute(w, Latest, nominal()).Container("app").Liveness
			if got := l.HangDetection.Hi + l.Kill.SIGKILL.Hi; got != 63 {
				t.Errorf("gone by h+%v with preStop, want h+63", got)
			}
		}},
		{"E-3 startup FT=30 P=10: the docs' 300 s example", func(t *testing.T) {
			spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", StartupProbe: probe(0, 10, 1, 0, 30)}}}
			s := Compute(podWorkload(spec), Latest, nominal()).Container("app").Startup
			wantInterval(t, "kill decision", s.KillDecision.Interval, iv(290, 300))
			wantInterval(t, "kill decision, hanging", s.KillDecisionHang.Interval, iv(291, 301))
			wantInterval(t, "guaranteed budget", s.GuaranteedBudget.Interval, At(290))
			wantInterval(t, "max budget", s.MaxBudget.Interval, At(300))
			// E-3 ignores ε although D = 0 < ε; with the default ε = 1 s
			// only the upper edge moves (observation can be immediate).
			s = Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Startup
			wantInterval(t, "kill decision with ε=1", s.KillDecision.Interval, iv(290, 301))
			wantInterval(t, "guaranteed budget with ε=1", s.GuaranteedBudget.Interval, At(290))
			// Next attempts: immediate, then 10, 20, 40 s.
			rs := CrashLoop(0, 4, Latest, nominal())
			for i, want := range []float64{0, 10, 20, 40} {
				if rs[i].Delay.Lo != want {
					t.Errorf("restart %d delay %v, want %v", i+1, rs[i].Delay, want)
				}
			}
		}},
		{"E-4 readiness D=5 P=10, healthy app", func(t *testing.T) {
			p := DefaultParams()
			p.AppStart = Seconds(0)
			// Typical values as of 1.36; 1.37 is in TestFirstReadinessProbeByVersion.
			c := Compute(podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "app", ReadinessProbe: probe(5, 10, 1, 1, 3)}}}), v1(36), p).Container("app")
			if c.Ready.Lo != 4 {
				t.Errorf("ready %v, want lower edge ⌊S⌋+5 ≥ S+4", c.Ready)
			}
			if c.Readiness.FirstProbeTypical != 11 {
				t.Errorf("typical first probe %v, want S+ε+10 = 11 (X-10)", c.Readiness.FirstProbeTypical)
			}
			wantInterval(t, "ready", c.Ready.Interval, iv(4, 15))
			// D = 0: fast path at S+ε, or one period later if it loses the race.
			c = Compute(podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "app", ReadinessProbe: probe(0, 10, 1, 1, 3)}}}), v1(36), p).Container("app")
			if !c.Readiness.FastPath || c.Readiness.FirstProbeTypical != 1 {
				t.Errorf("D=0: fast path %v typical %v, want true and ε", c.Readiness.FastPath, c.Readiness.FirstProbeTypical)
			}
			// 1.37: the start sync comes milliseconds after the start.
			if c := Compute(podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "app", ReadinessProbe: probe(0, 10, 1, 1, 3)}}}), Latest, p).Container("app"); c.Readiness.FirstProbeTypical != 0 {
				t.Errorf("D=0 on 1.37: typical %v, want 0", c.Readiness.FirstProbeTypical)
			}
			wantInterval(t, "ready D=0", c.Ready.Interval, iv(0, 11))
			// ST = 3 adds 20 s.
			c = Compute(podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "app", ReadinessProbe: probe(5, 10, 1, 3, 3)}}}), Latest, p).Container("app")
			wantInterval(t, "ready ST=3", c.Ready.Interval, iv(24, 35))
		}},
		{"E-5 crash loop r=5", func(t *testing.T) {
			rs := CrashLoop(5, 6, Latest, nominal())
			exits := []float64{5, 10, 25, 50, 95, 180}
			starts := []float64{5, 20, 45, 90, 175, 340}
			for i := range rs {
				if rs[i].Exit.Lo != exits[i] || rs[i].Start.Lo != starts[i] {
					t.Errorf("restart %d: exit %v start %v, want %v and %v", i+1, rs[i].Exit, rs[i].Start, exits[i], starts[i])
				}
			}
			// Slip per delayed restart: ≤ 0.5·min(B, 60) since 1.35, < 15 s before.
			wantInterval(t, "delay 2 on 1.35", CrashLoop(5, 2, Version{1, 35}, nominal())[1].Delay, iv(10, 15))
			wantInterval(t, "delay 6 on 1.35", CrashLoop(5, 6, Version{1, 35}, nominal())[5].Delay, iv(160, 190))
			wantInterval(t, "delay 2 on 1.34", CrashLoop(5, 2, Version{1, 34}, nominal())[1].Delay, iv(10, 25))
			wantInterval(t, "first restart is immediate", rs[0].Delay, At(0))
			// Cap at 300 s, and a run ≥ 600 s resets the back-off.
			if d := CrashLoop(5, 8, Latest, nominal())[7].Delay.Lo; d != 300 {
				t.Errorf("restart 8 delay %v, want the 300 s cap", d)
			}
			if d := CrashLoop(590, 8, Latest, nominal())[7].Delay.Lo; d != 10 {
				t.Errorf("run 590: delay %v, want min(300, 600−590) = 10", d)
			}
			if d := CrashLoop(600, 8, Latest, nominal())[7].Delay.Lo; d != 0 {
				t.Errorf("run 600: delay %v, want 0 (entry expired)", d)
			}
		}},
		{"E-6 preStop sleep 40 with TGPS 45", func(t *testing.T) {
			spec := &corev1.PodSpec{TerminationGracePeriodSeconds: i64(45), Containers: []corev1.Container{{Name: "app",
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 40}}}}}}
			tr := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Termination
			wantInterval(t, "SIGTERM", tr.StopSignal.Interval, At(40))
			// The runtime delivers it up to X later (T-9).
			wantInterval(t, "SIGKILL", tr.SIGKILL.Interval, iv(45, 45+DefaultParams().StopLatency))
			if !tr.PreStop.Exact || tr.PreStop.Path != "spec.containers[0].lifecycle.preStop.sleep.seconds" {
				t.Errorf("preStop %+v", tr.PreStop)
			}
			// With the default 30 s the manifest is rejected; the model says so.
			spec.TerminationGracePeriodSeconds = nil
			tl := Compute(podWorkload(spec), Latest, DefaultParams())
			if !hasNote(tl, "rejected") {
				t.Errorf("no note about the rejected sleep: %+v", tl.Notes)
			}
			// Before 1.30 the sleep action is dropped.
			spec.TerminationGracePeriodSeconds = i64(45)
			tr = Compute(podWorkload(spec), Version{1, 29}, DefaultParams()).Container("app").Termination
			if tr.PreStop.Skipped == "" {
				t.Error("sleep preStop not skipped on 1.29")
			}
			wantInterval(t, "SIGTERM on 1.29", tr.StopSignal.Interval, At(0))
		}},
		{"E-7 sidecar shutdown", func(t *testing.T) {
			always := corev1.ContainerRestartPolicyAlways
			spec := &corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "a", RestartPolicy: &always}, {Name: "b", RestartPolicy: &always}},
				Containers:     []corev1.Container{{Name: "main"}},
			}
			p := DefaultParams()
			p.Containers = map[string]ContainerParams{"main": {Shutdown: Seconds(12)}, "a": {Shutdown: Seconds(0)}, "b": {Shutdown: Seconds(0)}}
			tl := Compute(podWorkload(spec), Latest, p)
			X := p.StopLatency
			wantInterval(t, "main exit", tl.Container("main").Termination.Exit.Interval, At(12))
			// Each hand-over waits for the runtime's stop call to return,
			// up to X after the exit (T-9): [0, X] per hand-over.
			wantInterval(t, "b SIGTERM", tl.Container("b").Termination.StopSignal.Interval, iv(12, 12+X))
			wantInterval(t, "a SIGTERM", tl.Container("a").Termination.StopSignal.Interval, iv(12, 12+2*X))
			if got := tl.Pod.SidecarStopOrder; len(got) != 2 || got[0] != "b" || got[1] != "a" {
				t.Errorf("stop order %v, want [b a]", got)
			}
			if w := tl.Container("a").Termination.WaitsFor; len(w) != 2 || w[0] != "main" || w[1] != "b" {
				t.Errorf("a waits for %v", w)
			}
			// b's own shutdown unknown: a is signalled somewhere in [12, 30).
			p.Containers["b"] = ContainerParams{}
			tl = Compute(podWorkload(spec), Latest, p)
			wantInterval(t, "a SIGTERM after b of unknown shutdown", tl.Container("a").Termination.StopSignal.Interval, iv(12, 30))
			// Main ignores SIGTERM: SIGKILL at 30; both sidecars signalled at
			// 30 by the kubelet's own timer, SIGKILL at 32; each SIGKILL is
			// delivered up to X later.
			p.Containers["main"] = ContainerParams{Shutdown: Seconds(math.Inf(1))}
			tl = Compute(podWorkload(spec), Latest, p)
			wantInterval(t, "main SIGKILL", tl.Container("main").Termination.SIGKILL.Interval, iv(30, 30+X))
			for _, n := range []string{"a", "b"} {
				wantInterval(t, n+" SIGTERM", tl.Container(n).Termination.StopSignal.Interval, At(30))
				wantInterval(t, n+" SIGKILL", tl.Container(n).Termination.SIGKILL.Interval, iv(32, 32+X))
			}
			wantInterval(t, "pod terminated", tl.Pod.Terminated.Interval, iv(30, 32+X))
		}},
		{"E-8 Job backoffLimit 6, pods fail after 30 s", func(t *testing.T) {
			p := nominal()
			p.JobRun = Seconds(30)
			for _, tc := range []struct {
				policy corev1.RestartPolicy
				want   float64
			}{{corev1.RestartPolicyNever, 840 - 6*APITimeResolution}, {corev1.RestartPolicyOnFailure, 490}} {
				w := jobWorkload(tc.policy, nil, nil)
				j := Compute(w, Latest, p).Job
				if j.Retries.Lo != tc.want || len(j.Retries.Plus) != 0 {
					t.Errorf("%s: gives up at %v, want %v", tc.policy, j.Retries, tc.want)
				}
				if j.BackoffLimit.V != 6 || j.BackoffLimit.Set {
					t.Errorf("backoffLimit %+v, want defaulted 6", j.BackoffLimit)
				}
			}
			// Cap by version: 360 s ≤ 1.27, 600 s since; each of
			// the 10 waits counts from a whole-second finishedAt.
			w := jobWorkload(corev1.RestartPolicyNever, i32(10), nil)
			if got, want := Compute(w, Version{1, 27}, p).Job.Retries.Lo, 11*30+2070-10*APITimeResolution; got != float64(want) {
				t.Errorf("1.27: %v, want %v", got, want)
			}
			if got, want := Compute(w, Version{1, 28}, p).Job.Retries.Lo, 11*30+3030-10*APITimeResolution; got != float64(want) {
				t.Errorf("1.28: %v, want %v", got, want)
			}
			// activeDeadlineSeconds first.
			w = jobWorkload(corev1.RestartPolicyNever, nil, i64(300))
			j := Compute(w, Latest, p).Job
			if !j.DeadlineFirst {
				t.Errorf("deadline 300 before retries at 840 not flagged")
			}
			// The deadline fires in (299, 300] (status.startTime has whole
			// seconds); Failed once the deleted Pod is gone (30 s grace)
			// and a batched sync later since 1.31 (enactJobFinished); at
			// the deadline itself before.
			wantInterval(t, "gives up", j.GivesUp.Interval, iv(299, 331))
			wantInterval(t, "1.30 gives up", Compute(w, Version{1, 30}, p).Job.GivesUp.Interval, iv(299, 300))
		}},
		{"E-9 Deployment startup P=10 FT=60 vs progress deadline 600", func(t *testing.T) {
			w := &workload.Workload{Kind: "Deployment", SpecPath: "spec.template.spec", Deployment: &appsv1.DeploymentSpec{},
				Spec: &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", StartupProbe: probe(0, 10, 1, 0, 60)}}}}
			tl := Compute(w, Latest, nominal())
			wantInterval(t, "B_max", tl.Container("app").Startup.MaxBudget.Interval, At(600))
			d := tl.Deployment
			if d.ProgressDeadline.V != 600 || d.ProgressDeadline.Path != "spec.progressDeadlineSeconds" {
				t.Errorf("progress deadline %+v", d.ProgressDeadline)
			}
			wantInterval(t, "pod ready", d.PodReady.Interval, iv(0, 600))
			if !strings.Contains(strings.Join(d.PodReady.Plus, ","), "image pull of app") {
				t.Errorf("pull not symbolic: %v", d.PodReady.Plus)
			}
			// Any pull time or latency makes ProgressDeadlineExceeded possible.
			tl = Compute(w, Latest, DefaultParams())
			if !tl.Deployment.MayExceedDeadline {
				t.Errorf("deadline risk not flagged: ready %v", tl.Deployment.PodReady)
			}
			// 25 % fenceposts on 1 replica: surge 1, unavailable 0.
			if d.MaxSurge.V != 1 || d.MaxUnavailable.V != 0 {
				t.Errorf("surge %v unavailable %v, want 1 and 0", d.MaxSurge.V, d.MaxUnavailable.V)
			}
		}},
		{"E-10 StatefulSet 3 replicas OrderedReady", func(t *testing.T) {
			w := &workload.Workload{Kind: "StatefulSet", SpecPath: "spec.template.spec",
				StatefulSet: &appsv1.StatefulSetSpec{Replicas: i32(3), MinReadySeconds: 5},
				Spec:        &corev1.PodSpec{Containers: []corev1.Container{{Name: "db", ReadinessProbe: probe(10, 10, 1, 1, 3)}}}}
			p := DefaultParams()
			p.AppStart, p.AppShutdown = Seconds(0), Seconds(0) // healthy app, exits fast on SIGTERM
			p.ImagePull, p.Scheduling = Seconds(0), Seconds(0)
			s := Compute(w, Latest, p).StatefulSet
			// Each Pod Ready in [9, 20) (⌊S⌋ + D, P-11), plus 5, which
			// counts from a whole-second lastTransitionTime: (4, 5].
			wantInterval(t, "creation 3 × (9–20 + 4–5)", s.Creation.Interval, iv(39, 75))
			// Each deleted Pod is gone from the API up to ε after its
			// containers (the kubelet's phase write and delete).
			wantInterval(t, "rolling update", s.RollingUpdate.Interval, iv(39, 75+3*p.Epsilon))
			if s.PodManagementPolicy != "OrderedReady" {
				t.Errorf("policy %q", s.PodManagementPolicy)
			}
			// An app ignoring SIGTERM: each termination ≤ 32 s, here the
			// 30 s grace plus the runtime's stop call (X, T-9).
			p.AppShutdown = Duration{}
			tl := Compute(w, Latest, p)
			if tl.Pod.Terminated.Hi > 32+p.StopLatency {
				t.Errorf("termination %v, want ≤ 32 + X", tl.Pod.Terminated)
			}
			wantInterval(t, "rolling update with slow shutdown", tl.StatefulSet.RollingUpdate.Interval, iv(39, 75+3*(30+p.StopLatency)+3*p.Epsilon))
		}},
		{"docs liveness-exec: file removed at 30 s, D=5 P=5 FT=3", func(t *testing.T) {
			tl := Compute(podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "liveness", LivenessProbe: probe(5, 5, 1, 0, 0)}}}), Latest, DefaultParams())
			l := tl.Container("liveness").Liveness
			wantInterval(t, "kill decision after h=30", l.FailingFrom(30, false), iv(40, 45))
			wantInterval(t, "F-7 hang from 30", l.FailingFrom(30, true), iv(41, 46))
			wantInterval(t, "unhealthy from start", l.FailingFrom(0, false), iv(14, 20))
		}},
		{"docs startup: FT=30 × P=10", func(t *testing.T) {
			spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app",
				StartupProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz"}}, FailureThreshold: 30, PeriodSeconds: 10},
				LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz"}}, FailureThreshold: 1, PeriodSeconds: 10}}}}
			c := Compute(podWorkload(spec), Latest, nominal()).Container("app")
			wantInterval(t, "kill decision", c.Startup.KillDecision.Interval, iv(290, 300))
			wantInterval(t, "guaranteed budget", c.Startup.GuaranteedBudget.Interval, At(290))
			if may, must := c.Startup.Outcome(290); may || must {
				t.Errorf("app healthy at 290 s: may %v must %v, want false false", may, must)
			}
			if may, must := c.Startup.Outcome(295); !may || must {
				t.Errorf("app healthy at 295 s: may %v must %v, want true false", may, must)
			}
			if !c.Liveness.Gated {
				t.Error("liveness not gated by startup")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.check)
	}
}

func hasNote(tl *Timeline, sub string) bool {
	for _, n := range tl.Notes {
		if strings.Contains(n.Text, sub) {
			return true
		}
	}
	return false
}

func jobWorkload(policy corev1.RestartPolicy, limit *int32, ads *int64) *workload.Workload {
	return &workload.Workload{Kind: "Job", SpecPath: "spec.template.spec", JobPath: "spec",
		Job:  &batchv1.JobSpec{BackoffLimit: limit, ActiveDeadlineSeconds: ads},
		Spec: &corev1.PodSpec{RestartPolicy: policy, Containers: []corev1.Container{{Name: "task"}}}}
}
