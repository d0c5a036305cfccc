package rules

import "fmt"

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

var ProbeInvalidSuccessThreshold = &Rule{
	ID: "PL113", Name: "probe-invalid-success-threshold", Title: "liveness or startup probe has successThreshold other than 1",
	Severity: finding.Error,
	Fix:      &FixDoc{Safety: finding.Safe, Text: "Sets successThreshold to 1, the only value the API server accepts for a liveness or startup probe (and the default)."},
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
				Detail:  fmt.Sprintf("The API server accepts only 1 for %ss and rejects the Pod. Remove the field.", pr.Name()),
				Fixes:   successThresholdFix(pr)})
		}
	},
}

// successThresholdFix sets the threshold to 1: the one value allowed,
// which the API server would default it to.
func successThresholdFix(pr ProbeRef) []Fix {
	return []Fix{{Title: "Set successThreshold to 1", Safety: finding.Safe, Ops: []manifest.Op{setOp(pr.Field("successThreshold"), "1")}}}
}
