package timeline

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

// randomSpec builds a valid-looking pod spec with random probe settings,
// hooks, grace period and 0–3 sidecars.
func randomSpec(r *rand.Rand) *corev1.PodSpec {
	rp := func() *corev1.Probe {
		if r.Intn(4) == 0 {
			return nil
		}
		return probe(int32(r.Intn(300)), int32(r.Intn(60)), int32(r.Intn(60)), int32(r.Intn(5)), int32(r.Intn(50)))
	}
	ctr := func(name string) corev1.Container {
		c := corev1.Container{Name: name, StartupProbe: rp(), LivenessProbe: rp(), ReadinessProbe: rp()}
		switch r.Intn(4) {
		case 0:
			c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: int64(r.Intn(60))}}}
		case 1:
			c.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", fmt.Sprintf("sleep %d", r.Intn(90))}}},
				PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{}}}
		}
		if c.LivenessProbe != nil && r.Intn(3) == 0 {
			c.LivenessProbe.TerminationGracePeriodSeconds = i64(int64(r.Intn(100)))
		}
		return c
	}
	spec := &corev1.PodSpec{}
	if r.Intn(2) == 0 {
		spec.TerminationGracePeriodSeconds = i64(int64(r.Intn(120)) - 5)
	}
	always := corev1.ContainerRestartPolicyAlways
	for i := 0; i < r.Intn(4); i++ {
		c := ctr(fmt.Sprintf("side%d", i))
		c.RestartPolicy = &always
		spec.InitContainers = append(spec.InitContainers, c)
	}
	if r.Intn(3) == 0 {
		spec.InitContainers = append([]corev1.Container{{Name: "migrate"}}, spec.InitContainers...)
	}
	for i := 0; i < 1+r.Intn(3); i++ {
		spec.Containers = append(spec.Containers, ctr(fmt.Sprintf("app%d", i)))
	}
	return spec
}

func randomParams(r *rand.Rand) Params {
	p := DefaultParams()
	p.Epsilon = r.Float64() * 3
	p.Lambda = r.Float64() * 2
	if r.Intn(2) == 0 {
		p.AppStart = Seconds(float64(r.Intn(400)))
	}
	if r.Intn(2) == 0 {
		p.AppShutdown = Seconds(float64(r.Intn(60)))
	}
	if r.Intn(3) == 0 {
		p.ImagePull = Seconds(float64(r.Intn(60)))
	}
	return p
}

// TestRandomInvariants: for random valid settings every interval has
// 0 ≤ lo ≤ hi, kill decisions never precede the first probe, deletes end by
// G + 2 and sidecars stop in reverse declaration order.
func TestRandomInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	versions := []Version{{1, 27}, {1, 28}, {1, 29}, {1, 34}, {1, 35}, Latest}
	total := 0
	for i := 0; i < 2000; i++ {
		spec := randomSpec(r)
		w := podWorkload(spec)
		tl := Compute(w, versions[r.Intn(len(versions))], randomParams(r))
		total += checkInvariants(t, tl)
		if t.Failed() {
			t.Fatalf("iteration %d", i)
		}
	}
	if total < 2000*10 {
		t.Fatalf("only %d intervals checked", total)
	}
}

// TestFailureThresholdMonotone: raising failureThreshold never shortens a
// kill window or a start-up budget.
func TestFailureThresholdMonotone(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		d, per, to := int32(r.Intn(120)), int32(1+r.Intn(60)), int32(1+r.Intn(60))
		ft := int32(1 + r.Intn(40))
		p := randomParams(r)
		at := func(ft int32) *Container {
			spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", LivenessProbe: probe(d, per, to, 1, ft), ReadinessProbe: probe(d, per, to, 1, ft)}}}
			return Compute(podWorkload(spec), Latest, p).Container("app")
		}
		atS := func(ft int32) *StartupProbe {
			spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", StartupProbe: probe(d, per, to, 1, ft)}}}
			return Compute(podWorkload(spec), Latest, p).Container("app").Startup
		}
		a, b := at(ft), at(ft+1)
		for _, pair := range [][2]Interval{
			{a.Liveness.KillDecision.Interval, b.Liveness.KillDecision.Interval},
			{a.Liveness.KillDecisionHang.Interval, b.Liveness.KillDecisionHang.Interval},
			{a.Liveness.HangDetection.Interval, b.Liveness.HangDetection.Interval},
			{a.Readiness.NotReadyDetection.Interval, b.Readiness.NotReadyDetection.Interval},
			{atS(ft).KillDecision.Interval, atS(ft + 1).KillDecision.Interval},
			{atS(ft).GuaranteedBudget.Interval, atS(ft + 1).GuaranteedBudget.Interval},
		} {
			if pair[1].Lo < pair[0].Lo || pair[1].Max() < pair[0].Max() {
				t.Fatalf("D=%d P=%d T=%d: FT %d → %d shortens %v to %v", d, per, to, ft, ft+1, pair[0], pair[1])
			}
		}
	}
}

