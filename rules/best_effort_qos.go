package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var BestEffortQoS = &Rule{
	ID: "PL601", Name: "best-effort-qos", Title: "long-running Pods get the BestEffort QoS class",
	Severity: finding.Info,
	Doc: `When no container of a Pod (init containers included) requests or limits ` + "`cpu`" + ` or ` + "`memory`" + `, the Pod's
QoS class is ` + "`BestEffort`" + `. Under node memory or disk pressure the kubelet evicts BestEffort Pods
first, and the kernel's OOM killer prefers their processes (` + "`oom_score_adj`" + ` 1000). The scheduler also
places them without reserving anything, so they land on nodes that are already full. Other
resources (` + "`ephemeral-storage`" + `, extended resources) do not change the class. On Kubernetes 1.34 and
later, pod-level ` + "`spec.resources`" + ` count as well.

The rule looks only at workloads whose Pods are meant to keep running (Deployment, StatefulSet,
DaemonSet, ReplicaSet, ReplicationController, custom resources with a Pod template). A Job, a
CronJob or a bare Pod may well be BestEffort on purpose (opportunistic batch work, a debugging
Pod), so they are not reported.

A ` + "`LimitRange`" + ` in the target namespace, or a platform that fills in resources at admission (GKE
Autopilot, some policy engines), can set default requests and limits; then the running Pods are not
BestEffort, and you can suppress the finding for that reason. Templates that look like patch
fragments (a container without an ` + "`image`" + `, as in a kustomize patch) are not reported, because the
resources are usually in the base.

**Fix:** set ` + "`resources.requests`" + ` for ` + "`cpu`" + ` and ` + "`memory`" + ` on each container (Burstable), and
` + "`limits`" + ` equal to the requests for Guaranteed.`,
	Check: func(p *Pass) {
		if !p.IsLongRunning() || len(p.Spec.Containers) == 0 || p.IsFragment() {
			return
		}
		tl := p.Timeline()
		if tl.Pod == nil || tl.Pod.QOSClass != corev1.PodQOSBestEffort {
			return
		}
		c := p.Containers()[len(p.Spec.InitContainers)]
		p.Report(Diagnostic{Path: c.Path, Container: c.C.Name,
			Message: fmt.Sprintf("Pods of this %s are BestEffort: no container requests cpu or memory", p.Workload.Kind),
			Detail: fmt.Sprintf("Under node pressure BestEffort Pods are evicted first, their processes are the OOM killer's first choice, and the scheduler reserves nothing for them. Add resources.requests for cpu and memory to %q (and the other containers), unless a LimitRange in the namespace sets defaults.",
				c.C.Name)})
	},
}
