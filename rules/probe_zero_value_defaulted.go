package rules

import "github.com/podlint/podlint/finding"

var ProbeZeroValueDefaulted = &Rule{
	ID: "PL107", Name: "probe-zero-value-defaulted", Title: "explicit 0 in a probe field is replaced by the default",
	Severity: finding.Warning,
	Doc: `The documentation gives a minimum of 1 for ` + "`periodSeconds`" + `, ` + "`timeoutSeconds`" + `, ` + "`successThreshold`" + ` and
` + "`failureThreshold`" + `, but the API server does not reject 0: validation only refuses negative values, and
the defaulting step treats 0 as "not set" ([P-1](../semantics.md#p-1), [P-2](../semantics.md#p-2), [X-5](../semantics.md#x-5)). An explicit 0 is therefore
silently replaced:

| field | 0 becomes |
|---|---|
| ` + "`periodSeconds`" + ` | 10 s |
| ` + "`timeoutSeconds`" + ` | 1 s |
| ` + "`successThreshold`" + ` | 1 |
| ` + "`failureThreshold`" + ` | 3 |

Whatever 0 was meant to say ("probe continuously", "no timeout", "never fail", "kill on the first
failure"), the probe runs with the default instead, and ` + "`kubectl get -o yaml`" + ` shows the default,
not the 0 in your manifest. ` + "`initialDelaySeconds: 0`" + ` is not reported: 0 is its real default.

podlint reads the manifest itself to tell a written ` + "`0`" + ` from an omitted field.

**Fix:** write the value you mean (1 or more), or remove the field to take the default knowingly.`,
	Check: func(p *Pass) {
		for _, pr := range p.Probes() {
			name := pr.Container.C.Name
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
				if f.v != 0 || !p.explicitlySet(pr.Field(f.field)) {
					continue
				}
				p.Report(Diagnostic{Path: pr.Field(f.field), Container: name,
					Message: sprintf("%s: 0 in the %s of %q is not kept: the API server replaces 0 by the default, so %s; write the value you mean (at least 1), or remove the field",
						f.field, pr.Name(), name, f.use)})
			}
		}
	},
}
