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

func v1(minor int) Version { return Version{Major: 1, Minor: minor} }

// TestPreStopGraceByVersion: on a delete, 1.21 and 1.28+ count the preStop
// hook inside the grace period (SIGKILL at max(G, p+2)); 1.22–1.27 handed
// killContainer the grace period as an override that replaced what the hook
// left (kubernetes#102344 until kubernetes#115835): SIGKILL at p + G.
func TestPreStopGraceByVersion(t *testing.T) {
	spec := &corev1.PodSpec{TerminationGracePeriodSeconds: i64(30), Containers: []corev1.Container{{Name: "app",
		Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 20}}}}}}
	// The sleep action needs 1.30; an exec sleep states 20 s as a lower bound
	// up to the grace, so give the same hook as exec for the older minors.
	exec := &corev1.PodSpec{TerminationGracePeriodSeconds: i64(30), Containers: []corev1.Container{{Name: "app",
		Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sleep", "20"}}}}}}}
	for _, c := range []struct {
		minor int
		spec  *corev1.PodSpec
		kill  Interval
	}{
		{21, exec, iv(30, 32)}, // stop in [20, 30]: kill at max(30, stop+2)
		{22, exec, iv(50, 60)}, // stop + 30
		{27, exec, iv(50, 60)},
		{28, exec, iv(30, 32)},
		{30, spec, At(30)},
		{37, spec, At(30)},
	} {
		v := v1(c.minor)
		tl := Compute(podWorkload(c.spec), v, nominal())
		tr := tl.Container("app").Termination
		wantInterval(t, "SIGKILL on "+v.String(), tr.SIGKILL.Interval, c.kill)
		noted := false
		for _, n := range tl.Notes {
			noted = noted || strings.Contains(n.Text, "grace period starts again after the preStop hook")
		}
		if noted == v.PreStopInGrace() {
			t.Errorf("%s: note about the grace restarting after preStop: %v, want %v", v, noted, !v.PreStopInGrace())
		}
	}
}

// TestFirstReadinessProbeByVersion: the typical first readiness probe is a
// whole period after the start sync only since the ticker reset of 1.32;
// before, the ticker keeps its phase and the first tick after D is on
// average half a period later. Since 1.37 the start sync follows the start
// within milliseconds (relist after a runtime action), so one period after
// the start itself, as observed on a v1.37.2 kubelet (docs/validation.md).
func TestFirstReadinessProbeByVersion(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", ReadinessProbe: probe(5, 10, 1, 1, 3)}}}
	for minor, want := range map[int]float64{21: 10, 31: 10, 32: 11, 36: 11, 37: 10} {
		rp := Compute(podWorkload(spec), v1(minor), DefaultParams()).Container("app").Readiness
		if rp.FirstProbeTypical != want {
			t.Errorf("1.%d: first readiness probe typically at %v, want %v", minor, rp.FirstProbeTypical, want)
		}
	}
}

// TestJobBackoffLimitPerIndexByVersion: absent before 1.28 (backoffLimit 6
// applies), dropped on 1.28 after defaulting backoffLimit to 2147483647,
// the per-index limit from 1.29.
func TestJobBackoffLimitPerIndexByVersion(t *testing.T) {
	w := &workload.Workload{Kind: "Job", SpecPath: "spec.template.spec", JobPath: "spec",
		Job:  &batchv1.JobSpec{BackoffLimitPerIndex: i32(2), CompletionMode: ptrTo(batchv1.IndexedCompletion)},
		Spec: &corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "work"}}}}
	for minor, want := range map[int]struct {
		limit    float64
		perIndex bool
		path     workload.Path
	}{
		27: {6, false, "spec.backoffLimit"},
		28: {math.MaxInt32, false, "spec.backoffLimit"},
		29: {2, true, "spec.backoffLimitPerIndex"},
		37: {2, true, "spec.backoffLimitPerIndex"},
	} {
		j := Compute(w, v1(minor), DefaultParams()).Job
		if j.BackoffLimit.V != want.limit || j.PerIndex != want.perIndex || j.BackoffLimit.Path != want.path {
			t.Errorf("1.%d: limit %v per index %v at %s, want %+v", minor, j.BackoffLimit.V, j.PerIndex, j.BackoffLimit.Path, want)
		}
	}
	// An explicit backoffLimit survives the drop.
	w.Job.BackoffLimit = i32(3)
	if j := Compute(w, v1(28), DefaultParams()).Job; j.BackoffLimit.V != 3 || j.PerIndex {
		t.Errorf("1.28 with backoffLimit 3: %+v", j.BackoffLimit)
	}
}

// TestStatefulSetMinReadySecondsByVersion: dropped before 1.23.
func TestStatefulSetMinReadySecondsByVersion(t *testing.T) {
	w := &workload.Workload{Kind: "StatefulSet", SpecPath: "spec.template.spec",
		StatefulSet: &appsv1.StatefulSetSpec{Replicas: i32(2), MinReadySeconds: 30},
		Spec:        &corev1.PodSpec{Containers: []corev1.Container{{Name: "db"}}}}
	for minor, want := range map[int]float64{21: 0, 22: 0, 23: 30, 37: 30} {
		st := Compute(w, v1(minor), nominal()).StatefulSet
		if st.MinReadySeconds.V != want {
			t.Errorf("1.%d: minReadySeconds %v, want %v", minor, st.MinReadySeconds.V, want)
		}
		// Each Pod available (m − 1, m] after Ready (whole-second
		// lastTransitionTime).
		if lo := 2 * AvailableAfterReady(want).Lo; st.Creation.Lo != lo {
			t.Errorf("1.%d: creation %v, want from %v", minor, st.Creation, lo)
		}
	}
}

// TestCrashLoopMaxByVersion: the node's maxContainerRestartPeriod
// (Params.CrashLoopMax) only counts with KubeletCrashLoopBackOffMax (1.35).
func TestCrashLoopMaxByVersion(t *testing.T) {
	p := DefaultParams()
	p.CrashLoopMax = 30
	for minor, want := range map[int]float64{34: 300, 35: 30} {
		rs := CrashLoop(0, 8, v1(minor), p)
		if got := rs[len(rs)-1].Delay.Lo; got != want {
			t.Errorf("1.%d: last delay %v, want %v", minor, got, want)
		}
	}
	if tl := Compute(podWorkload(&corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}}), v1(34), p); tl.Params.CrashLoopMax != 300 {
		t.Errorf("1.34: the timeline's params say CrashLoopMax %v, want the 300 s the kubelet uses", tl.Params.CrashLoopMax)
	}
}

func ptrTo[T any](v T) *T { return &v }
