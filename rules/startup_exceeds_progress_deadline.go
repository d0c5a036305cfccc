package rules

import (
	"fmt"
	"math"
	"strings"

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
		if !certain {
			// A readiness probe that typically first passes at the
			// deadline: reported whatever the worst case says.
			for _, c := range t.Containers {
				if c.Type != timeline.Init && c.Startup == nil && typicalReadinessLate(p, c, pds, deadline, unknown) {
					return
				}
			}
		}
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
			var cause term
			cause, causePath = earliestReadyCause(slow, p.timelineName(slow), slowAt.Lo-slow.Start.Lo)
			var terms []term
			if slow.Start.Lo > 0 {
				terms = append(terms, term{fmt.Sprintf("%s until %q can start (init containers, sidecars)", dur(slow.Start.Lo), p.timelineName(slow)), slow.Start.Lo})
			}
			if cause.text != "" {
				terms = append(terms, cause)
			}
			if rest := slowAt.Lo - slow.Start.Lo - cause.v; rest > 1e-9 {
				terms = append(terms, term{secs(math.Round(rest*10)/10) + " until it is reported Ready after that", rest})
			}
			total := durTenth(worst.Lo) + " after its creation"
			switch {
			case len(terms) == 1 && slow.ExpectedStartup.OK:
				total += " (" + strings.TrimPrefix(cause.text, dur(cause.v)+" as ") + ")"
			case len(terms) > 0 && math.Abs(termSum(terms)-worst.Lo) < 1e-6:
				total += " (" + equation(terms...) + ")"
			}
			msg = fmt.Sprintf("every rollout exceeds the progress deadline: a new Pod needs at least %s to be Ready", durTenth(worst.Lo))
			detail = fmt.Sprintf("A new Pod cannot become Ready before %s%s, which is not within %s: every rollout is marked ProgressDeadlineExceeded, which fails kubectl rollout status and most CD tools although the rollout goes on. Raise progressDeadlineSeconds well above %s plus the image pull time.",
				total, unknown, deadline, durTenth(worst.Lo))
		} else {
			// Only an explicit start-up allowance counts: a startup probe,
			// a stated start-up time, or a start chain that alone passes
			// the deadline; a lenient liveness probe is no sign of a slow
			// start.
			if slow.Startup == nil && !slow.ExpectedStartup.OK && slow.Start.Max() <= pds.V {
				return
			}
			var cause string
			var v float64
			name := p.timelineName(slow)
			cause, v, causePath = readyCause(slow, name)
			// The sum a reader can redo: when the container starts, what
			// its probes allow, and the rest until it is reported Ready.
			var terms []term
			if slow.Start.Hi > 0 {
				terms = append(terms, term{fmt.Sprintf("%s until %q starts (init containers, sidecars)", dur(slow.Start.Hi), name), slow.Start.Hi})
			}
			terms = append(terms, term{dur(v) + " for " + cause, v})
			if rest := slowAt.Hi - slow.Start.Hi - v; rest > 1e-9 {
				what := "until it is reported Ready"
				switch {
				case slow.Startup != nil && slow.Readiness == nil:
					what = "for the kubelet to report it Ready"
				case slow.Startup != nil:
					what = "until its readiness probe passes after that"
				}
				terms = append(terms, term{secs(math.Round(rest*10)/10) + " " + what, rest})
			}
			total := durTenth(worst.Hi) + " from creation to Ready"
			if math.Abs(termSum(terms)-worst.Hi) < 1e-6 {
				total += " (" + equation(terms...) + ")"
			}
			msg = fmt.Sprintf("a slow rollout may exceed the progress deadline: a new Pod may need %s to be Ready", durTenth(worst.Hi))
			detail = fmt.Sprintf("A new Pod can need up to %s%s, more than %s: a slow but healthy rollout is marked ProgressDeadlineExceeded, which fails kubectl rollout status and most CD tools although the rollout goes on. Raise progressDeadlineSeconds above %s plus the image pull time, or tighten the start-up allowance (if the app starts faster, state it with the podlint.dev/expected-startup annotation).",
				total, unknown, deadline, durTenth(worst.Hi))
		}
		diag := Diagnostic{Path: causePath, Container: slow.Name, Message: msg, Detail: detail,
			Related: []Related{{Path: pds.Path, Message: deadline}}}
		if pds.Set {
			diag.Path, diag.Related = pds.Path, []Related{{Path: causePath, Message: fmt.Sprintf("what delays %q", p.timelineName(slow))}}
		}
		p.Report(diag)
	},
}

