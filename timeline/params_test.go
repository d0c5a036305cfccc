package timeline

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"1.33": {1, 33}, "v1.33.2": {1, 33}, " 1.27 ": {1, 27}, "v1.30+": {1, 30}, "1.35.0-eks.1": {1, 35}} {
		got, err := ParseVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1", "x.y", "v0.1", "1.-2"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
	if !(Version{}).AtLeast(37) || Latest.String() != "1.37" {
		t.Error("zero Version is not Latest")
	}
	if (Version{1, 27}).JobBackoffCap() != 360 || (Version{1, 28}).JobBackoffCap() != 600 {
		t.Error("job back-off cap by version")
	}
	if (Version{1, 28}).Sidecars() || !(Version{1, 29}).Sidecars() || (Version{1, 29}).SleepAction() || !(Version{1, 30}).SleepAction() {
		t.Error("gates by version")
	}
	if (Version{1, 34}).RequeueAtBackoffExpiry() || !(Version{1, 35}).RequeueAtBackoffExpiry() {
		t.Error("crash-loop requeue by version")
	}
}

func TestExpectations(t *testing.T) {
	w := &workload.Workload{Path: "items[2]", Annotations: map[string]string{
		AnnotationExpectedStartup:  "30s, app=1m30s, side-*=5",
		AnnotationExpectedShutdown: "12",
	}, AnnotationPaths: map[string]workload.Path{
		AnnotationExpectedStartup: `items[2].spec.template.metadata.annotations["podlint.dev/expected-startup"]`,
	}}
	cfg := DefaultParams()
	cfg.ExpectedStartup = []Expectation{{Pattern: "app", Seconds: 1}, {Pattern: "db*", Seconds: 200}}
	cases := []struct {
		name string
		want float64
		src  ExpectSource
	}{{"app", 90, FromAnnotation}, {"side-car", 5, FromAnnotation}, {"other", 30, FromAnnotation}}
	for _, c := range cases {
		e, err := ExpectedStartup(w, cfg, c.name)
		if err != nil || !e.OK || e.Seconds != c.want || e.Source != c.src {
			t.Errorf("%s: %+v %v, want %v from %s", c.name, e, err, c.want, c.src)
		}
		if e.Path != `items[2].spec.template.metadata.annotations["podlint.dev/expected-startup"]` {
			t.Errorf("%s: path %q", c.name, e.Path)
		}
	}
	e, _ := ExpectedShutdown(w, cfg, "x")
	if e.Seconds != 12 || e.Key != AnnotationExpectedShutdown {
		t.Errorf("shutdown %+v", e)
	}

	// Config only: first matching glob.
	e, err := ExpectedStartup(&workload.Workload{}, cfg, "db-0")
	if err != nil || e.Seconds != 200 || e.Source != FromConfig || e.Key != "db*" {
		t.Errorf("config: %+v %v", e, err)
	}
	if e, _ := ExpectedStartup(nil, Params{}, "x"); e.OK {
		t.Errorf("nothing configured: %+v", e)
	}

	// Malformed annotation: error to report, config still used, no panic.
	for _, bad := range []string{"", "soon", "app=", "=5s", "-5s", "app=5s,app=6s", "NaN", "[=5", "1h,,2h", "Inf", "90sec", "1e100s", "1e100", "3000000000"} {
		w := &workload.Workload{Annotations: map[string]string{AnnotationExpectedStartup: bad}}
		e, err := ExpectedStartup(w, cfg, "app")
		var ae *AnnotationError
		if !errors.As(err, &ae) || ae.Key != AnnotationExpectedStartup || ae.Value != bad {
			t.Errorf("%q: err %v", bad, err)
			continue
		}
		if e.Source != FromConfig || e.Seconds != 1 {
			t.Errorf("%q: fallback %+v", bad, e)
		}
		tl := Compute(&workload.Workload{Kind: "Pod", Spec: &corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}, {Name: "b"}}}, Annotations: w.Annotations}, Latest, cfg)
		if len(tl.Errors) != 1 {
			t.Errorf("%q: timeline errors %v, want exactly one", bad, tl.Errors)
		}
	}
	for in, want := range map[string]float64{"90": 90, "1.5": 1.5, "1m30s": 90, "250ms": 0.25, "2h": 7200} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v %v", in, got, err)
		}
	}
}

