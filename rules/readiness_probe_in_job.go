package rules

import (
	"fmt"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
)

var ReadinessProbeInJob = &Rule{
	ID: "PL707", Name: "readiness-probe-in-job", Title: "a Job's readiness probe changes nothing but its ready count",
	Severity: finding.Info,
	Check: func(p *Pass) {
		if p.Workload.Job == nil {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Regular || c.C.ReadinessProbe == nil {
				continue
			}
			p.Report(Diagnostic{Path: c.Field("readinessProbe"), Container: c.C.Name,
				Message: fmt.Sprintf("readinessProbe of %q in a %s changes only the Job's ready count", c.Name(), p.Workload.Kind),
				Detail:  detail("container %q of this %s has a readinessProbe: the Job controller counts succeeded and failed Pods, not Ready ones, and no Service in the run selects these Pods, so the probe only changes the Job's ready count; remove it", c.Name(), p.Workload.Kind)})
		}
	},
	// A readiness probe in a Job matters when a Service selects its Pods,
	// which only the cross-object view knows.
	SupersededBy: &Supersession{
		When: func(_ *crossobject.View, w *crossobject.Workload, ns *crossobject.Namespace, _ string) bool {
			return w != nil && len(ns.ServicesSelecting(w)) > 0
		}},
}
