package rules

import "fmt"

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
			name := pr.Container.Name()
			var effect, headline string
			switch {
			case d <= sv.D:
				effect = fmt.Sprintf("The startup probe cannot succeed before its own initialDelaySeconds of %s, so this delay has no effect at all.", secs(sv.D))
				headline = fmt.Sprintf("initialDelaySeconds of the %s of %q has no use beside a startup probe", pr.Name(), name)
			case pr.Kind == "readinessProbe":
				// After a fast start the delay still holds Ready back, so
				// "no use" would be wrong; what is wrong is that it does
				// so only for fast starts.
				effect = fmt.Sprintf("It holds Ready back only when %q starts in under %s; after a slower start (the startup probe guarantees %s) the %s runs at once, with no delay.", name, secs(d), guaranteedBudget(sv.D, sv.D, int(sv.FT), sv.P), pr.Name())
				headline = fmt.Sprintf("initialDelaySeconds of the %s of %q delays Ready only after starts under %s", pr.Name(), name, secs(d))
			default:
				effect = fmt.Sprintf("It only matters when %q starts in under %s; after a slower start (the startup probe guarantees %s) the %s runs at once, with no delay.", name, secs(d), guaranteedBudget(sv.D, sv.D, int(sv.FT), sv.P), pr.Name())
				headline = fmt.Sprintf("initialDelaySeconds of the %s of %q only matters for starts under %s", pr.Name(), name, secs(d))
			}
			p.Report(Diagnostic{Path: pr.Field("initialDelaySeconds"), Container: name.Name,
				Message: headline,
				Detail: fmt.Sprintf("initialDelaySeconds %s counts from container start, not from the startup probe's success. %s Remove it and let the startup probe cover start-up.",
					secs(d), effect),
				Related: []Related{{Path: pr.Container.Field("startupProbe"), Message: fmt.Sprintf("startup probe with a guaranteed budget of %s", dur(budget))}}})
		}
	},
}
