package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

var StartupExceedsProgressDeadline = &Rule{
	ID: "PL501", Name: "startup-exceeds-progress-deadline", Title: "a Pod may need longer to become Ready than the Deployment's progress deadline",
	Severity: finding.Warning,
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
		deadline := fmt.Sprintf("progressDeadlineSeconds %s", secs(pds.V))
		if !pds.Set {
			deadline = fmt.Sprintf("the default progressDeadlineSeconds of %s", secs(pds.V))
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
		var msg, detail string
		var causePath workload.Path
		if certain {
			var cause string
			cause, causePath = earliestReadyCause(slow, p.timelineName(slow))
			msg = fmt.Sprintf("every rollout exceeds the progress deadline: a new Pod needs at least %s to be Ready", dur(worst.Lo))
			detail = fmt.Sprintf("A new Pod cannot become Ready before %s after its creation (%s)%s, which is not within %s: every rollout is marked ProgressDeadlineExceeded, which fails kubectl rollout status and most CD tools although the rollout goes on. Raise progressDeadlineSeconds well above %s plus the image pull time.",
				dur(worst.Lo), cause, unknown, deadline, dur(worst.Lo))
		} else {
			// Only an explicit start-up allowance counts: a startup probe,
			// a stated start-up time, or a start chain that alone passes
			// the deadline; a lenient liveness probe is no sign of a slow
			// start.
			if slow.Startup == nil && !slow.ExpectedStartup.OK && slow.Start.Max() <= pds.V {
				return
			}
			var cause string
			cause, causePath = readyCause(slow, p.timelineName(slow))
			if slow.Start.Hi > 0 {
				cause += fmt.Sprintf(", after it starts up to %s after the Pod is created (init containers, sidecars)", dur(slow.Start.Hi))
			}
			msg = fmt.Sprintf("a slow rollout may exceed the progress deadline: a new Pod may need %s to be Ready", dur(worst.Hi))
			detail = fmt.Sprintf("A new Pod can need up to %s from creation to Ready (%s)%s, more than %s: a slow but healthy rollout is marked ProgressDeadlineExceeded, which fails kubectl rollout status and most CD tools although the rollout goes on. Raise progressDeadlineSeconds above %s plus the image pull time, or tighten the start-up allowance (if the app starts faster, state it with the podlint.dev/expected-startup annotation).",
				dur(worst.Hi), cause, unknown, deadline, dur(worst.Hi))
		}
		diag := Diagnostic{Path: causePath, Container: slow.Name, Message: msg, Detail: detail,
			Related: []Related{{Path: pds.Path, Message: deadline}}}
		if pds.Set {
			diag.Path, diag.Related = pds.Path, []Related{{Path: causePath, Message: fmt.Sprintf("what delays %q", p.timelineName(slow))}}
		}
		p.Report(diag)
	},
}

// earliestReadyCause explains the earliest Ready of a container that is
// already too late, and the field that sets it.
func earliestReadyCause(c *timeline.Container, name containerName) (string, workload.Path) {
	switch {
	case c.ExpectedStartup.OK:
		return expectedCause(c, name)
	case c.Readiness != nil && c.Readiness.InitialDelay.V > 0 && (c.Startup == nil || c.Readiness.InitialDelay.V >= c.Startup.InitialDelay.V):
		rp := c.Readiness
		return fmt.Sprintf("the readiness probe of %q cannot pass before its initialDelaySeconds of %s", name, dur(rp.InitialDelay.V)), rp.InitialDelay.Path
	case c.Startup != nil && c.Startup.InitialDelay.V > 0:
		sp := c.Startup
		return fmt.Sprintf("the startup probe of %q cannot pass before its initialDelaySeconds of %s", name, dur(sp.InitialDelay.V)), sp.InitialDelay.Path
	}
	return fmt.Sprintf("%q cannot start before %s after the Pod is created (init containers, sidecars)", name, dur(c.Start.Lo)), c.Path
}

// expectedCause explains a late Ready by the user-stated start-up time and
// points at where it is stated (the container when it comes from config).
func expectedCause(c *timeline.Container, name containerName) (string, workload.Path) {
	path := c.ExpectedStartup.Path
	if path == "" {
		path = c.Path
	}
	return fmt.Sprintf("%q is expected to need %s to start (%s)", name, dur(c.ExpectedStartup.Seconds), describeExpected(c.ExpectedStartup)), path
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
func readyCause(c *timeline.Container, name containerName) (string, workload.Path) {
	switch {
	case c.ExpectedStartup.OK:
		return expectedCause(c, name)
	case c.Startup != nil:
		sp := c.Startup
		path := sp.Path
		if sp.FailureThreshold.Set {
			path = sp.FailureThreshold.Path
		}
		return fmt.Sprintf("the startup probe of %q allows start-up until %s",
			name, latestDecision(sp.InitialDelay.V, sp.FailureThreshold.V, sp.Period.V, sp.MaxBudget.Lo)), path
	case c.Readiness != nil && c.Liveness != nil && c.Liveness.KillDecision.Hi >= c.Readiness.InitialDelay.V:
		lp := c.Liveness
		return fmt.Sprintf("the liveness probe of %q tolerates a start-up of up to %s, and its readiness probe passes up to %s after that",
			name, latestDecision(lp.InitialDelay.V, lp.FailureThreshold.V, lp.Period.V, lp.KillDecision.Hi),
			dur(c.Ready.Hi-lp.KillDecision.Hi)), lp.Path
	case c.Readiness != nil:
		rp := c.Readiness
		path := rp.Path
		if rp.InitialDelay.Set {
			path = rp.InitialDelay.Path
		}
		return fmt.Sprintf("the readiness probe of %q passes no earlier than initialDelaySeconds %s and up to %s after the container starts",
			name, secs(rp.InitialDelay.V), dur(c.Ready.Hi)), path
	}
	return fmt.Sprintf("%q is Ready up to %s after it starts", name, dur(c.Ready.Hi)), c.Path
}