// TestExpectationsDriveTheModel: an annotation changes the app start the
// model uses, and so the container's Ready.
func TestExpectationsDriveTheModel(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", ReadinessProbe: probe(0, 10, 1, 1, 3)}}}
	w := &workload.Workload{Kind: "Pod", SpecPath: "spec", Spec: spec, Annotations: map[string]string{AnnotationExpectedStartup: "app=40s"}}
	c := Compute(w, Latest, DefaultParams()).Container("app")
	if !c.AppStart.Known || c.AppStart.Seconds != 40 || c.ExpectedStartup.Source != FromAnnotation {
		t.Fatalf("app start %+v from %+v", c.AppStart, c.ExpectedStartup)
	}
	wantInterval(t, "ready", c.Ready.Interval, iv(40, 50))
	// Without expectation and without liveness nothing bounds readiness.
	w.Annotations = nil
	c = Compute(w, Latest, DefaultParams()).Container("app")
	if !c.Ready.HiUnbounded || c.Ready.Lo != 0 {
		t.Errorf("unknown start: ready %v, want [0, ∞)", c.Ready)
	}
	// Liveness bounds it: an app slower than the liveness kill never gets ready.
	spec.Containers[0].LivenessProbe = probe(0, 10, 1, 1, 3)
	c = Compute(w, Latest, DefaultParams()).Container("app")
	wantInterval(t, "ready bounded by liveness", c.Ready.Interval, iv(0, 41))
	if may, must := c.Liveness.Outcome(25); !may || must {
		t.Errorf("app starting at 25 s: may %v must %v", may, must)
	}
}

func TestIntervalJSON(t *testing.T) {
	for _, c := range []struct {
		in   Interval
		want string
	}{{At(3), "[3,3]"}, {Between(0.5, 2), "[0.5,2]"}, {From(4), "[4,null]"}, {Between(0.1+0.2, 1), "[0.3,1]"}} {
		b, err := json.Marshal(c.in)
		if err != nil || string(b) != c.want {
			t.Errorf("%v → %s %v, want %s", c.in, b, err, c.want)
		}
		var back Interval
		if err := json.Unmarshal(b, &back); err != nil || !sameInterval(back, c.in) {
			t.Errorf("round trip %s → %v %v", b, back, err)
		}
	}
	b, _ := json.Marshal(Span{Interval: At(1), Plus: []string{"pull"}, Paths: []workload.Path{"spec"}})
	if string(b) != `{"interval":[1,1],"plus":["pull"],"paths":["spec"]}` {
		t.Errorf("span JSON %s", b)
	}
	if err := json.Unmarshal([]byte(`[null,1]`), new(Interval)); err == nil {
		t.Error("null lo accepted")
	}
	if s := Between(25, 35).String(); s != "25s–35s" {
		t.Errorf("String %q", s)
	}
	if e := Earlier(From(3), Between(1, 9)); !sameInterval(e, iv(1, 9)) {
		t.Errorf("Earlier %v", e)
	}
}

