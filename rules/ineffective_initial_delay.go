package rules

import "github.com/podlint/podlint/finding"

var IneffectiveInitialDelay = &Rule{
	ID: "PL104", Name: "ineffective-initial-delay", Title: "initialDelaySeconds that a startup probe makes (mostly) pointless",
	Severity: finding.Info,
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
