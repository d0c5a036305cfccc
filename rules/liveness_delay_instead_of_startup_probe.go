package rules

import (
	"fmt"
	"math"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/timeline"
)

// longLivenessDelay is the initialDelaySeconds from which a liveness probe
// is taken to be waiting for start-up.
const longLivenessDelay = 60

var LivenessDelayInsteadOfStartupProbe = &Rule{
	ID: "PL103", Name: "liveness-delay-instead-of-startup-probe", Title: "long liveness initialDelaySeconds used instead of a startup probe",
	Severity:   finding.Warning,
	MinVersion: timeline.Version{Major: 1, Minor: 18},
	Fix: &FixDoc{Safety: finding.Unsafe, Text: "Adds a startupProbe with the liveness probe's handler and timeout, periodSeconds 10 and a failureThreshold that covers " +
		"the initial delay, after the liveness probe, and removes its initialDelaySeconds (unsafe: readiness then also waits for the startup probe to succeed)."},
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
					interval(lp.KillDecisionHang.Interval), dur(lp.KillDecision.Lo), ft, guaranteedBudget(0, 0, ft, 10)),
				Fixes: startupProbeFix(c, lv.D)})
		}
	},
}

// startupProbeFix adds a startup probe with the liveness probe's handler
// (and timeout), polling every 10 s (or every timeoutSeconds, when longer)
// for as many tries as cover the delay d and one more, after the liveness
// probe, and removes the liveness delay. It invents nothing: the endpoint is the
// one the liveness probe already checks. Readiness then waits for the
// startup probe too, so the fix is unsafe.
func startupProbeFix(c ContainerRef, d float64) []Fix {
	lp := c.C.LivenessProbe
	var handler string
	h := lp.ProbeHandler
	var err error
	switch {
	case h.HTTPGet != nil:
		handler, err = flowYAML(h.HTTPGet)
		handler = "httpGet: " + handler
	case h.TCPSocket != nil:
		handler, err = flowYAML(h.TCPSocket)
		handler = "tcpSocket: " + handler
	case h.GRPC != nil:
		handler, err = flowYAML(h.GRPC)
		handler = "grpc: " + handler
	case h.Exec != nil:
		handler, err = flowYAML(h.Exec)
		handler = "exec: " + handler
	default:
		return nil
	}
	if err != nil {
		return nil
	}
	lines := []string{handler}
	period := int32(10)
	if lp.TimeoutSeconds > 1 {
		lines = append(lines, fmt.Sprintf("timeoutSeconds: %d", lp.TimeoutSeconds))
		period = max(period, lp.TimeoutSeconds)
	}
	ft := int(math.Ceil(d/float64(period))) + 1
	lines = append(lines, fmt.Sprintf("periodSeconds: %d", period), fmt.Sprintf("failureThreshold: %d", ft))
	return []Fix{{Title: fmt.Sprintf("Add a startupProbe with the liveness handler (%d tries %ds apart) and remove initialDelaySeconds", ft, period), Safety: finding.Unsafe,
		Ops: []manifest.Op{
			{Kind: manifest.OpInsert, Path: c.Field("startupProbe"), After: "livenessProbe", Lines: lines},
			deleteOp(c.Field("livenessProbe.initialDelaySeconds")),
		}}}
}
