package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

var ProbeTimeoutExceedsPeriod = &Rule{
	ID: "PL106", Name: "probe-timeout-exceeds-period", Title: "probe timeoutSeconds is longer than periodSeconds",
	Severity: finding.Warning,
	Fix: &FixDoc{Safety: finding.Unsafe, Text: "For a liveness or startup probe, raises periodSeconds to timeoutSeconds (no answer that passes today fails, so no kill is added), " +
		"or, as the alternative, lowers timeoutSeconds to periodSeconds (an answer slower than the period now fails: restarts can be added); " +
		"for a readiness probe, lowers timeoutSeconds first. Unsafe either way: a failure that does not hang is detected later, or a slow answer that passed now fails."},
	Check: func(p *Pass) {
		for _, pr := range p.Probes() {
			v := defaulted(pr.P)
			if v.T <= v.P {
				continue
			}
			name := pr.Container.Name()
			var effect string
			switch pr.Kind {
			case "livenessProbe":
				effect = fmt.Sprintf("a hang is detected (and %q restarted) only %s after it begins, not within the %s that periodSeconds suggests", name, v.hangText(), suggested(v))
			case "readinessProbe":
				effect = fmt.Sprintf("a hung %q keeps receiving traffic for %s before it is marked not ready, not the %s that periodSeconds suggests", name, v.hangText(), suggested(v))
			default:
				// F-6 with d = T: the kill of a start that hangs.
				tc := p.tlContainer(pr.Container)
				if tc == nil || tc.Startup == nil {
					continue
				}
				effect = fmt.Sprintf("a start-up that hangs (instead of refusing connections) is killed only %s after start, not after about %s", startHangWindow(v, tc.Startup.KillDecisionHang.Interval),
					dur(v.D+v.FT*v.P)+" ("+equation(term{"initialDelaySeconds " + secs(v.D), v.D}, term{fmt.Sprintf("failureThreshold %s × periodSeconds %s", number(v.FT), secs(v.P)), v.FT * v.P})+")")
			}
			p.Report(Diagnostic{Path: pr.Field("timeoutSeconds"), Container: name.Name,
				Message: fmt.Sprintf("%s of %q has a timeout of %s, longer than its period of %s", pr.Name(), name, secs(v.T), secs(v.P)),
				Detail: fmt.Sprintf("Against a hanging target each probe runs %s, so probes start every %s instead of every %s and %s. Set timeoutSeconds below periodSeconds, or raise periodSeconds to match.",
					secs(v.T), secs(v.spacing()), secs(v.P), effect),
				Fixes: timeoutPeriodFixes(p, pr, v.T, v.P)})
		}
	},
}

// suggested is the detection time periodSeconds suggests, as an equation:
// failureThreshold × periodSeconds.
func suggested(v probeValues) string {
	return dur(v.FT*v.P) + " (" + equation(term{fmt.Sprintf("failureThreshold %s × periodSeconds %s", number(v.FT), secs(v.P)), v.FT * v.P}) + ")"
}

// timeoutPeriodFixes lower the timeout to the period or raise the period
// to the timeout. Both change when a probe fails, so neither is safe; the
// first is the one podlint fix applies, chosen by what it does at run
// time. For a liveness or startup probe a failure is a kill: raising the
// period fails no answer that passes today (against a hang, probes already
// start every timeout), while lowering the timeout fails the answers that
// take longer than the period, and can add restarts. For a readiness
// probe a failure only takes the Pod out of Service endpoints, and the
// shorter timeout finds a hang sooner.
func timeoutPeriodFixes(p *Pass, pr ProbeRef, t, period float64) []Fix {
	if t != float64(int64(t)) || period != float64(int64(period)) {
		return nil
	}
	lower := Fix{Safety: finding.Unsafe, Ops: []manifest.Op{p.setOrInsert(pr.Field("timeoutSeconds"), fmt.Sprint(int64(period)))}}
	raise := Fix{Safety: finding.Unsafe, Ops: []manifest.Op{p.setOrInsert(pr.Field("periodSeconds"), fmt.Sprint(int64(t)))}}
	if pr.Kind == "readinessProbe" {
		lower.Title = fmt.Sprintf("Lower timeoutSeconds to %d, the period (a hang takes the Pod out of endpoints sooner; an answer slower than %ds now marks it not ready)", int64(period), int64(period))
		raise.Title = fmt.Sprintf("Raise periodSeconds to %d, the timeout (readiness is checked every %ds, as it is against a hang today)", int64(t), int64(t))
		return []Fix{lower, raise}
	}
	raise.Title = fmt.Sprintf("Raise periodSeconds to %d, the timeout (adds no kills: every answer that passes today still passes)", int64(t))
	lower.Title = fmt.Sprintf("Lower timeoutSeconds to %d, the period (an answer slower than %ds now fails: can add restarts)", int64(period), int64(period))
	return []Fix{raise, lower}
}
