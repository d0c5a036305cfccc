package policy

import (
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

// Check is the check of rules.Policy for a run with the policies list: each
// policy that matches a workload is held to its timeline.
func Check(list []*Policy) func(*rules.Pass) {
	return func(p *rules.Pass) {
		for _, pol := range list {
			if pol.Matches(p) {
				pol.check(p)
			}
		}
	}
}

// Matches reports whether the policy covers the workload of p: its kind is
// listed, its namespace matches one of the globs, and it carries every
// label given (an empty list or map matches all). An object that names no
// namespace has the namespace "", which only "*" and "" match: podlint
// cannot know where it will be applied.
func (pol *Policy) Matches(p *rules.Pass) bool {
	m := pol.Match
	if len(m.Kinds) > 0 && !slices.Contains(m.Kinds, p.Workload.Kind) {
		return false
	}
	var ns string
	var labels map[string]string
	if meta := p.Object.Meta; meta != nil {
		ns, labels = meta.Namespace, meta.Labels
	}
	if len(m.Namespaces) > 0 && !slices.ContainsFunc(m.Namespaces, func(glob string) bool {
		ok, _ := path.Match(glob, ns)
		return ok
	}) {
		return false
	}
	for k, v := range m.Labels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// check reports what the timeline of p says against each bound of the
// policy.
func (pol *Policy) check(p *rules.Pass) {
	tl := p.Timeline()
	if tl == nil {
		return
	}
	for _, c := range tl.Containers {
		if c.Type == timeline.Init {
			continue // never probed
		}
		if b := pol.MinStartupBudget; b != nil {
			pol.startupBudget(p, c, b)
		}
		if b := pol.MinLivenessKill; b != nil {
			pol.livenessKill(p, c, b)
		}
	}
	if b := pol.MinGraceAfterPreStop; b != nil && tl.Pod != nil {
		pol.graceAfterPreStop(p, tl, b)
	}
	if b := pol.MaxJobTime; b != nil && tl.Job != nil {
		pol.jobTime(p, tl.Job, b)
	}
}

// report records a finding of the policy: headline, the timeline's numbers
// against the policy's, and the fix.
func (pol *Policy) report(p *rules.Pass, at workload.Path, container, headline, detail string, related ...rules.Related) {
	if pol.Description == "" {
		detail += fmt.Sprintf(" Policy %q is defined at %s.", pol.Name, pol.Source)
	} else {
		detail += fmt.Sprintf(" Policy %q (%s): %s", pol.Name, pol.Source, pol.Description)
		if !strings.HasSuffix(detail, ".") && !strings.HasSuffix(detail, "!") && !strings.HasSuffix(detail, "?") {
			detail += "."
		}
	}
	p.Report(rules.Diagnostic{Path: at, Container: container, Message: headline, Detail: detail, Severity: pol.Severity, Related: related})
}

// startupBudget: how long the container's application may take to start
// before a probe kills it. With a startup probe, an application healthy by
// its guaranteed budget always passes; without one, the liveness probe
// kills an application that is not answering yet at its earliest kill.
// Without either nothing kills a slow start.
func (pol *Policy) startupBudget(p *rules.Pass, c *timeline.Container, b *Bound) {
	switch {
	case c.Startup != nil:
		sp := c.Startup
		budget := sp.GuaranteedBudget.Lo
		if budget >= b.Seconds {
			return
		}
		P, FT := sp.Period.V, sp.FailureThreshold.V
		need := neededThreshold(b.Seconds, budget-(FT-1)*P, P)
		pol.report(p, sp.FailureThreshold.Path, c.Name,
			fmt.Sprintf("startup probe gives up sooner than policy %q allows", pol.Name),
			fmt.Sprintf("The startup probe of %q passes only an application that has started within %s of the container's start "+
				"(failureThreshold %s, periodSeconds %s): one that needs longer may be killed and restarted. "+
				"Policy %q requires %s for the start. Raise failureThreshold to %s.",
				c.Name, dur(budget), num(FT), dur(P), pol.Name, b.Text, num(need)))
	case c.Liveness != nil:
		lp := c.Liveness
		budget := lp.KillDecision.Lo
		if budget >= b.Seconds {
			return
		}
		pol.report(p, lp.Path, c.Name,
			fmt.Sprintf("liveness probe kills a slow start before policy %q allows it", pol.Name),
			fmt.Sprintf("Without a startup probe, the liveness probe of %q kills an application that is not answering yet "+
				"as early as %s after the container starts. Policy %q requires %s for the start. "+
				"Add a startupProbe whose failureThreshold × periodSeconds covers %s; it holds the liveness probe back until the start succeeds.",
				c.Name, dur(budget), pol.Name, b.Text, b.Text))
	}
}

// livenessKill: the earliest the liveness probe can kill the container
// after it starts; with a startup probe, counted from the earliest startup
// success.
func (pol *Policy) livenessKill(p *rules.Pass, c *timeline.Container, b *Bound) {
	lp := c.Liveness
	if lp == nil {
		return
	}
	from := 0.0
	if lp.Gated {
		from = c.Started.Lo
	}
	earliest := from + lp.KillDecision.Lo
	if earliest >= b.Seconds {
		return
	}
	P, FT := lp.Period.V, lp.FailureThreshold.V
	need := neededThreshold(b.Seconds, earliest-(FT-1)*P, P)
	gated := ""
	if lp.Gated && from >= 0.5 {
		gated = fmt.Sprintf(", the startup probe passing %s after the start at the earliest", dur(from))
	}
	pol.report(p, lp.FailureThreshold.Path, c.Name,
		fmt.Sprintf("liveness probe may kill earlier than policy %q allows", pol.Name),
		fmt.Sprintf("The liveness probe of %q can kill the container %s after it starts (failureThreshold %s, periodSeconds %s%s). "+
			"Policy %q requires that no liveness kill comes before %s. Raise failureThreshold to %s, or initialDelaySeconds.",
			c.Name, dur(earliest), num(FT), dur(P), gated, pol.Name, b.Text, num(need)))
}

// graceAfterPreStop: the time between the stop signal, which follows the
// preStop hook, and SIGKILL on a Pod's deletion, for the container that
// gets the least. The timeline knows what the preStop states (a sleep, a
// `sleep N` command) and how this Kubernetes version counts it against the
// grace period.
func (pol *Policy) graceAfterPreStop(p *rules.Pass, tl *timeline.Timeline, b *Bound) {
	var worst *timeline.Container
	window := math.Inf(1)
	for _, c := range tl.ContainersOf(timeline.Regular) {
		t := c.Termination
		if t == nil {
			continue
		}
		if w := t.SIGKILL.Lo - t.StopSignal.Lo; w < window {
			worst, window = c, w
		}
	}
	if worst == nil || window >= b.Seconds {
		return
	}
	t := worst.Termination
	G := t.GracePeriod.V
	stop, fix := "at once", fmt.Sprintf("Set terminationGracePeriodSeconds to at least %s.", num(math.Ceil(b.Seconds)))
	var related []rules.Related
	if h := t.PreStop; h != nil && h.Skipped == "" {
		pre := h.Duration.Lo
		stop = fmt.Sprintf("after its preStop hook, which takes %s,", dur(pre))
		fix = fmt.Sprintf("Set terminationGracePeriodSeconds to at least %s + %s = %s.", dur(pre), dur(b.Seconds), dur(math.Ceil(pre+b.Seconds)))
		related = append(related, rules.Related{Path: h.Path, Message: "the preStop hook"})
	}
	pol.report(p, t.GracePeriod.Path, worst.Name,
		fmt.Sprintf("grace period is shorter than policy %q requires", pol.Name),
		fmt.Sprintf("When the Pod is deleted, %q gets its stop signal %s and SIGKILL %s later (grace period %s). "+
			"Policy %q requires %s between the two. %s",
			worst.Name, stop, dur(window), dur(G), pol.Name, b.Text, fix),
		related...)
}

// jobTime: how long the Job can run before the controller ends it. Only
// activeDeadlineSeconds bounds a Job whose Pod hangs: the back-off limit
// counts failures, and a hanging Pod never fails.
func (pol *Policy) jobTime(p *rules.Pass, j *timeline.Job, b *Bound) {
	at := j.Path.Field("activeDeadlineSeconds")
	if j.ActiveDeadline != nil {
		at = j.ActiveDeadline.Path
	}
	switch {
	case j.DeadlineEnds == nil:
		pol.report(p, at, "",
			fmt.Sprintf("Job may run forever, longer than policy %q allows", pol.Name),
			fmt.Sprintf("The Job has no activeDeadlineSeconds, so a Pod that hangs keeps it running forever: its back-off limit counts only failures. "+
				"Policy %q requires that it ends within %s. Set activeDeadlineSeconds to at most %s.",
				pol.Name, b.Text, num(math.Floor(b.Seconds))))
	case j.DeadlineEnds.Max() > b.Seconds:
		pol.report(p, at, "",
			fmt.Sprintf("Job may run longer than policy %q allows", pol.Name),
			fmt.Sprintf("The Job is ended %s after it starts at the latest (activeDeadlineSeconds %s, then its Pods' termination). "+
				"Policy %q requires that it ends within %s. Lower activeDeadlineSeconds to at most %s.",
				dur(j.DeadlineEnds.Max()), num(j.ActiveDeadline.V), pol.Name, b.Text, num(math.Max(0, math.Floor(b.Seconds-(j.DeadlineEnds.Max()-j.ActiveDeadline.V))))))
	}
}

// neededThreshold is the smallest failureThreshold FT with base + (FT−1)·P
// at least want.
func neededThreshold(want, base, P float64) float64 {
	if P <= 0 {
		return 1
	}
	return math.Max(1, math.Ceil((want-base)/P)+1)
}

// dur prints a computed duration in the one duration style, to whole
// seconds.
func dur(s float64) string {
	if s > 0 && s < 0.5 {
		return timeline.FormatDuration(s)
	}
	return timeline.FormatDuration(math.Round(s))
}

// num prints a count or a number of seconds as a manifest states it.
func num(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
