package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var ProbeZeroValueDefaulted = &Rule{
	ID: "PL107", Name: "probe-zero-value-defaulted", Title: "explicit 0 in a probe field is replaced by the default",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		for _, pr := range p.Probes() {
			name := pr.Container.Name()
			fails := map[string]string{
				"livenessProbe":  "the container is restarted after 3 failures in a row",
				"readinessProbe": "the container is marked not ready after 3 failures in a row",
				"startupProbe":   "the container is killed after 3 failures in a row during start-up",
			}[pr.Kind]
			for _, f := range []struct {
				field string
				v     int32
				use   string
			}{
				{"periodSeconds", pr.P.PeriodSeconds, "the probe runs every 10s"},
				{"timeoutSeconds", pr.P.TimeoutSeconds, "each probe times out after 1s"},
				{"successThreshold", pr.P.SuccessThreshold, "a single success counts"},
				{"failureThreshold", pr.P.FailureThreshold, fails},
			} {
				if f.v != 0 || !p.Object.Doc.IsSet(pr.Field(f.field)) {
					continue
				}
				p.Report(Diagnostic{Path: pr.Field(f.field), Container: name.Name,
					Message: fmt.Sprintf("%s: 0 in the %s of %q is replaced by the default", f.field, pr.Name(), name),
					Detail: fmt.Sprintf("The API server replaces 0 by the default, so %s. Write the value you mean (at least 1), or remove the field.",
						f.use)})
			}
		}
	},
}
