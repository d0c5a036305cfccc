package rules

import (
	"math"

	"github.com/podlint/podlint/finding"
)

var StartupBudgetTooShort = &Rule{
	ID: "PL102", Name: "startup-budget-too-short", Title: "startup probe gives up before the declared start-up time",
	Severity: finding.Error,
	Doc: `A startup probe holds the liveness and readiness probes back until it first succeeds. If it fails
` + "`failureThreshold`" + ` times in a row first, the kubelet kills the container ("failed startup probe") and
restarts it, and the next start faces the same budget: a start-up that always takes longer than
the budget never completes and the Pod ends in ` + "`CrashLoopBackOff`" + `.

The budget an application can rely on ([F-6](../semantics.md#f-6)) is

    B_g = initialDelaySeconds + (failureThreshold − 1) × periodSeconds

after defaulting (period 10 s, failure threshold 3): an application that answers by then always
passes. The often quoted ` + "`failureThreshold × periodSeconds`" + ` is the *lucky* maximum
(` + "`max(D, ε) + FT·P`" + `); whether a start-up between the two survives depends on the probe ticker's
phase, which nothing controls. The documented example (` + "`failureThreshold: 30`" + `, ` + "`periodSeconds: 10`" + `)
guarantees 290 s, not 300 s.

The rule compares B_g with the start-up time you state, either with the annotation
` + "`podlint.dev/expected-startup`" + ` on the workload or its pod template (` + "`\"120s\"`" + ` for every container,
` + "`\"app=120s,proxy=5s\"`" + ` per container) or with ` + "`expected-startup`" + ` in ` + "`.podlint.yaml`" + `. Without a stated
start-up time it stays silent.

**Fix:** raise ` + "`failureThreshold`" + ` until B_g covers the expected start-up, with some margin; keep
` + "`periodSeconds`" + ` short so that a fast start is noticed quickly.`,
	Check: func(p *Pass) {
		for _, c := range p.Containers() {
			if c.Type == Init || c.C.StartupProbe == nil || probeErrors(c, c.C.StartupProbe) {
				continue
			}
			tc := p.tlContainer(c)
			if tc == nil || tc.Startup == nil || !tc.ExpectedStartup.OK {
				continue
			}
			sp, exp := tc.Startup, tc.ExpectedStartup
			h := exp.Seconds
			mayKill, mustKill := sp.Outcome(h)
			if !mayKill {
				continue
			}
			v := defaulted(c.C.StartupProbe)
			budget := sp.GuaranteedBudget.Lo
			ft := int(math.Ceil((h-v.D)/v.P)) + 1
			outcome := "it is killed on every start and never gets going (CrashLoopBackOff)"
			if !mustKill {
				outcome = sprintf("depending on the probe phase it is killed %s after start, before it is up, and restarts until a start gets through", span(sp.KillDecision.Interval))
			}
			if !tc.Restarts {
				outcome = "it is killed and, because it is not restarted, the Pod fails"
			}
			how := sprintf("initialDelaySeconds %s + (failureThreshold %d − 1) × periodSeconds %s", secs(v.D), int(v.FT), secs(v.P))
			msg := sprintf("startup probe of %q guarantees only %s (%s), less than %q's expected start-up of %s (%s): %s; raise failureThreshold to %d, which guarantees %s",
				c.C.Name, secs(budget), how, c.C.Name, secs(h), describeExpected(exp), outcome, ft, secs(v.D+float64(ft-1)*v.P))
			d := Diagnostic{Path: c.Field("startupProbe.failureThreshold"), Container: c.C.Name, Message: msg}
			if path := p.expectedPath(exp); path != "" {
				d.Related = []Related{{Path: path, Message: "expected start-up stated here"}}
			}
			p.Report(d)
		}
	},
}
