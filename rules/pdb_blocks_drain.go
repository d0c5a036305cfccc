package rules

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var PDBBlocksDrain = &Rule{
	ID: "PL703", Name: "pdb-blocks-drain", Title: "a PodDisruptionBudget that no eviction can satisfy",
	Severity: finding.Warning,
	CrossObject: func(p *CrossObjectPass) {
		for _, ns := range p.View.Namespaces() {
			for _, b := range ns.PDBs {
				checkBudget(p, ns, b)
			}
			checkOverlaps(p, ns)
		}
	},
}

func checkBudget(p *CrossObjectPass, ns *crossobject.Namespace, b *crossobject.PDB) {
	if b.MaxUnavailable != nil && (b.MaxUnavailable.Type == intstr.Int && b.MaxUnavailable.IntVal == 0 || b.MaxUnavailable.Type == intstr.String && strings.TrimSpace(b.MaxUnavailable.StrVal) == "0%") {
		p.Report(CrossObjectDiagnostic{At: b.BudgetAt(), Object: &b.Object,
			Message: fmt.Sprintf("PodDisruptionBudget %q never allows an eviction", b.Ref.Name),
			Detail:  detail("PodDisruptionBudget %q has maxUnavailable %s: it never allows an eviction of the Pods it selects, so every kubectl drain of a node running one of them waits forever; use maxUnavailable: 1 and plan disruptions with it", b.Ref.Name, b.MaxUnavailable.String())})
		return
	}
	if b.Selector == nil {
		p.Report(CrossObjectDiagnostic{At: b.SelectorAt(), Object: &b.Object,
			Message: fmt.Sprintf("PodDisruptionBudget %q selects no Pods", b.Ref.Name),
			Detail:  detail("PodDisruptionBudget %q has no usable selector (a null selector, or an empty one in policy/v1beta1, selects no Pods), so it protects nothing; set spec.selector to the labels of the Pods it should cover", b.Ref.Name)})
		return
	}
	selected := ns.SelectedByPDB(b)
	if len(selected) == 0 {
		if len(ns.Workloads) > 0 {
			p.Report(CrossObjectDiagnostic{At: b.SelectorAt(), Object: &b.Object,
				Message: fmt.Sprintf("PodDisruptionBudget %q selects no workload of the run", b.Ref.Name),
				Detail:  detail("PodDisruptionBudget %q selects no Pod of the %d workload(s) of its namespace in this run, so it protects nothing; match its selector to the Pod template labels", b.Ref.Name, len(ns.Workloads))})
		}
		return
	}
	if b.MaxUnavailable == nil && b.MinAvailable == nil {
		return
	}
	var expected int32
	var rel []crossobject.Pos
	for _, w := range selected {
		if !w.Scaled {
			return // the Pods of a DaemonSet, a Job or a bare Pod: their count is unknown here
		}
		lo, _, hpa := ns.ReplicaRange(w)
		expected += lo
		if hpa != nil {
			rel = append(rel, related(hpa.MinAt(), "minReplicas %d of HorizontalPodAutoscaler %q for %s %q", lo, hpa.Ref.Name, w.Ref.Kind, w.Ref.Name))
		} else {
			rel = append(rel, related(w.ReplicasAt(), "%d replicas of %s %q", lo, w.Ref.Kind, w.Ref.Name))
		}
	}
	var desired int32
	var how string
	switch {
	case b.MaxUnavailable != nil:
		mu, err := intstr.GetScaledValueFromIntOrPercent(b.MaxUnavailable, int(expected), true)
		if err != nil {
			return
		}
		desired = max(expected-int32(mu), 0)
		how = fmt.Sprintf("maxUnavailable %s of %d Pods is %d, so %d must stay healthy", b.MaxUnavailable.String(), expected, mu, desired)
	case b.MinAvailable.Type == intstr.Int:
		desired = b.MinAvailable.IntVal
		how = fmt.Sprintf("minAvailable %d with %d Pods", desired, expected)
	default:
		ma, err := intstr.GetScaledValueFromIntOrPercent(b.MinAvailable, int(expected), true)
		if err != nil {
			return
		}
		desired = int32(ma)
		how = fmt.Sprintf("minAvailable %s of %d Pods rounds up to %d", b.MinAvailable.String(), expected, desired)
	}
	if expected-desired > 0 {
		return
	}
	p.Report(CrossObjectDiagnostic{At: b.BudgetAt(), Object: &b.Object, Related: rel,
		Message: fmt.Sprintf("PodDisruptionBudget %q allows no disruption, so drains never finish", b.Ref.Name),
		Detail:  detail("PodDisruptionBudget %q allows no disruption even with every Pod healthy: %s, so disruptions allowed = %d − %d = 0, and every kubectl drain of a node running one of these Pods waits forever; use maxUnavailable: 1 or more replicas than minAvailable", b.Ref.Name, how, expected, desired)})
}

// checkOverlaps reports each set of budgets that select the Pods of a
// workload once, at the set's last budget, with the others as related
// positions. Reporting each pair made n budgets over the same Pods give
// n²/2 findings (800 budgets: 320 400 warnings); a set is the same for
// every workload the same budgets select, so the findings and their
// related positions grow as the selections do.
func checkOverlaps(p *CrossObjectPass, ns *crossobject.Namespace) {
	if len(ns.PDBs) < 2 {
		return
	}
	index := make(map[*crossobject.PDB]int, len(ns.PDBs))
	for i, b := range ns.PDBs {
		index[b] = i
	}
	seen := map[string]bool{}
	var key []byte
	for _, w := range ns.Workloads {
		bs := ns.PDBsCovering(w)
		if len(bs) < 2 {
			continue
		}
		key = key[:0]
		for _, b := range bs {
			key = binary.AppendUvarint(key, uint64(index[b]))
		}
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		last := bs[len(bs)-1]
		rel := make([]crossobject.Pos, 0, len(bs))
		names := make([]string, len(bs))
		for i, b := range bs {
			names[i] = b.Ref.Name
			if b != last {
				rel = append(rel, related(b.SelectorAt(), "PodDisruptionBudget %q selects the same Pods", b.Ref.Name))
			}
		}
		rel = append(rel, related(w.LabelsAt(), "Pod labels of %s %q", w.Ref.Kind, w.Ref.Name))
		message := fmt.Sprintf("PodDisruptionBudget %q selects Pods that another budget selects", last.Ref.Name)
		both := "both"
		if len(bs) > 2 {
			message = fmt.Sprintf("PodDisruptionBudget %q selects Pods that %d other budgets select", last.Ref.Name, len(bs)-1)
			both = "all"
		}
		p.Report(CrossObjectDiagnostic{At: last.SelectorAt(), Object: &last.Object, Related: rel, Message: message,
			Detail: detail("PodDisruptionBudgets %s %s select the Pods of %s %q: the eviction API refuses every eviction of a Pod with more than one budget (500), so kubectl drain fails on every node running one; keep one budget per set of Pods", quoted(names, 5), both, w.Ref.Kind, w.Ref.Name)})
	}
}