// TestSidecarStopOrder: for 1–8 sidecars the stop order is the reverse of
// declaration and each sidecar's stop signal is not earlier than the stop
// of the sidecar declared after it.
func TestSidecarStopOrder(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	for n := 1; n <= 8; n++ {
		spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "main"}}}
		for i := 0; i < n; i++ {
			spec.InitContainers = append(spec.InitContainers, corev1.Container{Name: fmt.Sprintf("s%d", i), RestartPolicy: &always})
		}
		tl := Compute(podWorkload(spec), Latest, DefaultParams())
		if len(tl.Pod.SidecarStopOrder) != n {
			t.Fatalf("n=%d: order %v", n, tl.Pod.SidecarStopOrder)
		}
		for i, name := range tl.Pod.SidecarStopOrder {
			if want := fmt.Sprintf("s%d", n-1-i); name != want {
				t.Fatalf("n=%d: order %v", n, tl.Pod.SidecarStopOrder)
			}
		}
		for i := 0; i+1 < n; i++ {
			a, b := tl.Container(fmt.Sprintf("s%d", i)).Termination, tl.Container(fmt.Sprintf("s%d", i+1)).Termination
			if a.StopSignal.Lo < b.StopSignal.Lo {
				t.Fatalf("s%d signalled at %v before s%d at %v", i, a.StopSignal, i+1, b.StopSignal)
			}
		}
	}
	// Before 1.29 the "sidecar" is a regular init container that never
	// completes: nothing to stop, and the pod never becomes ready.
	spec := &corev1.PodSpec{InitContainers: []corev1.Container{{Name: "s", RestartPolicy: &always}}, Containers: []corev1.Container{{Name: "main"}}}
	tl := Compute(podWorkload(spec), Version{1, 28}, DefaultParams())
	if tl.Container("s").Type != Init || len(tl.Pod.SidecarStopOrder) != 0 || !tl.Pod.Ready.HiUnbounded {
		t.Errorf("1.28: type %v order %v ready %v", tl.Container("s").Type, tl.Pod.SidecarStopOrder, tl.Pod.Ready)
	}
}

// TestHugeValues: 2^31−1 everywhere must neither overflow nor hang.
func TestHugeValues(t *testing.T) {
	const m = math.MaxInt32
	spec := &corev1.PodSpec{
		TerminationGracePeriodSeconds: i64(math.MaxInt64),
		ActiveDeadlineSeconds:         i64(math.MaxInt64),
		Containers:                    []corev1.Container{{Name: "app", StartupProbe: probe(m, m, m, m, m), LivenessProbe: probe(m, m, m, m, m), ReadinessProbe: probe(m, m, m, m, m)}},
	}
	w := jobWorkload(corev1.RestartPolicyOnFailure, i32(m), i64(math.MaxInt64))
	w.Spec = spec
	p := DefaultParams()
	p.JobRun = Seconds(1)
	tl := Compute(w, Latest, p)
	checkInvariants(t, tl)
	if tl.Job.Retries.Lo < float64(m) {
		t.Errorf("retries %v for backoffLimit 2^31−1", tl.Job.Retries)
	}
	w.Spec.RestartPolicy = corev1.RestartPolicyNever
	tl = Compute(w, Latest, p)
	checkInvariants(t, tl)
	// m + 1 runs of 1 s, m back-offs (capped at 600 s), each up to 1 s
	// shorter from the exit (whole-second finishedAt).
	if want := float64(m) + 1 + (float64(m)-6)*600 + 630 - float64(m)*APITimeResolution; math.Abs(tl.Job.Retries.Lo-want) > 1 {
		t.Errorf("Never retries %v, want %v", tl.Job.Retries.Lo, want)
	}
}

func TestNilAndEmpty(t *testing.T) {
	if tl := Compute(nil, Version{}, Params{}); tl == nil || tl.Pod != nil || tl.Version != Latest {
		t.Fatalf("nil workload: %+v", tl)
	}
	tl := Compute(&workload.Workload{Kind: "Job", Job: &batchJob}, Latest, Params{})
	if tl.Pod != nil || tl.Job == nil || tl.Job.RestartPolicy != corev1.RestartPolicyNever {
		t.Fatalf("job without spec: %+v", tl.Job)
	}
	tl = Compute(podWorkload(&corev1.PodSpec{}), Latest, DefaultParams())
	if tl.Pod == nil || tl.Pod.Ready != nil || tl.Pod.QOSClass != corev1.PodQOSBestEffort {
		t.Fatalf("empty spec: %+v", tl.Pod)
	}
	checkInvariants(t, tl)
}
