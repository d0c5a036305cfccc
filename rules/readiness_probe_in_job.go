package rules

import "github.com/podlint/podlint/finding"

var ReadinessProbeInJob = &Rule{
	ID: "PL707", Name: "readiness-probe-in-job", Title: "a Job's readiness probe changes nothing but its ready count",
	Severity: finding.Info,
	Doc: `Readiness decides whether a Pod receives Service traffic and paces rolling updates. A Job has no
rolling update, and its Pods usually receive no traffic, so a readiness probe on a Job's container
only changes the Job's ` + "`status.ready`" + ` count; the Job controller counts succeeded and failed Pods, not
Ready ones (see [O-9](../semantics.md#o-9)). The probe
still runs for the whole run and costs a request every ` + "`periodSeconds`" + `. Often it was copied from a
Deployment together with the container.

When a Service in the same run selects the Job's Pods (an indexed Job whose Pods talk to each
other through a headless Service), readiness decides their endpoints and this rule is silent.

**Fix:** remove the ` + "`readinessProbe`" + ` from the Job's containers, or keep it if a Service outside the
run selects the Pods, and say so in a suppression.`,
	Check: func(p *Pass) {
		if p.Workload.Job == nil {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Regular || c.C.ReadinessProbe == nil {
				continue
			}
			p.Report(Diagnostic{Path: c.Field("readinessProbe"), Container: c.C.Name,
				Message: sprintf("container %q of this %s has a readinessProbe: the Job controller counts succeeded and failed Pods, not Ready ones, and no Service in the run selects these Pods, so the probe only changes the Job's ready count; remove it", c.C.Name, p.Workload.Kind)})
		}
	},
}