func TestQOSClass(t *testing.T) {
	q := func(s string) resource.Quantity { return resource.MustParse(s) }
	rl := func(cpu, mem string) corev1.ResourceList {
		l := corev1.ResourceList{}
		if cpu != "" {
			l[corev1.ResourceCPU] = q(cpu)
		}
		if mem != "" {
			l[corev1.ResourceMemory] = q(mem)
		}
		return l
	}
	cases := []struct {
		name       string
		containers []corev1.ResourceRequirements
		init       []corev1.ResourceRequirements
		want       corev1.PodQOSClass
	}{
		{"nothing", []corev1.ResourceRequirements{{}}, nil, corev1.PodQOSBestEffort},
		{"limits only default the requests", []corev1.ResourceRequirements{{Limits: rl("1", "1Gi")}}, nil, corev1.PodQOSGuaranteed},
		{"equal", []corev1.ResourceRequirements{{Requests: rl("500m", "1Gi"), Limits: rl("0.5", "1024Mi")}}, nil, corev1.PodQOSGuaranteed},
		{"request below limit", []corev1.ResourceRequirements{{Requests: rl("100m", "1Gi"), Limits: rl("1", "1Gi")}}, nil, corev1.PodQOSBurstable},
		{"cpu limit only", []corev1.ResourceRequirements{{Limits: rl("1", "")}}, nil, corev1.PodQOSBurstable},
		{"one container without limits", []corev1.ResourceRequirements{{Limits: rl("1", "1Gi")}, {}}, nil, corev1.PodQOSBurstable},
		{"init container counts", []corev1.ResourceRequirements{{}}, []corev1.ResourceRequirements{{Requests: rl("1", "")}}, corev1.PodQOSBurstable},
		{"zero quantities ignored", []corev1.ResourceRequirements{{Requests: rl("0", "0")}}, nil, corev1.PodQOSBestEffort},
		{"other resources ignored", []corev1.ResourceRequirements{{Limits: corev1.ResourceList{"nvidia.com/gpu": q("1")}}}, nil, corev1.PodQOSBestEffort},
	}
	for _, c := range cases {
		spec := &corev1.PodSpec{}
		for i, r := range c.containers {
			spec.Containers = append(spec.Containers, corev1.Container{Name: string(rune('a' + i)), Resources: r})
		}
		for i, r := range c.init {
			spec.InitContainers = append(spec.InitContainers, corev1.Container{Name: string(rune('p' + i)), Resources: r})
		}
		if got := qosClass(spec, Latest); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// Pod-level resources decide from 1.34 on.
	spec := &corev1.PodSpec{Resources: &corev1.ResourceRequirements{Limits: rl("1", "1Gi")}, Containers: []corev1.Container{{Name: "a"}}}
	if got := qosClass(spec, Version{1, 34}); got != corev1.PodQOSGuaranteed {
		t.Errorf("pod-level 1.34: %s", got)
	}
	if got := qosClass(spec, Version{1, 33}); got != corev1.PodQOSBestEffort {
		t.Errorf("pod-level 1.33: %s", got)
	}
}

func TestHooksAndTermination(t *testing.T) {
	// exec "sleep 15": lower bound 15, SIGTERM in [15, 30], SIGKILL ≤ 32,
	// delivered up to X (the runtime's stop call, T-9) later.
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "app",
		Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/sh", "-c", "sleep 15"}}}}}}}
	X := DefaultParams().StopLatency
	tr := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app").Termination
	wantInterval(t, "preStop", tr.PreStop.Duration.Interval, iv(15, 30))
	wantInterval(t, "SIGTERM", tr.StopSignal.Interval, iv(15, 30))
	wantInterval(t, "SIGKILL", tr.SIGKILL.Interval, iv(30, 32+X))
	// TGPS 0 on delete: the kubelet still uses 1 s of grace, so the preStop
	// runs and is cut at 1 s; then the 2 s floor: SIGKILL by 3 s.
	spec.TerminationGracePeriodSeconds = i64(0)
	c0 := Compute(podWorkload(spec), Latest, DefaultParams()).Container("app")
	tr = c0.Termination
	if tr.PreStop.Skipped != "" {
		t.Errorf("preStop skipped on delete with grace 0: %s", tr.PreStop.Skipped)
	}
	wantInterval(t, "SIGTERM grace 0", tr.StopSignal.Interval, iv(1, 1))
	wantInterval(t, "SIGKILL grace 0", tr.SIGKILL.Interval, iv(3, 3+X))
	// Probe-level grace for liveness kills (≥ 1.25), pod grace for deletes.
	spec = &corev1.PodSpec{Containers: []corev1.Container{{Name: "app", LivenessProbe: probe(0, 0, 0, 0, 0)}}}
	spec.Containers[0].LivenessProbe.TerminationGracePeriodSeconds = i64(5)
	c := Compute(podWorkload(spec), Latest, nominal()).Container("app")
	wantInterval(t, "liveness SIGKILL", c.Liveness.Kill.SIGKILL.Interval, At(5))
	wantInterval(t, "delete SIGKILL", c.Termination.SIGKILL.Interval, At(30))
	c = Compute(podWorkload(spec), Version{1, 24}, nominal()).Container("app")
	wantInterval(t, "liveness SIGKILL on 1.24", c.Liveness.Kill.SIGKILL.Interval, At(30))
	// Negative pod grace → 1.
	spec.TerminationGracePeriodSeconds = i64(-3)
	tl := Compute(podWorkload(spec), Latest, nominal())
	if tl.Pod.GracePeriod.V != 1 || !hasNote(tl, "coerced") {
		t.Errorf("negative grace: %+v %v", tl.Pod.GracePeriod, tl.Notes)
	}
}

func TestStartChain(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "migrate"}, {Name: "proxy", RestartPolicy: &always, StartupProbe: probe(0, 1, 1, 1, 10)}},
		Containers: []corev1.Container{
			{Name: "app", Lifecycle: &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 3}}}},
			{Name: "log"},
		},
	}
	p := nominal()
	p.Scheduling, p.ImagePull, p.InitRun = Seconds(2), Seconds(4), Seconds(10)
	p.Containers = map[string]ContainerParams{"proxy": {Start: Seconds(0)}}
	tl := Compute(podWorkload(spec), Latest, p)
	// scheduling 2, pull 4 → migrate starts 6, runs 10 → 16; proxy pull 4 → 20,
	// started at its first startup probe [0, 1) → init done [20, 21); app pull →
	// [24, 25), postStart 3 blocks log: pull → [31, 32).
	wantInterval(t, "migrate start", tl.Container("migrate").Start.Interval, At(6))
	wantInterval(t, "proxy start", tl.Container("proxy").Start.Interval, At(20))
	wantInterval(t, "initialized", tl.Pod.Initialized.Interval, iv(20, 21))
	wantInterval(t, "app start", tl.Container("app").Start.Interval, iv(24, 25))
	wantInterval(t, "log start", tl.Container("log").Start.Interval, iv(31, 32))
	// Pod ready: app after its postStart (27–28), log at start, proxy started.
	wantInterval(t, "pod ready", tl.Pod.Ready.Interval, iv(31, 32))
	if tl.Container("migrate").Ready != nil {
		t.Error("init container has ready")
	}
	// Deleted while it still runs, an init container is stopped too
	// (killContainersWithSyncResult), with no preStop.
	if tr := tl.Container("migrate").Termination; tr == nil || tr.PreStop != nil {
		t.Errorf("init container termination %+v, want one without preStop", tr)
	}
	// Unknown pulls stay symbolic.
	tl = Compute(podWorkload(spec), Latest, nominal())
	if len(tl.Pod.Ready.Plus) < 4 {
		t.Errorf("plus terms %v", tl.Pod.Ready.Plus)
	}
}
