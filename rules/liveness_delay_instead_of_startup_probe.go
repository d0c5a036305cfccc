package rules

import (
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
	Doc: `A liveness ` + "`initialDelaySeconds`" + ` of a minute or more (podlint's threshold: 60 s) is almost always
there to let a slow application start. It is a fixed wait that applies after **every** start and
restart, however fast the start actually was, and it has two costs:

* a container that hangs while starting, or right after a quick start, is not checked until the
  delay is over: a hang from the start is detected only
  ` + "`D + (FT − 1)·Δ + T`" + ` to ` + "`max(D, ε) + P + (FT − 1)·Δ + T`" + ` seconds after the container started
  ([F-4](../semantics.md#f-4)/[F-7](../semantics.md#f-7) with Δ = max(P, T)), and only then restarted;
* a start that is slower than usual is still killed once ` + "`D + (FT − 1)·P`" + ` has passed, so the delay
  has to be padded for the worst start, which makes the first cost worse.

A ` + "`startupProbe`" + ` (stable since Kubernetes 1.20, on by default since 1.18) solves both: it probes often,
hands over to the liveness probe as soon as the application answers, and allows a slow start up
to its budget ` + "`initialDelaySeconds + (failureThreshold − 1) × periodSeconds`" + ` ([F-6](../semantics.md#f-6)). The liveness probe
then needs no initial delay.

Containers that already have a startup probe are not reported (see ` + "`ineffective-initial-delay`" + `
for delays that a startup probe makes pointless).

**Fix:** add a startup probe with the same handler, ` + "`periodSeconds: 10`" + ` and a ` + "`failureThreshold`" + ` that covers
the delay, and remove ` + "`initialDelaySeconds`" + ` from the liveness probe.`,
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
				Message: sprintf("liveness probe of %q waits initialDelaySeconds %s after every start, even a fast one: a container that hangs while starting is detected only %s after start, and a start slower than %s is still killed; add a startupProbe (for example periodSeconds 10s with failureThreshold %d allows %s) and remove initialDelaySeconds, so liveness takes over as soon as the app answers",
					c.C.Name, secs(lv.D), span(lp.KillDecisionHang.Interval), secs(lp.KillDecision.Lo), ft, secs(float64(ft-1)*10))})
		}
	},
}
