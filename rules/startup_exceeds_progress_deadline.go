package rules

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var StartupExceedsProgressDeadline = &Rule{
	ID: "PL501", Name: "startup-exceeds-progress-deadline", Title: "a Pod may need longer to become Ready than the Deployment's progress deadline",
	Severity: finding.Warning,
	Doc: `A Deployment rollout is watched by a stall detector: each sign of progress (a new ReplicaSet, a
Pod scaled up or down, a Pod turning **Ready**, a Pod turning available) refreshes the
` + "`Progressing`" + ` condition, and when nothing happens for ` + "`progressDeadlineSeconds`" + ` (default 600 s) the
condition becomes ` + "`Progressing=False`" + ` with reason ` + "`ProgressDeadlineExceeded`" + ` ([Deployment](../semantics.md#deployment)). The
rollout itself goes on, but ` + "`kubectl rollout status`" + `, Argo CD, Flux and most CD pipelines report it
as failed, and some roll back.

Between the creation of a new Pod and its Ready condition there is no other progress event, so
a Pod that needs longer than the deadline to become Ready fails the rollout although it would
have come up ([E-9](../semantics.md#e-9), [F-13](../semantics.md#f-13)). podlint computes creation → Ready from the spec ([F-9](../semantics.md#f-9), [F-8](../semantics.md#f-8)): the start-up
chain of init containers and sidecars, then the slowest container's probes. Scheduling, image
pulls and init container run times are unknown and count as 0, so the real times are longer
still. It reports two cases:

* **always too late:** even the *earliest* Ready is not within the deadline, for example a
  readiness probe with ` + "`initialDelaySeconds: 600`" + ` under the default deadline of 600 s. Every rollout
  is marked failed.
* **too late for a slow start:** the *latest* Ready the spec allows passes the deadline, and that
  allowance is explicit: a startup probe, which lets the app start for up to
  ` + "`max(initialDelaySeconds, ε) + failureThreshold × periodSeconds`" + `, a start-up time stated with
  ` + "`podlint.dev/expected-startup`" + `, or init containers and sidecars that alone take that long. A lenient
  liveness probe (a high ` + "`failureThreshold`" + ` for a flaky dependency) is no sign of a slow start, so it
  does not count here.

` + "`minReadySeconds`" + ` is not added: the Pod turning Ready is itself progress, and validation keeps
` + "`minReadySeconds`" + ` below the deadline.

A generous startup probe is often a deliberate safety margin for an app that usually starts in
seconds. If you know the start-up time, state it with the annotation
` + "`podlint.dev/expected-startup: \"45s\"`" + ` (or ` + "`\"app=45s\"`" + `) on the Deployment or its Pod template, or with
` + "`--start-time`" + `; podlint then uses it instead of the worst case the probes allow.

Only ` + "`apps/v1`" + ` (and ` + "`apps/v1beta2`" + `) Deployments default the deadline to 600 s; the long-removed
` + "`extensions/v1beta1`" + ` and ` + "`apps/v1beta1`" + ` had no deadline unless one was set.

**Fix:** raise ` + "`progressDeadlineSeconds`" + ` above the start-up allowance plus the image pull time, or
tighten the allowance (` + "`failureThreshold`" + ` of the startup probe) to what the app needs.`,
	Check: func(p *Pass) {
		d := p.Workload.Deployment
		if d == nil || (d.ProgressDeadlineSeconds == nil && legacyDeploymentAPI(p)) {
			return
		}
		t := p.Timeline()
		if t == nil || t.Deployment == nil || t.Pod == nil || t.Pod.Ready == nil {
			return
		}
		pds := t.Deployment.ProgressDeadline
		deadline := sprintf("progressDeadlineSeconds %s", durText(pds.V))
		if !pds.Set {
			deadline = sprintf("the default progressDeadlineSeconds of %s", durText(pds.V))
		}
		unknown := ""
		if len(t.Pod.Ready.Plus) > 0 {
			unknown = ", plus scheduling and image pulls"
		}
		worst := t.Pod.Ready.Interval
		// The container whose Ready comes last, in the best case when even
		// that misses the deadline, else in the worst case.
		certain := worst.Lo >= pds.V
		if !certain && (worst.HiUnbounded || worst.Hi <= pds.V) {
			return
		}
		var slow *timeline.Container
		var slowAt timeline.Interval
		for _, c := range t.Containers {
			if c.Type == timeline.Init || c.Ready == nil {
				continue
			}
			at := c.Start.Add(*c.Ready).Interval
			if slow == nil || (certain && at.Lo > slowAt.Lo) || (!certain && at.Max() > slowAt.Max()) {
				slow, slowAt = c, at
			}
		}
		if slow == nil {
			return
		}
		var msg, causePath string
		if certain {
			var cause string
			cause, causePath = earliestReadyCause(slow)
			msg = sprintf("a new Pod cannot become Ready before %s after its creation (%s)%s, which is not within %s: every rollout is marked ProgressDeadlineExceeded, which fails kubectl rollout status and most CD tools although the rollout goes on; raise progressDeadlineSeconds well above %s plus the image pull time",
				durText(worst.Lo), cause, unknown, deadline, durText(worst.Lo))
		} else {
			// Only an explicit start-up allowance counts: a startup probe,
			// a stated start-up time, or a start chain that alone passes
			// the deadline; a lenient liveness probe is no sign of a slow
			// start.
			if slow.Startup == nil && !slow.ExpectedStartup.OK && slow.Start.Max() <= pds.V {
				return
			}
			var cause string
			cause, causePath = readyCause(slow)
			if slow.Start.Hi > 0 {
				cause += sprintf(", after it starts up to %s after the Pod is created (init containers, sidecars)", durText(slow.Start.Hi))
			}
			msg = sprintf("a new Pod can need up to %s from creation to Ready (%s)%s, more than %s: a slow but healthy rollout is marked ProgressDeadlineExceeded, which fails kubectl rollout status and most CD tools although the rollout goes on; raise progressDeadlineSeconds above %s plus the image pull time, or tighten the start-up allowance (if the app starts faster, state it with the podlint.dev/expected-startup annotation)",
				durText(worst.Hi), cause, unknown, deadline, durText(worst.Hi))
		}
		diag := Diagnostic{Path: causePath, Container: slow.Name, Message: msg,
			Related: []Related{{Path: pds.Path, Message: deadline}}}
		if pds.Set {
			diag.Path, diag.Related = pds.Path, []Related{{Path: causePath, Message: sprintf("what delays %q", slow.Name)}}
		}
		p.Report(diag)
	},
}

