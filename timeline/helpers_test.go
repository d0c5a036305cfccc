package timeline

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

// probe builds an exec probe with the five numeric fields.
func probe(d, p, t, st, ft int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:        corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"cat", "/tmp/healthy"}}},
		InitialDelaySeconds: d, PeriodSeconds: p, TimeoutSeconds: t, SuccessThreshold: st, FailureThreshold: ft,
	}
}

func podWorkload(spec *corev1.PodSpec) *workload.Workload {
	return &workload.Workload{Kind: "Pod", SpecPath: "spec", Spec: spec}
}

// nominal are parameters with ε = λ = 0, the assumption of the worked
// examples that do not mention them.
func nominal() Params {
	p := DefaultParams()
	p.Epsilon, p.Lambda, p.StopLatency = 0, 0, 0
	return p
}

func iv(lo, hi float64) Interval { return Between(lo, hi) }

const tol = 1e-9

func sameInterval(a, b Interval) bool {
	if a.HiUnbounded != b.HiUnbounded {
		return false
	}
	if math.Abs(a.Lo-b.Lo) > tol {
		return false
	}
	return a.HiUnbounded || math.Abs(a.Hi-b.Hi) <= tol
}

func wantInterval(t *testing.T, what string, got, want Interval) {
	t.Helper()
	if !sameInterval(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// checkInvariants walks every Interval reachable from the timeline and
// checks the properties every computed time must have: no NaN, no negative
// times, Lo ≤ Hi. It returns the number of intervals seen so that callers
// can assert the walk was not vacuous.
func checkInvariants(t testing.TB, tl *Timeline) int {
	t.Helper()
	n := 0
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeOf(Interval{}) {
				n++
				in := v.Interface().(Interval)
				if math.IsNaN(in.Lo) || math.IsNaN(in.Hi) {
					t.Errorf("%s: NaN in %v", path, in)
				}
				if in.Lo < 0 {
					t.Errorf("%s: negative time %v", path, in)
				}
				if !in.HiUnbounded && in.Hi < in.Lo {
					t.Errorf("%s: hi < lo in %v", path, in)
				}
				if math.IsInf(in.Lo, 0) {
					t.Errorf("%s: infinite lo in %v", path, in)
				}
				return
			}
			if v.Type() == reflect.TypeOf(Params{}) {
				return
			}
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), path+"."+v.Type().Field(i).Name)
				}
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(reflect.ValueOf(tl), "Timeline")

	for _, c := range tl.Containers {
		if l := c.Liveness; l != nil && l.KillDecision.Lo+tol < l.FirstProbe.Lo {
			t.Errorf("%s: liveness kill decision %v before first probe %v", c.Name, l.KillDecision, l.FirstProbe)
		}
		if s := c.Startup; s != nil {
			if s.KillDecision.Lo+tol < s.FirstProbe.Lo {
				t.Errorf("%s: startup kill decision %v before first probe %v", c.Name, s.KillDecision, s.FirstProbe)
			}
			if s.GuaranteedBudget.Lo > s.MaxBudget.Lo+tol {
				t.Errorf("%s: guaranteed budget %v above max budget %v", c.Name, s.GuaranteedBudget, s.MaxBudget)
			}
		}
		if tr := c.Termination; tr != nil && tl.Pod != nil {
			// A delete never takes longer than G + 2 (F-11), with G at
			// least 1 s on deletion (calculateEffectiveGracePeriod); on
			// 1.22–1.27 the grace restarts after preStop: at most 2G.
			// The runtime delivers that SIGKILL up to X later (T-9).
			G := max(tl.Pod.GracePeriod.V, 1)
			limit := G + MinimumStopGrace
			if !tl.Version.PreStopInGrace() {
				limit = max(2*G, limit)
			}
			limit += tl.Params.StopLatency
			if tr.SIGKILL.HiUnbounded || tr.SIGKILL.Hi > limit+tol {
				t.Errorf("%s: SIGKILL %v after %v (G=%v, Kubernetes %s)", c.Name, tr.SIGKILL, limit, tl.Pod.GracePeriod.V, tl.Version)
			}
			if tr.Exit.Lo+tol < tr.StopSignal.Lo {
				t.Errorf("%s: exit %v before stop signal %v", c.Name, tr.Exit, tr.StopSignal)
			}
		}
	}
	if tl.Pod != nil {
		sc := tl.ContainersOf(Sidecar)
		if len(tl.Pod.SidecarStopOrder) != len(sc) {
			t.Errorf("stop order %v, sidecars %d", tl.Pod.SidecarStopOrder, len(sc))
		} else {
			for i, name := range tl.Pod.SidecarStopOrder {
				if want := sc[len(sc)-1-i].Name; name != want {
					t.Errorf("stop order %v is not the reverse of declaration", tl.Pod.SidecarStopOrder)
					break
				}
			}
		}
	}
	return n
}
