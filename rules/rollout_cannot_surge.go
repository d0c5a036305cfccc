package rules

import (
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var RolloutCannotSurge = &Rule{
	ID: "PL701", Name: "rollout-cannot-surge", Title: "rolling update must surge a Pod that needs a node of its own",
	Severity: finding.Warning,
	Doc: `A RollingUpdate Deployment resolves ` + "`maxSurge`" + ` and ` + "`maxUnavailable`" + ` against its replicas the way the
controller's ` + "`ResolveFenceposts`" + ` does: a percentage of ` + "`maxSurge`" + ` rounds **up**, one of ` + "`maxUnavailable`" + `
rounds **down**, and only when both come out 0 is ` + "`maxUnavailable`" + ` set to 1 (defaults: 25 % each, so 1 to 3
replicas give surge 1, unavailable 0; see [O-1](../semantics.md#o-1)).
With ` + "`maxUnavailable`" + ` resolving to 0 the controller first creates a surge Pod and removes an old Pod only
when the new one is available.

When the Pods need a node of their own, that surge Pod needs a node that runs no Pod of the
Deployment:

* a container (or sidecar) with a ` + "`hostPort`" + `, or any declared port under ` + "`hostNetwork: true`" + `: the
  scheduler's NodePorts filter allows one Pod per node and port ([O-2](../semantics.md#o-2));
* a required pod anti-affinity on ` + "`kubernetes.io/hostname`" + ` whose selector matches the Pod's own labels.

With as many replicas as eligible nodes, no such node exists: the surge Pod stays Pending, no old
Pod is removed, and the rollout stalls until ` + "`progressDeadlineSeconds`" + ` marks it failed (the
controller does not roll back). Give the node count with ` + "`--nodes N`" + `: podlint then reports only when
the replicas leave no node free (replicas ≥ N). Without it, podlint reports host ports only (Pods with
a host port are placed one per node by design, usually on as many nodes as replicas) and says the
assumption: the rollout needs a node where the port is free; a required anti-affinity is reported
only with ` + "`--nodes`" + `, because it is as often a spread over spare nodes.

The rule reads ` + "`spec.replicas`" + `; with a HorizontalPodAutoscaler in the run, ` + "`podlint timeline`" + ` shows the
rollout at its minimum and maximum replicas.

**Fix:** set ` + "`maxUnavailable: 1`" + ` (and ` + "`maxSurge: 0`" + ` if there is never a free node), so the controller
frees a node before it starts the new Pod; or use ` + "`strategy: Recreate`" + `.`,
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
		fence := sprintf("maxUnavailable %s of %d replicas rounds down to 0 and maxSurge %s rounds up to %d",
			fencepostText(unavailRaw), replicas, fencepostText(surgeRaw), int(tl.MaxSurge.V))
		var msg string
		if nodes > 0 {
			msg = sprintf("rolling update cannot start: %s, so the controller creates a surge Pod before it removes an old one, and that Pod needs a node running no Pod of this Deployment (%s); with --nodes %d and %d replicas there is none, so the surge Pod stays Pending and the rollout stalls until progressDeadlineSeconds; set maxUnavailable: 1 (and maxSurge: 0) or strategy: Recreate",
				fence, why, nodes, replicas)
		} else {
			msg = sprintf("rolling update needs a node running no Pod of this Deployment (%s): %s, so the controller creates a surge Pod before it removes an old one; with as many eligible nodes as replicas (%d) that Pod stays Pending and the rollout stalls (node count unknown: pass --nodes N); set maxUnavailable: 1 or strategy: Recreate",
				why, fence, replicas)
		}
		p.Report(Diagnostic{Path: path, Message: msg, Related: []Related{{Path: tl.MaxUnavailable.Path, Message: "maxUnavailable resolves to 0 here"}}})
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
func exclusiveNode(p *Pass) (string, string) {
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
