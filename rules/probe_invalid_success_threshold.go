package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var ProbeInvalidSuccessThreshold = &Rule{
	ID: "PL113", Name: "probe-invalid-success-threshold", Title: "liveness or startup probe has successThreshold other than 1",
	Severity: finding.Error,
	Check: func(p *Pass) {
		if !p.PodValidated() {
			return
		}
		for _, pr := range p.Probes() {
			if pr.Kind == "readinessProbe" || pr.P.SuccessThreshold == 0 || pr.P.SuccessThreshold == 1 {
				continue
			}
			p.Report(Diagnostic{Path: pr.Field("successThreshold"), Container: pr.Container.C.Name,
				Message: fmt.Sprintf("%s of %q has successThreshold %d, but only 1 is allowed", pr.Name(), pr.Container.Name(), pr.P.SuccessThreshold),
				Detail:  fmt.Sprintf("The API server accepts only 1 for %ss and rejects the Pod. Remove the field.", pr.Name())})
		}
	},
}
