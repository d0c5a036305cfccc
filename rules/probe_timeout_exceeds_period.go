package rules

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
			det := v.hangDetection()
			name := pr.Container.C.Name
			var effect string
			switch pr.Kind {
			case "livenessProbe":
				effect = sprintf("a hang is detected (and %q restarted) only %s after it begins, not within the %s that failureThreshold × periodSeconds suggests", name, span(det), secs(v.FT*v.P))
			case "readinessProbe":
				effect = sprintf("a hung %q keeps receiving traffic for %s before it is marked not ready, not the %s that failureThreshold × periodSeconds suggests", name, span(det), secs(v.FT*v.P))
			default:
				// F-6 with d = T: the kill of a start that hangs.
				tc := p.tlContainer(pr.Container)
				if tc == nil || tc.Startup == nil {
					continue
				}
				effect = sprintf("a start-up that hangs (instead of refusing connections) is killed only %s after start, not after about %s", span(tc.Startup.KillDecisionHang.Interval), secs(v.D+v.FT*v.P))
			}
			p.Report(Diagnostic{Path: pr.Field("timeoutSeconds"), Container: name,
				Message: sprintf("%s of %q has timeoutSeconds %s, longer than periodSeconds %s: against a hanging target each probe runs %s, so probes start every %s instead of every %s and %s; set timeoutSeconds below periodSeconds, or raise periodSeconds to match",
					pr.Name(), name, secs(v.T), secs(v.P), secs(v.T), secs(v.spacing()), secs(v.P), effect)})
		}
	},
}
