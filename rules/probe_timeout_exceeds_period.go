package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var ProbeTimeoutExceedsPeriod = &Rule{
	ID: "PL106", Name: "probe-timeout-exceeds-period", Title: "probe timeoutSeconds is longer than periodSeconds",
	Severity: finding.Warning,
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
					secs(v.T), secs(v.spacing()), secs(v.P), effect)})
		}
	},
}

// suggested is the detection time periodSeconds suggests, as an equation:
// failureThreshold × periodSeconds.
func suggested(v probeValues) string {
	return dur(v.FT*v.P) + " (" + equation(term{fmt.Sprintf("failureThreshold %s × periodSeconds %s", number(v.FT), secs(v.P)), v.FT * v.P}) + ")"
}
