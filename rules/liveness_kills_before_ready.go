package rules

import (
	"fmt"
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
	name := c.Name()

	var h float64
	var against, short, relMsg string
	var relPath workload.Path
	switch exp := tc.ExpectedStartup; {
	case exp.OK:
		h = exp.Seconds
		short = fmt.Sprintf("its expected start-up of %s", expectedText(exp))
		against = fmt.Sprintf("its expected start-up of %s (%s)", expectedText(exp), describeExpected(exp))
		relPath, relMsg = p.expectedPath(exp), "expected start-up stated here"
	case c.C.ReadinessProbe != nil && c.C.ReadinessProbe.InitialDelaySeconds > 0:
		h = float64(c.C.ReadinessProbe.InitialDelaySeconds)
		short = fmt.Sprintf("its readiness probe runs at %s", secs(h))
		against = fmt.Sprintf("its readiness probe first runs at %s (readiness initialDelaySeconds)", secs(h))
		relPath, relMsg = c.Field("readinessProbe.initialDelaySeconds"), "the readiness probe waits this long"
	default:
		return
	}
	mayKill, mustKill := lp.Outcome(h)
	if !mayKill {
		return
	}

	var verb, when, whenShort string
	if mustKill {
		verb = "kills"
		when = fmt.Sprintf("%s after start", killWindow(lv.D, lv.FT, lv.P, kill))
		whenShort = fmt.Sprintf("%s after start", interval(kill))
	} else {
		verb = "may kill"
		when = fmt.Sprintf("%s after start, depending on the probe phase,", killWindow(lv.D, lv.FT, lv.P, kill))
		whenShort = fmt.Sprintf("as early as %s after start", dur(kill.Lo))
	}
	outcome := "it is killed on every start and never becomes Ready (CrashLoopBackOff)"
	if !mustKill {
		outcome = "it is killed on unlucky starts and restarts until a start happens to get through"
	}
	if rs := lp.UnhealthyRestarts; len(rs) > 0 && lp.NextStart != nil {
		// The timeline's schedule for a container unhealthy at every
		// start (its key numbers say the same): the waits rise and fall,
		// and the sentence says why.
		while := ":"
		if !mustKill {
			while = "; while it is killed,"
		}
		outcome += fmt.Sprintf("%s each run lasts %s from start to exit and the restarts wait %s; %s",
			while, timeline.FormatWait(lp.NextStart.Interval), timeline.RestartWaits(rs), timeline.ProbeKillRestartRule)
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
	d := Diagnostic{Path: c.Field("livenessProbe"), Container: name.Name,
		Message: fmt.Sprintf("liveness probe %s %q %s, before %s", verb, name, whenShort, short),
		Detail: fmt.Sprintf("The probe %s %q %s if it is not answering yet, before %s. If the app needs that long, %s. Add a startupProbe that allows the start-up time (for example periodSeconds %s with failureThreshold %d, which guarantees %s), or raise the liveness initialDelaySeconds.",
			verb, name, when, against, outcome, secs(lv.P), ft, guaranteedBudget(0, 0, ft, lv.P))}
	if relPath != "" {
		d.Related = []Related{{Path: relPath, Message: relMsg}}
	}
	p.Report(d)
}
