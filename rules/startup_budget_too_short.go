package rules

import (
	"fmt"
	"math"

	"github.com/podlint/podlint/finding"
)

var StartupBudgetTooShort = &Rule{
	ID: "PL102", Name: "startup-budget-too-short", Title: "startup probe gives up before the declared start-up time",
	Severity: finding.Error,
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
			// The delay as the kubelet may apply it: startedAt is kept in
			// whole seconds, so up to 1 s short (P-11).
			delay := budget - (v.FT-1)*v.P
			ft := int(math.Ceil((h-delay)/v.P)) + 1
			outcome := "it is killed on every start and never gets going (CrashLoopBackOff)"
			if !mustKill {
				outcome = fmt.Sprintf("depending on the probe phase it is killed %s after start, before it is up, and restarts until a start gets through", interval(sp.KillDecision.Interval))
			}
			if !tc.Restarts {
				outcome = "it is killed and, because it is not restarted, the Pod fails"
			}
			how := guaranteedBudget(v.D, delay, int(v.FT), v.P)
			d := Diagnostic{Path: c.Field("startupProbe.failureThreshold"), Container: c.C.Name,
				Message: fmt.Sprintf("startup probe of %q guarantees only %s, less than its expected start-up of %s", c.Name(), dur(budget), expectedText(exp)),
				Detail: fmt.Sprintf("The guaranteed budget is %s; %q is expected to need %s (%s), so %s. Raise failureThreshold to %d, which guarantees %s.",
					how, c.Name(), expectedText(exp), describeExpected(exp), outcome, ft, guaranteedBudget(v.D, delay, ft, v.P))}
			if path := p.expectedPath(exp); path != "" {
				d.Related = []Related{{Path: path, Message: "expected start-up stated here"}}
			}
			p.Report(d)
		}
	},
}
