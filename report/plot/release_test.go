package plot

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// releaseFixtures: a hostPort Deployment scaled 2–6 by an autoscaler, its
// budget allowing one Pod down, on 3 nodes; and a StatefulSet whose budget
// allows nothing.
func releaseFixtures() []Item {
	p := timeline.DefaultParams()
	p.Nodes = 3
	d := &workload.Workload{Kind: "Deployment", SpecPath: "spec.template.spec",
		Deployment: &appsv1.DeploymentSpec{Replicas: i32(2), MinReadySeconds: 5},
		Spec: &corev1.PodSpec{
			TerminationGracePeriodSeconds: i64(40),
			Containers: []corev1.Container{{
				Name:           "web",
				Ports:          []corev1.ContainerPort{{ContainerPort: 80, HostPort: 80}},
				StartupProbe:   httpProbe(0, 5, 12),
				ReadinessProbe: httpProbe(0, 5, 1),
				Lifecycle:      &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 15}}},
			}},
		}}
	dt := timeline.Compute(d, timeline.Latest, p)
	why, _ := timeline.ExclusiveNode(d.Spec, nil)
	one := intstr.FromInt32(1)
	web := Item{File: "web.yaml", Line: 1, APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Timeline: dt,
		Rollout: timeline.ComputeRollout(dt.Deployment, timeline.Replicas{Min: 2, Max: 6, Source: "HorizontalPodAutoscaler web"}, nil, nil, why, p.Nodes),
		Drain:   timeline.ComputeDrain(dt, 6, &timeline.Budget{Name: "web", MaxUnavailable: &one, Pods: 6}, p.Nodes)}

	s := &workload.Workload{Kind: "StatefulSet", SpecPath: "spec.template.spec",
		StatefulSet: &appsv1.StatefulSetSpec{Replicas: i32(3)},
		Spec:        &corev1.PodSpec{Containers: []corev1.Container{{Name: "db", ReadinessProbe: httpProbe(10, 10, 3)}}}}
	st := timeline.Compute(s, timeline.Latest, timeline.DefaultParams())
	all := intstr.FromString("100%")
	db := Item{File: "db.yaml", Line: 1, APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", Timeline: st,
		Drain: timeline.ComputeDrain(st, 3, &timeline.Budget{Name: "db", MinAvailable: &all, Pods: 3}, 0)}
	return []Item{web, db}
}

func TestReleaseGolden(t *testing.T) {
	items := releaseFixtures()
	out := render(t, func(w io.Writer) error { return JSON(w, items) })
	golden(t, "release.json", out)
	golden(t, "release.txt", render(t, func(w io.Writer) error { return Text(w, items, false) }))

	var doc struct {
		Objects []struct {
			Rollout *struct {
				Nodes int
				Cases []struct {
					Replicas, MaxSurge, MaxUnavailable int
					Waves                              []json.RawMessage
					Stall                              string
				}
			}
			Drain *struct {
				DisruptionsAllowed, PodsOnNode int
				Blocked                        string
				HoldsNode                      json.RawMessage
				Evictions                      []json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	r := doc.Objects[0].Rollout
	// 2 replicas: 25% surge rounds up to 1, 25% unavailable down to 0; on 3
	// nodes one is free. 6 replicas: surge 2, unavailable 1.
	if r == nil || r.Nodes != 3 || len(r.Cases) != 2 || r.Cases[0].MaxSurge != 1 || r.Cases[0].MaxUnavailable != 0 || len(r.Cases[0].Waves) != 2 ||
		r.Cases[0].Stall != "" || r.Cases[1].MaxSurge != 2 || r.Cases[1].MaxUnavailable != 1 || len(r.Cases[1].Waves) != 2 {
		t.Errorf("rollout = %+v", r)
	}
	// 6 Pods on 3 nodes: 2 on the drained node, one eviction at a time.
	dr := doc.Objects[0].Drain
	if dr == nil || dr.DisruptionsAllowed != 1 || dr.PodsOnNode != 2 || len(dr.Evictions) != 2 || dr.Blocked != "" {
		t.Errorf("drain = %+v", dr)
	}
	blocked := doc.Objects[1].Drain
	if blocked == nil || blocked.Blocked == "" || string(blocked.HoldsNode) != "[0, null]" || doc.Objects[1].Rollout != nil {
		t.Errorf("blocked drain = %+v", blocked)
	}
}
