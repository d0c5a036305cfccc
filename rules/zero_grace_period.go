package rules

import (
	"fmt"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var ZeroGracePeriod = &Rule{
	ID: "PL203", Name: "zero-grace-period", Title: "terminationGracePeriodSeconds is 0 where a graceful stop is needed",
	Severity: finding.Warning,
	Doc: `` + "`terminationGracePeriodSeconds: 0`" + ` does not mean "stop quickly", it means "no graceful stop":

* The API server deletes a Pod whose grace period is 0 at once, without waiting for the kubelet to
  stop it. The Pod disappears from ` + "`kubectl get pods`" + ` and from Service endpoints while its
  containers may still be running, and its controller creates the replacement right away.
* The kubelet still stops the containers, but with the shortest possible grace: it never hands the
  runtime less than 2 s, so every container gets SIGTERM and is SIGKILLed 2 s later.
* ` + "`preStop`" + ` hooks get no time: the kubelet runs them only while some grace is left, so they
  are cut off after 1 s when the Pod is deleted and skipped entirely when a liveness or startup
  probe kills the container (unless the probe sets its own ` + "`terminationGracePeriodSeconds`" + `).

On a **StatefulSet** this is dangerous. A StatefulSet guarantees at most one Pod per identity
(` + "`web-0`" + `, its hostname and its volumes); it waits for the old Pod object to be gone before it
creates the replacement with the same name. With a grace period of 0 the object is gone
immediately, even when the node that runs the old Pod is unreachable (a network partition), so the
replacement can start while the old one is still running and writing: two Pods with the same
identity, the situation the StatefulSet documentation warns about for force deletion, and a classic
way to corrupt a database or split a cluster's brain.

podlint reports a grace period of 0 on a StatefulSet, when a container has a ` + "`preStop`" + ` hook, and when a
container declares a shutdown time longer than 2 s (` + "`podlint.dev/expected-shutdown`" + `). Elsewhere (a
test client that sleeps, a node agent that needs no shutdown) deleting fast is usually the point, and
the rule stays silent.

**Fix:** remove the field (30 s by default) or set it to the time the application needs to shut
down. To delete a Pod quickly once, use ` + "`kubectl delete --grace-period=1`" + `.`,
	Check: func(p *Pass) {
		t := p.Spec.TerminationGracePeriodSeconds
		if t == nil || *t != 0 {
			return
		}
		g := p.GracePeriod()
		var rel []Related
		var hooks, slow []string
		for _, h := range p.Hooks() {
			if h.Kind == "preStop" {
				rel = append(rel, Related{Path: h.Path, Message: fmt.Sprintf("preStop of %q: at most 1s", h.Container.C.Name)})
				hooks = append(hooks, h.Container.C.Name)
			}
		}
		for _, c := range p.Containers() {
			if c.Type == Init {
				continue
			}
			e, _ := timeline.ExpectedShutdown(p.Workload, p.Params, c.C.Name)
			if e.OK && e.Seconds > minStopGrace {
				slow = append(slow, fmt.Sprintf("%q (%s)", c.C.Name, expectedText(e)))
				if e.Path != "" {
					rel = append(rel, Related{Path: e.Path, Message: fmt.Sprintf("expected shutdown of %q: %s", c.C.Name, expectedText(e))})
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
