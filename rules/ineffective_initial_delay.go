package rules

import "github.com/podlint/podlint/finding"

var IneffectiveInitialDelay = &Rule{
	ID: "PL104", Name: "ineffective-initial-delay", Title: "initialDelaySeconds that a startup probe makes (mostly) pointless",
	Severity: finding.Info,
	Doc: `The Kubernetes documentation says that with a startup probe "liveness and readiness probe delays
do not begin until the startup probe has succeeded". The kubelet does otherwise ([X-1](../semantics.md#x-1),
[P-11](../semantics.md#p-11)): ` + "`initialDelaySeconds`" + ` is always measured from the **container start**; the startup probe only
blocks the other probes until it succeeds. So a liveness or readiness delay never adds a wait
after the startup probe's success:

* if the delay is no longer than the startup probe's own ` + "`initialDelaySeconds`" + `, the startup probe
  cannot have succeeded before it and the delay has no effect at all;
* if it is shorter than the startup probe's guaranteed budget
  ` + "`initialDelaySeconds + (failureThreshold − 1) × periodSeconds`" + ` ([F-6](../semantics.md#f-6)), it only matters for starts
  faster than the delay; after a slower start the probe runs right away.

A delay that is meant to give the application time after start-up does not do that; one meant to
cover start-up is the startup probe's job.

**Fix:** remove ` + "`initialDelaySeconds`" + ` from the liveness and readiness probes and let the startup
probe cover start-up. If the application needs time *after* its startup endpoint first answers,
make the startup probe check what the application needs (it can be the readiness endpoint).`,
	Check: func(p *Pass) {
		for _, pr := range p.Probes() {
			if pr.Kind == "startupProbe" || pr.Container.C.StartupProbe == nil || pr.P.InitialDelaySeconds <= 0 {
				continue
			}
			sv := defaulted(pr.Container.C.StartupProbe)
			budget := sv.D + (sv.FT-1)*sv.P
			d := float64(pr.P.InitialDelaySeconds)
			if d >= budget {
				continue
			}
			name := pr.Container.C.Name
			var effect string
			if d <= sv.D {
				effect = sprintf("the startup probe cannot succeed before its own initialDelaySeconds of %s, so this delay has no effect at all", secs(sv.D))
			} else {
				effect = sprintf("it only matters when %q starts in under %s; after a slower start (the startup probe allows up to %s) the %s runs at once, with no delay", name, secs(d), secs(budget), pr.Name())
			}
			p.Report(Diagnostic{Path: pr.Field("initialDelaySeconds"), Container: name,
				Message: sprintf("initialDelaySeconds %s of the %s of %q counts from container start, not from the startup probe's success: %s; remove it and let the startup probe cover start-up",
					secs(d), pr.Name(), name, effect),
				Related: []Related{{Path: pr.Container.Field("startupProbe"), Message: sprintf("startup probe with a guaranteed budget of %s", secs(budget))}}})
		}
	},
}