// earliestReadyCause explains the earliest Ready of a container that is
// already too late, and the field that sets it.
func earliestReadyCause(c *timeline.Container) (string, string) {
	name := c.Name
	switch {
	case c.ExpectedStartup.OK:
		return expectedCause(c)
	case c.Readiness != nil && c.Readiness.InitialDelay.V > 0 && (c.Startup == nil || c.Readiness.InitialDelay.V >= c.Startup.InitialDelay.V):
		rp := c.Readiness
		return sprintf("the readiness probe of %q cannot pass before its initialDelaySeconds of %s", name, durText(rp.InitialDelay.V)), rp.InitialDelay.Path
	case c.Startup != nil && c.Startup.InitialDelay.V > 0:
		sp := c.Startup
		return sprintf("the startup probe of %q cannot pass before its initialDelaySeconds of %s", name, durText(sp.InitialDelay.V)), sp.InitialDelay.Path
	}
	return sprintf("%q cannot start before %s after the Pod is created (init containers, sidecars)", name, durText(c.Start.Lo)), c.Path
}

// expectedCause explains a late Ready by the user-stated start-up time and
// points at where it is stated (the container when it comes from config).
func expectedCause(c *timeline.Container) (string, string) {
	path := c.ExpectedStartup.Path
	if path == "" {
		path = c.Path
	}
	return sprintf("%q is expected to need %s to start (%s)", c.Name, durText(c.ExpectedStartup.Seconds), describeExpected(c.ExpectedStartup)), path
}

// legacyDeploymentAPI reports the Deployment group versions whose
// progressDeadlineSeconds defaulted to "no deadline" (MaxInt32).
func legacyDeploymentAPI(p *Pass) bool {
	if p.Object == nil {
		return false
	}
	switch p.Object.Ref.APIVersion {
	case "extensions/v1beta1", "apps/v1beta1":
		return true
	}
	return false
}

// readyCause explains what lets a container become Ready so late, and the
// field that sets it.
func readyCause(c *timeline.Container) (string, string) {
	name := c.Name
	switch {
	case c.ExpectedStartup.OK:
		return expectedCause(c)
	case c.Startup != nil:
		sp := c.Startup
		path := sp.Path
		if sp.FailureThreshold.Set {
			path = sp.FailureThreshold.Path
		}
		return sprintf("the startup probe of %q allows start-up until %s: initialDelaySeconds %s + failureThreshold %g × periodSeconds %s",
			name, durText(sp.MaxBudget.Lo), timeline.FormatSeconds(sp.InitialDelay.V), sp.FailureThreshold.V, timeline.FormatSeconds(sp.Period.V)), path
	case c.Readiness != nil && c.Liveness != nil && c.Liveness.KillDecision.Hi >= c.Readiness.InitialDelay.V:
		lp := c.Liveness
		return sprintf("the liveness probe of %q tolerates a start-up of up to %s: initialDelaySeconds %s + failureThreshold %g × periodSeconds %s, and its readiness probe passes up to %s after that",
			name, durText(lp.KillDecision.Hi), timeline.FormatSeconds(lp.InitialDelay.V), lp.FailureThreshold.V, timeline.FormatSeconds(lp.Period.V),
			durText(c.Ready.Hi-lp.KillDecision.Hi)), lp.Path
	case c.Readiness != nil:
		rp := c.Readiness
		path := rp.Path
		if rp.InitialDelay.Set {
			path = rp.InitialDelay.Path
		}
		return sprintf("the readiness probe of %q passes no earlier than initialDelaySeconds %s and up to %s after the container starts",
			name, timeline.FormatSeconds(rp.InitialDelay.V), durText(c.Ready.Hi)), path
	}
	return sprintf("%q is Ready up to %s after it starts", name, durText(c.Ready.Hi)), c.Path
}
