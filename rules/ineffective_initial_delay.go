package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

var IneffectiveInitialDelay = &Rule{
	ID: "PL104", Name: "ineffective-initial-delay", Title: "initialDelaySeconds that a startup probe makes (mostly) pointless",
	Severity: finding.Info,
	// Opt-in: the delay it finds changes nothing at runtime but after a
	// start faster than the delay, so it is a clean-up, not a failure; of
	// its 18 findings on the corpus of docs/precision.md, none of the 8
	// sampled was one an operator would act on.
	DefaultOff: true,
	Fix: &FixDoc{Safety: finding.Safe, Text: "Removes initialDelaySeconds (or sets it to 0 in a flow mapping): safe when the startup probe's own delay is at least as long, " +
		"so the delay has no effect; unsafe otherwise (the probe then runs at once after a fast start)."},
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
				Related: []Related{{Path: pr.Container.Field("startupProbe"), Message: fmt.Sprintf("startup probe with a guaranteed budget of %s", dur(budget))}},
				Fixes:   initialDelayFixes(pr, d <= sv.D)})
		}
	},
}

// initialDelayFixes remove the delay, or set it to 0 (its default) where
// the field cannot be deleted in place (a flow mapping). Safe when the
// delay has no effect (noEffect: the startup probe waits at least as
// long), unsafe otherwise.
func initialDelayFixes(pr ProbeRef, noEffect bool) []Fix {
	safety := finding.Unsafe
	if noEffect {
		safety = finding.Safe
	}
	path := pr.Field("initialDelaySeconds")
	return []Fix{
		{Title: "Remove initialDelaySeconds", Safety: safety, Ops: []manifest.Op{deleteOp(path)}},
		{Title: "Set initialDelaySeconds to 0", Safety: safety, Ops: []manifest.Op{setOp(path, "0")}},
	}
}
