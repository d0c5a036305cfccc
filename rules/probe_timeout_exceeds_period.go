package rules

import "github.com/podlint/podlint/finding"

var ProbeTimeoutExceedsPeriod = &Rule{
	ID: "PL106", Name: "probe-timeout-exceeds-period", Title: "probe timeoutSeconds is longer than periodSeconds",
	Severity: finding.Warning,
	Doc: `The kubelet runs each probe synchronously and its ticker drops ticks while a probe is running
([P-7](../semantics.md#p-7)). Against a target that hangs, every probe lasts ` + "`timeoutSeconds`" + `, so when
` + "`timeoutSeconds`" + ` is longer than ` + "`periodSeconds`" + ` the probes no longer start every period but back to back,
every ` + "`timeoutSeconds`" + `: the spacing becomes Δ = max(P, T) = T. The API server accepts this (there is no
cross-field check, [V-4](../semantics.md#v-4)), and the period you wrote no longer describes how fast a hang is noticed.

A hang that starts at h is detected ([F-7](../semantics.md#f-7)) in

    [h + (FT − 1)·Δ + T,  h + FT·Δ + T)

For a liveness probe with ` + "`periodSeconds: 10`" + `, ` + "`timeoutSeconds: 30`" + `, ` + "`failureThreshold: 3`" + ` that is 90 s–120 s,
not the 30 s that ` + "`failureThreshold × periodSeconds`" + ` suggests. For a readiness probe it is how long a hung
container keeps receiving traffic; for a startup probe it is how long a start that hangs (rather than
refusing connections) survives.

` + "`timeoutSeconds`" + ` equal to ` + "`periodSeconds`" + ` is not reported: probes then run back to back but the spacing
is still the period (` + "`periodSeconds: 1`" + ` with the default 1 s timeout is a common and harmless example).

**Fix:** keep ` + "`timeoutSeconds`" + ` below ` + "`periodSeconds`" + `. If the check really needs a long timeout, raise
` + "`periodSeconds`" + ` to match, and choose ` + "`failureThreshold`" + ` for the detection time you want.`,
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
