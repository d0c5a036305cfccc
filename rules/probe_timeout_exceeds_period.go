package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

var ProbeTimeoutExceedsPeriod = &Rule{
	ID: "PL106", Name: "probe-timeout-exceeds-period", Title: "probe timeoutSeconds is longer than periodSeconds",
	Severity: finding.Warning,
	Fix: &FixDoc{Safety: finding.Unsafe, Text: "Lowers timeoutSeconds to periodSeconds, or, as the alternative, raises periodSeconds to timeoutSeconds " +
		"(unsafe: a slow answer that passed may now fail, or a hang is detected later)."},
	Check: func(p *Pass) {
		for _, pr := range p.Probes() {
			v := defaulted(pr.P)
			if v.T <= v.P {
				continue
			}
			det := v.hangDetection()
			name := pr.Container.Name()
			var effect string
			switch pr.Kind {
			case "livenessProbe":
				effect = fmt.Sprintf("a hang is detected (and %q restarted) only %s after it begins, not within the %s that failureThreshold × periodSeconds suggests", name, interval(det), dur(v.FT*v.P))
			case "readinessProbe":
				effect = fmt.Sprintf("a hung %q keeps receiving traffic for %s before it is marked not ready, not the %s that failureThreshold × periodSeconds suggests", name, interval(det), dur(v.FT*v.P))
			default:
				// F-6 with d = T: the kill of a start that hangs.
				tc := p.tlContainer(pr.Container)
				if tc == nil || tc.Startup == nil {
					continue
				}
				effect = fmt.Sprintf("a start-up that hangs (instead of refusing connections) is killed only %s after start, not after about %s", interval(tc.Startup.KillDecisionHang.Interval), dur(v.D+v.FT*v.P))
			}
			p.Report(Diagnostic{Path: pr.Field("timeoutSeconds"), Container: name.Name,
				Message: fmt.Sprintf("%s of %q has a timeout of %s, longer than its period of %s", pr.Name(), name, secs(v.T), secs(v.P)),
				Detail: fmt.Sprintf("Against a hanging target each probe runs %s, so probes start every %s instead of every %s and %s. Set timeoutSeconds below periodSeconds, or raise periodSeconds to match.",
					secs(v.T), secs(v.spacing()), secs(v.P), effect),
				Fixes: timeoutPeriodFixes(p, pr, v.T, v.P)})
		}
	},
}

// timeoutPeriodFixes lower the timeout to the period or, as the
// alternative, raise the period to the timeout: both change when a probe
// fails, so neither is safe.
func timeoutPeriodFixes(p *Pass, pr ProbeRef, t, period float64) []Fix {
	if t != float64(int64(t)) || period != float64(int64(period)) {
		return nil
	}
	return []Fix{
		{Title: fmt.Sprintf("Lower timeoutSeconds to %d, the period", int64(period)), Safety: finding.Unsafe,
			Ops: []manifest.Op{p.setOrInsert(pr.Field("timeoutSeconds"), fmt.Sprint(int64(period)))}},
		{Title: fmt.Sprintf("Raise periodSeconds to %d, the timeout", int64(t)), Safety: finding.Unsafe,
			Ops: []manifest.Op{p.setOrInsert(pr.Field("periodSeconds"), fmt.Sprint(int64(t)))}},
	}
}
