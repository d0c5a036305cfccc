package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var ReadinessProbeGracePeriod = &Rule{
	ID: "PL109", Name: "readiness-probe-grace-period", Title: "readiness probe sets terminationGracePeriodSeconds",
	Severity: finding.Error,
	Check: func(p *Pass) {
		for _, pr := range p.Probes() {
			if pr.Kind != "readinessProbe" || pr.P.TerminationGracePeriodSeconds == nil {
				continue
			}
			p.Report(Diagnostic{Path: pr.Field("terminationGracePeriodSeconds"), Container: pr.Container.C.Name,
				Message: fmt.Sprintf("readiness probe of %q sets terminationGracePeriodSeconds, which is not allowed", pr.Container.Name()),
				Detail: fmt.Sprintf("A readiness failure never kills the container, so the field is not allowed on readiness probes and the API server rejects the %s. Remove it, or set it on the liveness or startup probe.",
					p.Workload.Kind)})
		}
	},
}
