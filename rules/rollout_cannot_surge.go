package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var RolloutCannotSurge = &Rule{
	ID: "PL701", Name: "rollout-cannot-surge", Title: "rolling update must surge a Pod that needs a node of its own",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		d := p.Workload.Deployment
		if d == nil || p.IsFragment() {
			return
		}
		tl := p.Timeline().Deployment
		if tl == nil || tl.Strategy != "RollingUpdate" || tl.Replicas.V < 1 || tl.MaxUnavailable.V != 0 {
			return
		}
		why, path := exclusiveNode(p)
		if why == "" {
			return
		}
		replicas := int(tl.Replicas.V)
		nodes := p.Params.Nodes
		// Without a node count the stall is certain only for a template
		// pinned to one node, whatever the node count. Host ports alone were
		// reported before: on the corpus of docs/precision.md all three such
		// findings were one or two replicas on clusters with spare nodes,
		// where the surge Pod schedules (a required anti-affinity, as often
		// a spread over spare nodes, was never reported without --nodes).
		pin, pinPath := pinnedNode(p)
		if pin == "" && (nodes == 0 || replicas < nodes) {
			return
		}
		var surgeRaw, unavailRaw *intstr.IntOrString
		if ru := d.Strategy.RollingUpdate; ru != nil {
			surgeRaw, unavailRaw = ru.MaxSurge, ru.MaxUnavailable
		}
		fence := fmt.Sprintf("maxUnavailable %s of %d replicas rounds down to 0 and maxSurge %s rounds up to %d",
			fencepostText(unavailRaw), replicas, fencepostText(surgeRaw), int(tl.MaxSurge.V))
		rel := []Related{{Path: tl.MaxUnavailable.Path, Message: "maxUnavailable resolves to 0 here"}}
		head := fmt.Sprintf("rolling update of this Deployment cannot start on %d nodes", nodes)
		none := fmt.Sprintf("with --nodes %d and %d replicas there is none", nodes, replicas)
		if pin != "" {
			head = "rolling update of this Deployment cannot start: its Pods are pinned to one node"
			none = fmt.Sprintf("the template pins every Pod to %s, which already runs one", pin)
			rel = append(rel, Related{Path: pinPath, Message: "every Pod must run on this node"})
		}
		p.Report(Diagnostic{Path: path, Message: head, Related: rel,
			Detail: detail("rolling update cannot start: %s, so the controller creates a surge Pod before it removes an old one, and that Pod needs a node running no Pod of this Deployment (%s); %s, so the surge Pod stays Pending and the rollout stalls until progressDeadlineSeconds; set maxUnavailable: 1 (and maxSurge: 0) or strategy: Recreate",
				fence, why, none)})
	},
}

// pinnedNode says which single node the template pins its Pods to
// (spec.nodeName, or a nodeSelector on kubernetes.io/hostname), with the
// path of that field; "" when the scheduler may choose among several.
func pinnedNode(p *Pass) (string, workload.Path) {
	if n := p.Spec.NodeName; n != "" {
		return fmt.Sprintf("node %q (nodeName)", n), p.SpecPath("nodeName")
	}
	if n, ok := p.Spec.NodeSelector["kubernetes.io/hostname"]; ok {
		return fmt.Sprintf("node %q (nodeSelector kubernetes.io/hostname)", n), p.SpecPath("nodeSelector").Field("kubernetes.io/hostname")
	}
	return "", ""
}

// fencepostText shows a maxSurge/maxUnavailable value as written, or the
// default.
func fencepostText(v *intstr.IntOrString) string {
	if v == nil {
		return "25% (default)"
	}
	return v.String()
}

// exclusiveNode says why two Pods of the template cannot share a node, with
// the full path of the field that causes it; "" when they can.
func exclusiveNode(p *Pass) (string, workload.Path) {
	var own map[string]string
	if p.Object.TemplateMeta != nil {
		own = p.Object.TemplateMeta.Labels
	}
	why, rel := timeline.ExclusiveNode(p.Spec, own)
	if why == "" {
		return "", ""
	}
	return why, p.SpecPath(rel)
}
