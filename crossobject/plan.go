package crossobject

import (
	"github.com/podlint/podlint/timeline"
)

// Plan computes a workload's rollout (Deployments) and node drain
// (workloads with replicas) from its timeline and the objects of the run
// around it: the autoscaler's replica range, the budget that covers its
// Pods. exclusive is timeline.ExclusiveNode's reason ("" if none); nodes is
// --nodes (0 unknown).
func (v *View) Plan(w *Workload, tl *timeline.Timeline, exclusive string, nodes int) (*timeline.Rollout, *timeline.Drain) {
	ns := v.Namespace(w.Ref.Namespace)
	if ns == nil || tl == nil || !w.Scaled {
		return nil, nil
	}
	lo, hi, hpa := ns.ReplicaRange(w)
	r := timeline.Replicas{Min: lo, Max: hi, Source: "spec.replicas"}
	if hpa != nil {
		r.Source = "HorizontalPodAutoscaler " + hpa.Ref.Name
	}
	var rollout *timeline.Rollout
	if w.Deployment && tl.Deployment != nil {
		rollout = timeline.ComputeRollout(tl.Deployment, r, w.MaxSurge, w.MaxUnavailable, exclusive, nodes)
	}
	var budget *timeline.Budget
	if pdbs := ns.PDBsCovering(w); len(pdbs) > 0 {
		b := pdbs[0]
		budget = &timeline.Budget{Name: b.Ref.Name, MinAvailable: b.MinAvailable, MaxUnavailable: b.MaxUnavailable}
		for _, o := range pdbs[1:] {
			budget.Others = append(budget.Others, o.Ref.Name)
		}
		for _, x := range ns.SelectedByPDB(b) {
			xlo, _, _ := ns.ReplicaRange(x)
			budget.Pods += xlo
		}
	}
	return rollout, timeline.ComputeDrain(tl, lo, budget, nodes)
}
