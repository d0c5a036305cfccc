package rules

import (
	"fmt"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var ZeroGracePeriod = &Rule{
	ID: "PL203", Name: "zero-grace-period", Title: "terminationGracePeriodSeconds is negative, or 0 where a graceful stop is needed",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		t := p.Spec.TerminationGracePeriodSeconds
		if t != nil && *t < 0 {
			// Not refused: the API server turns it into 1 on the Pods,
			// with a warning (T-1); a template keeps what was written.
			p.Report(Diagnostic{Path: p.SpecPath("terminationGracePeriodSeconds"),
				Message: fmt.Sprintf("terminationGracePeriodSeconds %d is negative: Pods get 1s to stop", *t),
				Detail:  "The API server accepts it with a warning and gives the Pods a grace period of 1s, so every container is SIGKILLed 2s after SIGTERM (the kubelet's minimum) and preStop hooks are cut off. Remove the field (30s by default) or give the seconds the app needs to shut down."})
			return
		}
		if t == nil || *t != 0 {
			return
		}
		g := p.GracePeriod()
		var rel []Related
		var hooks []containerName
		var slow []string
		for _, h := range p.Hooks() {
			if h.Kind == "preStop" {
				rel = append(rel, Related{Path: h.Path, Message: fmt.Sprintf("preStop of %q: at most 1s", h.Container.Name())})
				hooks = append(hooks, h.Container.Name())
			}
		}
		for _, c := range p.Containers() {
			if c.Type == Init {
				continue
			}
			e, _ := timeline.ExpectedShutdown(p.Workload, p.Params, c.C.Name)
			if e.OK && e.Seconds > minStopGrace {
				slow = append(slow, fmt.Sprintf("%q (%s)", c.Name(), expectedText(e)))
				if e.Path != "" {
					rel = append(rel, Related{Path: e.Path, Message: fmt.Sprintf("expected shutdown of %q: %s", c.Name(), expectedText(e))})
				}
			}
		}
		sts := p.Workload.StatefulSet != nil
		if !sts && len(hooks) == 0 && len(slow) == 0 {
			// Nothing here needs a graceful stop: a test client, a sleeper,
			// a node agent that is fine with 2 s. Deleting fast is the point.
			return
		}
		headline := "terminationGracePeriodSeconds: 0 means no graceful stop"
		if sts {
			headline = "terminationGracePeriodSeconds: 0 lets two Pods of one StatefulSet identity run at once"
		}
		detail := "The API server deletes the Pod object at once, without waiting for its containers, and the kubelet SIGKILLs every container 2s after SIGTERM (its minimum)."
		if len(hooks) > 0 {
			detail += fmt.Sprintf(" The preStop hook of %s is cut off after 1s on deletion and skipped on probe kills.", quoted(hooks, 0))
		}
		if len(slow) > 0 {
			detail += fmt.Sprintf(" %s, which needs longer to shut down, is killed mid-shutdown.", strings.Join(slow, ", "))
		}
		if sts {
			detail += " On a StatefulSet this is dangerous: the replacement Pod with the same name, identity and volumes is created as soon as the object is gone, while the old one may still be running (for example on a partitioned node), so two Pods with one identity can run and write at once."
		}
		detail += " Remove the field (30s by default) or set it to the time the app needs to shut down."
		p.Report(Diagnostic{Path: g.Path, Message: headline, Detail: detail, Related: rel})
	},
}
