package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

var JobDeadlineBeforeRetries = &Rule{
	ID: "PL304", Name: "job-deadline-before-retries", Title: "Job deadline ends it before its retries or its work can run",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		w := p.Workload
		if w.Job == nil {
			return
		}
		t := p.Timeline()
		if t == nil || t.Job == nil {
			return
		}
		j := t.Job
		if ads := j.ActiveDeadline; ads != nil && ads.V == 0 {
			p.Report(Diagnostic{Path: ads.Path, Message: fmt.Sprintf("activeDeadlineSeconds 0 fails the %s before any Pod runs", w.Kind),
				Detail: "The Job controller fails the Job on its first sync (DeadlineExceeded). Remove it or give the time the Job may run."})
			return
		}
		jobReported := checkDeadlineBeforeWork(p, t)
		// A backoffLimit left at its default is not configuration that can
		// be dead: the deadline is then simply the Job's limit.
		if jobReported || j.ActiveDeadline == nil || !j.DeadlineFirst || j.BackoffLimit.V < 1 || !j.BackoffLimit.Set {
			return
		}
		// backoffLimit is not what ends the Job when failures are not
		// counted or the podFailurePolicy fails the Job (index) at the first.
		if j.NotCounted != "" || j.OnFailure.Action == batchv1.PodFailurePolicyActionFailJob || j.OnFailure.Action == batchv1.PodFailurePolicyActionFailIndex {
			return
		}
		checkDeadlineBeforeRetries(p, t)
	},
}

// checkDeadlineBeforeWork reports Job or Pod deadlines not above the time
// the spec forces before the first app container starts; it returns true
// when the Job deadline was reported.
func checkDeadlineBeforeWork(p *Pass, t *timeline.Timeline) bool {
	if t.Pod == nil || len(p.Spec.Containers) == 0 {
		return false
	}
	forced := 0.0
	var parts []string
	var first *timeline.Container
	for _, c := range p.Containers() {
		tc := p.tlContainer(c)
		if c.Type == Regular && first == nil {
			first = tc
		}
		if tc == nil {
			continue
		}
		switch c.Type {
		case Init:
			if tc.Run != nil && len(tc.Run.Plus) == 0 && !tc.Run.HiUnbounded {
				if tc.Run.Lo > 0 {
					parts = append(parts, fmt.Sprintf("init container %q runs %s", c.Name(), dur(tc.Run.Lo)))
				}
				continue // the model already counts it
			}
			if s, ok := forcedSleep(c); ok && s > 0 {
				forced += s
				parts = append(parts, fmt.Sprintf("init container %q sleeps %s", c.Name(), secs(s)))
			}
		case Sidecar:
			if tc.Done != nil {
				if gate := tc.Done.Lo - tc.Start.Lo; gate > 0 {
					parts = append(parts, fmt.Sprintf("sidecar %q holds the next container for at least %s (startup probe, postStart)", c.Name(), dur(gate)))
				}
			}
		}
	}
	if first == nil {
		return false
	}
	forced += first.Start.Lo
	if forced <= 0 {
		return false
	}
	detail := strings.Join(parts, ", ")
	if detail == "" {
		detail = "the start-up chain takes " + dur(forced)
	}
	reported := false
	if ads := t.Job.ActiveDeadline; ads != nil && ads.V <= forced {
		p.Report(Diagnostic{Path: ads.Path, Container: first.Name,
			Message: fmt.Sprintf("activeDeadlineSeconds %s ends the %s before %q can start", secs(ads.V), p.Workload.Kind, p.timelineName(first)),
			Detail: fmt.Sprintf("%s, so %q cannot start before %s after the Pod is created (image pulls not counted); every run fails with DeadlineExceeded. Raise activeDeadlineSeconds well above %s plus the run time.",
				capitalize(detail), p.timelineName(first), dur(forced), dur(forced))})
		reported = true
	}
	if ads := t.Pod.ActiveDeadline; ads != nil && ads.V >= 1 && ads.V <= forced {
		p.Report(Diagnostic{Path: ads.Path, Container: first.Name,
			Message: fmt.Sprintf("the Pod's activeDeadlineSeconds %s passes before %q can start", secs(ads.V), p.timelineName(first)),
			Detail: fmt.Sprintf("It counts from the Pod's start, init containers included: %s, so %q cannot start before %s. Every Pod fails with DeadlineExceeded and the %s fails once backoffLimit is used up. Raise activeDeadlineSeconds well above %s plus the run time.",
				detail, p.timelineName(first), dur(forced), p.Workload.Kind, dur(forced))})
	}
	return reported
}

