package rules

import (
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
			Message: sprintf("no container of this %s requests or limits cpu or memory, so its Pods are BestEffort: under node pressure they are evicted first and their processes are the OOM killer's first choice, and the scheduler reserves nothing for them; add resources.requests for cpu and memory to %q (and the other containers), unless a LimitRange in the namespace sets defaults",
				p.Workload.Kind, c.C.Name)})
	},
}