// typicalReadinessLate reports a container whose readiness probe, on a
// typical start, first runs at or after the progress deadline: the first
// tick at or after initialDelaySeconds (P-8, F-2). A chance that large is
// the common case, not a worst case, so it is reported at the rule's
// severity; the timeline's mayExceedDeadline says the same. Only where the
// typical first probe is a whole number of periods after the start (or
// after the kubelet's latency), which a reader can redo.
func typicalReadinessLate(p *Pass, c *timeline.Container, pds timeline.Value, deadline, unknown string) bool {
	rp := c.Readiness
	if rp == nil || rp.Gated || rp.FastPath || c.ExpectedStartup.OK {
		return false
	}
	D, P, ST := rp.InitialDelay.V, rp.Period.V, rp.SuccessThreshold.V
	var terms []term
	switch eps := p.Timeline().Params.Epsilon; {
	case p.Version.RelistAfterRuntimeAction():
		terms = []term{{fmt.Sprintf("%s × periodSeconds %s (the first tick at or after initialDelaySeconds %s)", number(math.Ceil(D/P)), secs(P), secs(D)), math.Ceil(D/P) * P}}
	case p.Version.ProbeTickerReset():
		n := math.Ceil((D - eps) / P)
		terms = []term{{fmt.Sprintf("the kubelet's %s latency", secs(eps)), eps}, {fmt.Sprintf("%s × periodSeconds %s (the first tick at or after initialDelaySeconds %s)", number(n), secs(P), secs(D)), n * P}}
	default:
		return false // the first tick is anywhere in [D, D+P): no typical value
	}
	if ST > 1 {
		terms = append(terms, term{fmt.Sprintf("(successThreshold %s − 1) × periodSeconds %s", number(ST), secs(P)), (ST - 1) * P})
	}
	if math.Abs(termSum(terms)-rp.FirstProbeTypical-(ST-1)*P) > 1e-6 {
		return false
	}
	at := c.Start.Lo + termSum(terms)
	if at < pds.V {
		return false
	}
	if c.Start.Lo > 0 {
		terms = append([]term{{fmt.Sprintf("%s until %q can start (init containers, sidecars)", dur(c.Start.Lo), p.timelineName(c)), c.Start.Lo}}, terms...)
	}
	name := p.timelineName(c)
	path := rp.Path
	if rp.InitialDelay.Set {
		path = rp.InitialDelay.Path
	}
	diag := Diagnostic{Path: path, Container: c.Name,
		Message: fmt.Sprintf("a rollout typically exceeds the progress deadline: %q is typically Ready %s after start", name, durTenth(at-c.Start.Lo)),
		Detail: fmt.Sprintf("The probe's ticker starts with the container and skips the ticks before initialDelaySeconds, so on a healthy start a new Pod is typically Ready %s after its creation (%s)%s, which is not within %s: most rollouts are marked ProgressDeadlineExceeded, which fails kubectl rollout status and most CD tools although the rollout goes on. Raise progressDeadlineSeconds well above %s plus the image pull time, or lower initialDelaySeconds or periodSeconds.",
			durTenth(at), equation(terms...), unknown, deadline, durTenth(at)),
		Related: []Related{{Path: pds.Path, Message: deadline}}}
	if pds.Set {
		diag.Path, diag.Related = pds.Path, []Related{{Path: path, Message: fmt.Sprintf("what delays %q", name)}}
	}
	p.Report(diag)
	return true
}

// earliestReadyCause explains the earliest Ready of a container that is
// already too late, at seconds after its start: a term of that sum (what
// holds it back, and the time it accounts for) and the field that sets
// it. The term is empty when only the start of the container explains it.
func earliestReadyCause(c *timeline.Container, name containerName, at float64) (term, workload.Path) {
	switch {
	case c.ExpectedStartup.OK:
		text, path := expectedCause(c, name)
		return term{dur(c.ExpectedStartup.Seconds) + " as " + text, c.ExpectedStartup.Seconds}, path
	case c.Readiness != nil && c.Readiness.InitialDelay.V > 0 && (c.Startup == nil || c.Readiness.InitialDelay.V >= c.Startup.InitialDelay.V):
		rp := c.Readiness
		first := firstProbeTerm(rp.InitialDelay.V, math.Min(at, math.Max(rp.InitialDelay.V-1, 0)))
		first.text = fmt.Sprintf("%s before the readiness probe of %q first runs", first.text, name)
		return first, rp.InitialDelay.Path
	case c.Startup != nil && c.Startup.InitialDelay.V > 0:
		sp := c.Startup
		first := firstProbeTerm(sp.InitialDelay.V, math.Min(at, math.Max(sp.InitialDelay.V-1, 0)))
		first.text = fmt.Sprintf("%s before the startup probe of %q first runs", first.text, name)
		return first, sp.InitialDelay.Path
	}
	return term{}, c.Path
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

// readyCause explains what lets a container become Ready so late: the
// words, the time after its start they account for, and the field that
// sets it.
func readyCause(c *timeline.Container, name containerName) (string, float64, workload.Path) {
	switch {
	case c.ExpectedStartup.OK:
		text, path := expectedCause(c, name)
		return text, c.ExpectedStartup.Seconds, path
	case c.Startup != nil:
		sp := c.Startup
		path := sp.Path
		if sp.FailureThreshold.Set {
			path = sp.FailureThreshold.Path
		}
		return fmt.Sprintf("the start-up the startup probe of %q allows (%s)",
			name, latestEquation(sp.InitialDelay.V, sp.FailureThreshold.V, sp.Period.V, sp.MaxBudget.Lo)), sp.MaxBudget.Lo, path
	case c.Readiness != nil && c.Liveness != nil && c.Liveness.KillDecision.Hi >= c.Readiness.InitialDelay.V:
		lp := c.Liveness
		return fmt.Sprintf("the start-up the liveness probe of %q tolerates (%s), and %s until its readiness probe passes after that",
			name, latestEquation(lp.InitialDelay.V, lp.FailureThreshold.V, lp.Period.V, lp.KillDecision.Hi),
			dur(c.Ready.Hi-lp.KillDecision.Hi)), c.Ready.Hi, lp.Path
	case c.Readiness != nil:
		rp := c.Readiness
		path := rp.Path
		if rp.InitialDelay.Set {
			path = rp.InitialDelay.Path
		}
		return fmt.Sprintf("the readiness probe of %q, which passes no earlier than initialDelaySeconds %s",
			name, secs(rp.InitialDelay.V)), c.Ready.Hi, path
	}
	return fmt.Sprintf("%q to be Ready after it starts", name), c.Ready.Hi, c.Path
}