// checkDeadlineBeforeRetries reports a Job deadline that always comes before
// backoffLimit can be reached (F-12), with the retries that fit.
func checkDeadlineBeforeRetries(p *Pass, t *timeline.Timeline) {
	j := t.Job
	ads := j.ActiveDeadline.V
	L := int64(j.BackoffLimit.V)
	field := "backoffLimit"
	if j.PerIndex {
		field = "backoffLimitPerIndex"
	}
	// The run the model took (configured, or stated by the command).
	r, runKnown := 0.0, false
	if d := j.PodRun; d.Exact() && len(d.Plus) == 0 && !math.IsInf(d.Lo, 1) {
		r, runKnown = d.Lo, true
	}
	// delay(k) is the wait before retry k; retry k starts at
	// k·r + Σ_{i≤k} delay(i) (r = run time, 0 when unknown).
	// newDelay returns a fresh delay function: the crash back-off is
	// asked for its waits in order, one at a time.
	var newDelay func() func(k int64) float64
	var how string
	if j.CountsRestarts {
		newDelay = func() func(int64) float64 {
			b := timeline.NewCrashBackoff(r, t.Version, t.Params)
			return func(int64) float64 {
				w, _ := b.Next()
				return w.Lo
			}
		}
		how = "with restartPolicy: OnFailure the kubelet restarts the container " + crashRestarts(r, L, t)
	} else {
		newDelay = func() func(int64) float64 {
			return func(k int64) float64 {
				return math.Min(timeline.JobInitialBackoff*math.Pow(2, float64(min(k-1, 40))), j.BackoffCap)
			}
		}
		// Word it from the template's actual policy: under OnFailure only a
		// container's own Never fails the Pod; Always (stated or the
		// default) is rejected for Jobs (PL301), and the timeline models
		// the Job as its user most likely means it, with Never.
		var policy string
		switch j.RestartPolicy {
		case corev1.RestartPolicyOnFailure:
			policy = "with restartPolicy: OnFailure and a container-level restartPolicy: Never"
		case corev1.RestartPolicyNever:
			policy = "with restartPolicy: Never"
		default:
			stated := "restartPolicy: " + string(j.RestartPolicy)
			if p.Spec.RestartPolicy == "" {
				stated = "no restartPolicy (the default Always)"
			}
			policy = fmt.Sprintf("the pod template has %s, which the API server rejects for a Job; with restartPolicy: Never instead", stated)
		}
		delay := newDelay()
		how = fmt.Sprintf("%s the Job waits %s, %s, %s, %s, … (doubling, capped at %s) before each new Pod, counted from the failed Pod's finish time, which the API keeps in whole seconds (up to a second before the exit)",
			policy, secs(delay(1)), secs(delay(2)), secs(delay(3)), secs(delay(4)), secs(j.BackoffCap))
	}
	delay := newDelay()
	fit, at := int64(0), 0.0
	for k := int64(1); k <= L; k++ {
		at += r + delay(k)
		if at >= ads {
			break
		}
		fit = k
	}
	runs := "plus the run times"
	if runKnown {
		runs = "including the run times"
	}
	// The sums as equations of the waits (and the runs, when known):
	// retry fit+1 starts after fit+1 waits and runs; all L retries take
	// the model's j.Retries.Lo, which the equation shows when it sums to
	// it (one Pod at a time).
	nextText := equation(retryTerms(fit+1, fit+1, r, newDelay())...)
	all := retryTerms(L, L, r, newDelay())
	if !j.CountsRestarts {
		all = retryTerms(L, L+1, r, newDelay()) // the first run and L retries
	}
	allText, least := dur(j.Retries.Lo), j.Retries.Lo
	// The model counts each Job back-off up to 1 s short of its length
	// (it starts at a finishedAt in whole seconds); the equation shows
	// the back-offs as the controller counts them, from the finish times.
	early := 0.0
	if !j.CountsRestarts {
		early = float64(L) * timeline.APITimeResolution
	}
	if sum := termSum(all); math.Abs(sum-early-j.Retries.Lo) < 0.5 {
		allText, least = equation(all...), sum
	}
	p.Report(Diagnostic{Path: j.ActiveDeadline.Path, Related: []Related{{Path: j.BackoffLimit.Path, Message: fmt.Sprintf("%s %d", field, L)}},
		Message: fmt.Sprintf("activeDeadlineSeconds %s ends the Job before %s %d can be used", secs(ads), field, L),
		Detail: fmt.Sprintf("%s, so retry %d cannot start before %s and all %d retries need at least %s %s. At most %d %s before the deadline fails the Job (DeadlineExceeded), so %s is dead configuration. Raise activeDeadlineSeconds above %s %s, or lower %s to %d.",
			capitalize(how), fit+1, nextText, L, allText, runs, fit, plural(fit, "retry runs", "retries run"),
			field, dur(least), runs, field, fit)})
}

