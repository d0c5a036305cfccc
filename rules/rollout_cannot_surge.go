package rules

import (
	"fmt"

	"strings"

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
		if nodes > 0 && replicas < nodes {
			return
		}
		// Without a node count, only host ports: their Pods are placed one
		// per node by design, usually on exactly as many nodes. A required
		// anti-affinity is as often a spread over spare nodes (on the shared
		// corpus 8 of 18 such findings held for the clusters the manifests
		// were written for), so it needs --nodes.
		if nodes == 0 && !strings.Contains(why, "port") {
			return
		}
		var surgeRaw, unavailRaw *intstr.IntOrString
		if ru := d.Strategy.RollingUpdate; ru != nil {
			surgeRaw, unavailRaw = ru.MaxSurge, ru.MaxUnavailable
		}
		fence := fmt.Sprintf("maxUnavailable %s of %d replicas rounds down to 0 and maxSurge %s rounds up to %d",
			fencepostText(unavailRaw), replicas, fencepostText(surgeRaw), int(tl.MaxSurge.V))
		var msg, head string
		if nodes > 0 {
			head = fmt.Sprintf("rolling update of this Deployment cannot start on %d nodes", nodes)
			msg = detail("rolling update cannot start: %s, so the controller creates a surge Pod before it removes an old one, and that Pod needs a node running no Pod of this Deployment (%s); with --nodes %d and %d replicas there is none, so the surge Pod stays Pending and the rollout stalls until progressDeadlineSeconds; set maxUnavailable: 1 (and maxSurge: 0) or strategy: Recreate",
				fence, why, nodes, replicas)
		} else {
			head = "rolling update needs a node that runs no Pod of this Deployment"
			msg = detail("rolling update needs a node running no Pod of this Deployment (%s): %s, so the controller creates a surge Pod before it removes an old one; with as many eligible nodes as replicas (%d) that Pod stays Pending and the rollout stalls (node count unknown: pass --nodes N); set maxUnavailable: 1 or strategy: Recreate",
				why, fence, replicas)
		}
		p.Report(Diagnostic{Path: path, Message: head, Detail: msg, Related: []Related{{Path: tl.MaxUnavailable.Path, Message: "maxUnavailable resolves to 0 here"}}})
	},
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
