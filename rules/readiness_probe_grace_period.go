package rules

import "github.com/podlint/podlint/finding"

var ReadinessProbeGracePeriod = &Rule{
	ID: "PL109", Name: "readiness-probe-grace-period", Title: "readiness probe sets terminationGracePeriodSeconds",
	Severity: finding.Error,
	Doc: `A probe's ` + "`terminationGracePeriodSeconds`" + ` is the grace period of the kill that a *failing* liveness or
startup probe triggers. A readiness probe never kills anything (it only takes the Pod out of its
Services), so the API server rejects the field on readiness probes
(` + "`must not be set for readinessProbes`" + `, [P-2](../semantics.md#p-2), [V-3](../semantics.md#v-3)): the Pod, or the Deployment, Job or other
object whose template holds it, is refused as a whole. This applies to sidecars too.

**Fix:** remove ` + "`terminationGracePeriodSeconds`" + ` from the readiness probe. To control how long the
container gets to shut down, set ` + "`spec.terminationGracePeriodSeconds`" + ` (pod deletion) or the field on
the liveness or startup probe (probe kills).`,
	Check: func(p *Pass) {
		for _, pr := range p.Probes() {
			if pr.Kind != "readinessProbe" || pr.P.TerminationGracePeriodSeconds == nil {
				continue
			}
			p.Report(Diagnostic{Path: pr.Field("terminationGracePeriodSeconds"), Container: pr.Container.C.Name,
				Message: sprintf("readiness probe of %q sets terminationGracePeriodSeconds, which is not allowed on readiness probes (a readiness failure never kills the container): the API server rejects the %s; remove it, or set it on the liveness or startup probe",
					pr.Container.C.Name, p.Workload.Kind)})
		}
	},
}
