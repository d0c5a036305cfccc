package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var BestEffortQoS = &Rule{
	ID: "PL601", Name: "best-effort-qos", Title: "long-running Pods get the BestEffort QoS class",
	Severity: finding.Info,
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
				c.Name())})
	},
}
