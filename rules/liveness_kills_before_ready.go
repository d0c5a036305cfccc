package rules

import (
	"math"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

var LivenessKillsBeforeReady = &Rule{
	ID: "PL101", Name: "liveness-kills-before-ready", Title: "liveness probe kills the container before it can have started",
	Severity: finding.Error,
	Check: func(p *Pass) {
		for _, c := range p.Containers() {
			if c.Type == Init || c.C.LivenessProbe == nil || c.C.StartupProbe != nil {
				continue
			}
			if probeErrors(c, c.C.LivenessProbe) {
				continue // the probe never counts a failure (PL108)
			}
			tc := p.tlContainer(c)
			if tc == nil || tc.Liveness == nil {
				continue
			}
			checkLivenessBeforeReady(p, c, tc)
		}
	},
}

func checkLivenessBeforeReady(p *Pass, c ContainerRef, tc *timeline.Container) {
	lp := tc.Liveness
	kill := lp.KillDecision.Interval
	lv := defaulted(c.C.LivenessProbe)
	name := c.C.Name

	var h float64
	var against, relMsg string
	var relPath workload.Path
	switch exp := tc.ExpectedStartup; {
	case exp.OK:
		h = exp.Seconds
		against = sprintf("its expected start-up of %s (%s)", secs(h), describeExpected(exp))
		relPath, relMsg = p.expectedPath(exp), "expected start-up stated here"
	case c.C.ReadinessProbe != nil && c.C.ReadinessProbe.InitialDelaySeconds > 0:
		h = float64(c.C.ReadinessProbe.InitialDelaySeconds)
		against = sprintf("its readiness probe first runs at %s (readiness initialDelaySeconds)", secs(h))
		relPath, relMsg = c.Field("readinessProbe.initialDelaySeconds"), "the readiness probe waits this long"
	default:
		return
	}
	mayKill, mustKill := lp.Outcome(h)
	if !mayKill {
		return
	}

	var verb, when string
	if mustKill {
		verb = "kills"
		when = sprintf("%s after start", span(kill))
	} else {
		verb = "may kill"
		when = sprintf("as early as %s after start (decision at %s, depending on the probe phase)", secs(kill.Lo), span(kill))
	}
	outcome := "it is killed on every start and never becomes Ready (CrashLoopBackOff)"
	if !mustKill {
		outcome = "it is killed on unlucky starts and restarts until a start happens to get through"
	}
	if !tc.Restarts {
		outcome = "it is killed and, because it is not restarted, the Pod fails"
		if !mustKill {
			outcome = "it may be killed and, because it is not restarted, the Pod then fails"
		}
	}
	// A startup probe on the liveness period whose guaranteed budget
	// (FT−1)·P covers h.
	ft := int(math.Ceil(h/lv.P)) + 1
	msg := sprintf("liveness probe %s %q %s if it is not answering yet, before %s; if the app needs that long, %s; add a startupProbe that allows the start-up time (for example periodSeconds %s with failureThreshold %d guarantees %s), or raise the liveness initialDelaySeconds",
		verb, name, when, against, outcome, secs(lv.P), ft, secs(float64(ft-1)*lv.P))
	d := Diagnostic{Path: c.Field("livenessProbe"), Container: name, Message: msg}
	if relPath != "" {
		d.Related = []Related{{Path: relPath, Message: relMsg}}
	}
	p.Report(d)
}