// crashRestarts words the kubelet's restarts of a container that exits
// after runs of r seconds (0: unknown), as the model counts them:
// the back-off entry expires when a run reaches 600 s, and is
// garbage-collected 600 s after its last update, which cuts the waits
// of runs between 300 and 600 s.
func crashRestarts(r float64, retries int64, t *timeline.Timeline) string {
	first := timeline.CrashLoop(r, 4, t.Version, t.Params)
	waits := fmt.Sprintf("after 0s, %s, %s, %s, …", secs(first[1].Delay.Lo), secs(first[2].Delay.Lo), secs(first[3].Delay.Lo))
	if r >= timeline.CrashLoopResetAfter {
		return fmt.Sprintf("at once every time: each run of %s reaches the %s after which the kubelet forgets its back-off", dur(r), secs(timeline.CrashLoopResetAfter))
	}
	for _, rs := range timeline.CrashLoop(r, int(min(retries, 64)), t.Version, t.Params) {
		if rs.Reset {
			return fmt.Sprintf("%s (doubling, but the kubelet forgets its back-off %s after a restart, so after a run of %s a wait ends at %s and the next is back at %s)",
				waits, secs(timeline.CrashLoopResetAfter), dur(r), dur(rs.Delay.Lo), secs(t.Params.CrashLoopInitial))
		}
	}
	return fmt.Sprintf("%s (doubling, capped at %s)", waits, secs(t.Params.CrashLoopMax))
}

// retryTerms are the terms of n waits before retries (delay, asked in
// order) and of runs run times r: "10s + 20s + 40s", equal neighbours
// grouped as "4 × 600s" (n may be 2^31−1: once a wait repeats twice the
// rest are taken as equal, as the back-offs stay at their cap), the runs
// as "7 × the run time 30s".
func retryTerms(n, runs int64, r float64, delay func(int64) float64) []term {
	var out []term
	var last float64
	count := int64(0)
	flush := func() {
		switch {
		case count == 1:
			out = append(out, term{dur(last), last})
		case count > 1:
			out = append(out, term{fmt.Sprintf("%d × %s", count, dur(last)), float64(count) * last})
		}
	}
	for k := int64(1); k <= n; k++ {
		d := delay(k)
		if count > 0 && d != last {
			flush()
			count = 0
		}
		last = d
		count++
		if count >= 3 && n > 4096 {
			count += n - k
			break
		}
	}
	flush()
	if r > 0 {
		if termSum(out) == 0 {
			out = nil // "2 × 0s + 2 × the run time": the waits add nothing
		}
		out = append(out, term{fmt.Sprintf("%d × the run time %s", runs, dur(r)), float64(runs) * r})
	}
	if len(out) == 0 {
		out = append(out, term{"0s", 0})
	}
	return out
}

func termSum(ts []term) float64 {
	sum := 0.0
	for _, t := range ts {
		sum += t.v
	}
	return sum
}
