package rules

import (
	"fmt"
	"math"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

// longLivenessDelay is the initialDelaySeconds from which a liveness probe
// is taken to be waiting for start-up.
const longLivenessDelay = 60

var LivenessDelayInsteadOfStartupProbe = &Rule{
	ID: "PL103", Name: "liveness-delay-instead-of-startup-probe", Title: "long liveness initialDelaySeconds used instead of a startup probe",
	Severity:   finding.Warning,
	MinVersion: timeline.Version{Major: 1, Minor: 18},
	Check: func(p *Pass) {
		for _, c := range p.Containers() {
			if c.Type == Init || c.C.LivenessProbe == nil || c.C.StartupProbe != nil || probeErrors(c, c.C.LivenessProbe) {
				continue
			}
			lv := defaulted(c.C.LivenessProbe)
			if lv.D < longLivenessDelay {
				continue
			}
			tc := p.tlContainer(c)
			if tc == nil || tc.Liveness == nil {
				continue
			}
			lp := tc.Liveness
			ft := int(math.Ceil(lv.D/10)) + 1
			p.Report(Diagnostic{Path: c.Field("livenessProbe.initialDelaySeconds"), Container: c.C.Name,
				Message: fmt.Sprintf("liveness probe of %q waits %s after every start, even a fast one", c.Name(), secs(lv.D)),
				Detail: fmt.Sprintf("A container that hangs while starting is detected only %s after start, and a start slower than %s is still killed. Add a startupProbe (for example periodSeconds 10s with failureThreshold %d, which guarantees %s) and remove initialDelaySeconds, so liveness takes over as soon as the app answers.",
					startHangWindow(lv, lp.KillDecisionHang.Interval), guaranteedBudget(lv.D, lp.KillDecision.Lo-(lv.FT-1)*lv.P, int(lv.FT), lv.P), ft, guaranteedBudget(0, 0, ft, 10))})
		}
	},
}
