// Package plot renders computed timelines for `podlint timeline`: a
// terminal Gantt chart (Text), a documented JSON form (JSON), a
// self-contained SVG (SVG) and a Mermaid gantt block for Markdown (Mermaid).
// All four draw the same rows, built here from a *timeline.Timeline, so
// they never disagree.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package plot

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/podlint/podlint/timeline"
	batchv1 "k8s.io/api/batch/v1"
)

// Item is one object to render.
type Item struct {
	File                              string
	Line                              int
	APIVersion, Kind, Namespace, Name string
	Timeline                          *timeline.Timeline
	// Rollout and Drain come from the cross-object view (the workload with its
	// autoscaler and budget); nil when they do not apply.
	Rollout *timeline.Rollout
	Drain   *timeline.Drain
	// Observed is what the podlint observe profile of the run
	// (Timeline.Params.Observed) saw of the workload's containers, by
	// name: nil when there is no profile or it does not cover the
	// workload (timeline.Observed.Of).
	Observed map[string]timeline.ObservedContainer
	// Fields are where the fields the timeline depends on are written:
	// for a rendered chart or kustomization, the template, patch or
	// resource line check reports a finding at that field on.
	Fields []Field
}

// Field is where a field of the manifest is written.
type Field struct {
	Path         string
	File         string
	Line, Column int
	// Approximate: the field itself is not written there (a default, a
	// value a template computes); the position is the closest one found.
	Approximate bool
}

// rollout is the Item's rollout: the cross-object view's (Deployments), or a
// DaemonSet's, which needs no other object, only --nodes.
func (it Item) rollout() *timeline.Rollout {
	if it.Rollout == nil && it.Timeline != nil && it.Timeline.DaemonSet != nil {
		return it.Timeline.DaemonSet.Rollout
	}
	return it.Rollout
}

// title is "Deployment shop/web (deploy.yaml:3)".
func (it Item) title() string {
	s := it.Kind
	if it.Namespace != "" {
		s += " " + it.Namespace + "/" + it.Name
	} else if it.Name != "" {
		s += " " + it.Name
	}
	if it.File != "" {
		s += fmt.Sprintf(" (%s:%d)", it.File, it.Line)
	}
	return strings.TrimSpace(s)
}

// rowKind selects the colour of a row.
type rowKind int

const (
	kindRun     rowKind = iota // a container running / starting
	kindBudget                 // startup probe budget
	kindKill                   // a probe kill window
	kindReady                  // readiness
	kindPreStop                // preStop hook
	kindStop                   // stop signal → SIGKILL window
	kindPod                    // pod-level event
	// What a podlint observe profile saw: start-ups and shutdowns.
	kindObserved
	kindObservedStop
)

// row is one bar. A phase runs From → To: the parts [From.Lo, From.Hi) and
// [To.Lo, To.Hi) are uncertain, [From.Hi, To.Lo) certain. An event (Event
// true) is only the uncertain range To (or an exact instant).
type row struct {
	Group string // container name, or "pod"
	Label string // phase name
	Kind  rowKind
	From  timeline.Interval
	To    timeline.Interval
	Event bool
	// Never: the phase never ends (the model knows the event never
	// happens); no bar is drawn, the row says "never".
	Never bool
	// Marks are the median, p95 and max of an observed row, whose From
	// and To are the shortest and the longest observation.
	Marks []mark
	// AtLeast: an observed row that is a lower bound, To.Lo (start-ups a
	// probe cut short), with no end.
	AtLeast bool
	// Offset is where on the axis an observed row's durations start
	// (a start-up from its container's earliest start).
	Offset float64
}

// section is one chart: all its rows share an origin.
type section struct {
	Title  string
	Origin string
	Rows   []row
}

// end is the largest bounded instant of the section, the base of its axis.
func (s section) end() float64 {
	m := 0.0
	for _, r := range s.Rows {
		if r.Never {
			continue // drawn as "never", with no bar
		}
		for _, iv := range []timeline.Interval{r.From, r.To} {
			m = math.Max(m, iv.Lo)
			if !iv.HiUnbounded {
				m = math.Max(m, iv.Hi)
			}
		}
	}
	return m
}

func typeLabel(c *timeline.Container) string {
	switch c.Type {
	case timeline.Init:
		return c.Name + " (init)"
	case timeline.Sidecar:
		return c.Name + " (sidecar)"
	}
	return c.Name
}

// sections builds the start-up chart (seconds after pod creation; probe
// times shifted by the container's earliest start) and the shutdown chart
// (seconds after the delete request).
func sections(tl *timeline.Timeline) []section {
	if tl == nil || tl.Pod == nil {
		return nil
	}
	up := section{Title: "start-up", Origin: "pod creation"}
	for _, c := range tl.Containers {
		g := typeLabel(c)
		S := c.Start.Interval
		if c.Type == timeline.Init {
			to := S
			if c.Done != nil {
				to = c.Done.Interval
			}
			up.Rows = append(up.Rows, row{Group: g, Label: "run", Kind: kindRun, From: S, To: to})
			continue
		}
		if c.Ready != nil {
			up.Rows = append(up.Rows, row{Group: g, Label: "start → ready", Kind: kindReady, From: S, To: S.Add(c.Ready.Interval), Never: c.Ready.Never})
		}
		if sp := c.Startup; sp != nil {
			budget := timeline.Interval{Lo: sp.GuaranteedBudget.Lo, Hi: sp.MaxBudget.Lo}
			up.Rows = append(up.Rows, row{Group: g, Label: "startup budget", Kind: kindBudget, From: S, To: S.Add(budget)})
		}
		if lp := c.Liveness; lp != nil {
			up.Rows = append(up.Rows, row{Group: g, Label: "liveness kill if unhealthy", Kind: kindKill, To: S.Add(lp.KillDecision.Interval), Event: true})
		}
	}
	if tl.Pod.Ready != nil {
		up.Rows = append(up.Rows, row{Group: "pod", Label: "Ready", Kind: kindPod, To: tl.Pod.Ready.Interval, Event: true, Never: tl.Pod.Ready.Never})
	}
	down := section{Title: "shutdown", Origin: "delete request"}
	for _, c := range tl.Containers {
		tr := c.Termination
		if tr == nil {
			continue
		}
		g := typeLabel(c)
		if tr.PreStop != nil && tr.PreStop.Skipped == "" {
			down.Rows = append(down.Rows, row{Group: g, Label: "preStop", Kind: kindPreStop, From: timeline.At(0), To: tr.PreStop.Duration.Interval})
		}
		down.Rows = append(down.Rows, row{Group: g, Label: "SIGTERM → SIGKILL", Kind: kindStop, From: tr.StopSignal.Interval, To: tr.SIGKILL.Interval})
	}
	if len(down.Rows) > 0 {
		down.Rows = append(down.Rows, row{Group: "pod", Label: "gone", Kind: kindPod, To: tl.Pod.Terminated.Interval, Event: true})
	}
	ctl := controllerSection(tl)
	var out []section
	for _, s := range []section{up, down, ctl} {
		if len(s.Rows) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// controllerSection charts the controller-level numbers: a Deployment's
// pod readiness against its progress deadline and its rollout, a
// StatefulSet's creation and rolling update, a Job's retries against its
// active deadline.
func controllerSection(tl *timeline.Timeline) section {
	s := section{Title: "controller", Origin: "the rollout or job starts"}
	zero := timeline.At(0)
	if d := tl.Deployment; d != nil {
		s.Title, s.Origin = "Deployment", "the rollout starts"
		// The new Pod's creation is progress: without more, the deadline
		// is exceeded within DeadlineExceeded of it.
		deadline := timeline.At(d.ProgressDeadline.V)
		if d.DeadlineExceeded != nil {
			deadline = d.DeadlineExceeded.Interval
		}
		s.Rows = append(s.Rows,
			row{Group: "new pod", Label: "creation → Ready", Kind: kindReady, From: zero, To: d.PodReady.Interval, Never: d.PodReady.Never},
			row{Group: "new pod", Label: "progress deadline", Kind: kindKill, To: deadline, Event: true},
			row{Group: "rollout", Label: replicas(d.Replicas.V), Kind: kindRun, From: zero, To: d.Rollout.Interval, Never: d.PodReady.Never})
	}
	if st := tl.StatefulSet; st != nil {
		s.Title, s.Origin = "StatefulSet", "the rollout starts"
		s.Rows = append(s.Rows, row{Group: "rollout", Label: "creation", Kind: kindRun, From: zero, To: st.Creation.Interval})
		if st.RollingUpdate != nil {
			s.Rows = append(s.Rows, row{Group: "rollout", Label: "rolling update", Kind: kindRun, From: zero, To: st.RollingUpdate.Interval})
		}
	}
	if j := tl.Job; j != nil {
		s.Title, s.Origin = "Job", "the job starts"
		label := number(j.BackoffLimit.V) + " retries used up"
		switch {
		case j.NotCounted != "":
			label = "failures not counted"
		case j.OnFailure.Action == batchv1.PodFailurePolicyActionFailJob, j.OnFailure.Action == batchv1.PodFailurePolicyActionFailIndex:
			label = "first failure, " + string(j.OnFailure.Action)
		}
		s.Rows = append(s.Rows, row{Group: "job", Label: label, Kind: kindRun, From: zero, To: j.Retries.Interval})
		if j.ActiveDeadline != nil {
			s.Rows = append(s.Rows, row{Group: "job", Label: "activeDeadlineSeconds", Kind: kindKill, To: timeline.At(j.ActiveDeadline.V), Event: true})
		}
		s.Rows = append(s.Rows, row{Group: "job", Label: "gives up", Kind: kindPod, To: j.GivesUp.Interval, Event: true})
	}
	return s
}

// niceStep picks a tick step giving at most maxTicks ticks up to end.
func niceStep(end float64, maxTicks int) float64 {
	for _, s := range []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400} {
		if end/s <= float64(maxTicks) {
			return s
		}
	}
	return math.Ceil(end/float64(maxTicks)/86400) * 86400
}

// axis returns the axis end and tick step for a section.
func axis(s section, maxTicks int) (end, step float64) {
	e := s.end()
	if e <= 0 {
		e = 1
	}
	step = niceStep(e*1.05, maxTicks)
	end = math.Ceil(e*1.05/step) * step
	return end, step
}

// tickLabel prints seconds, or minutes once the axis is long.
func tickLabel(t, step float64) string {
	if step >= 60 && math.Mod(t, 60) == 0 {
		if t >= 3600 && math.Mod(t, 3600) == 0 {
			return number(t/3600) + "h"
		}
		return number(t/60) + "m"
	}
	return number(t) + "s"
}

// secs formats a time for sentences in the one duration style
// (timeline.FormatDuration), to a tenth of a second: "25s", "1.5s",
// "5m30s", "500ms"; +Inf is "never".
func secs(x float64) string {
	if math.IsInf(x, 1) {
		return "never"
	}
	return timeline.FormatDuration(math.Round(x*10) / 10)
}

// between is "between 25s and 35s", "at 12s", "from 5s on (no upper bound)".
func between(iv timeline.Interval) string {
	switch {
	case iv.HiUnbounded:
		return "from " + secs(iv.Lo) + " on (no upper bound)"
	case iv.Exact():
		return "at " + secs(iv.Lo)
	}
	return "between " + secs(iv.Lo) + " and " + secs(iv.Hi)
}

func plus(p []string) string {
	if len(p) == 0 {
		return ""
	}
	return " + " + strings.Join(p, " + ")
}

// summary states the key numbers in words.
func summary(tl *timeline.Timeline) []string {
	if tl == nil {
		return nil
	}
	var out []string
	for _, c := range tl.Containers {
		out = append(out, containerSummary(c)...)
	}
	if tl.Pod != nil {
		out = append(out, podSummary(tl)...)
	}
	if d := tl.Deployment; d != nil {
		out = append(out, deploymentSummary(d))
	}
	if s := tl.StatefulSet; s != nil {
		out = append(out, statefulSetSummary(s))
	}
	if j := tl.Job; j != nil {
		out = append(out, jobSummary(j))
	}
	if d := tl.DaemonSet; d != nil && d.Invalid != "" {
		out = append(out, "DaemonSet: the API server rejects its update strategy: "+d.Invalid)
	}
	if c := tl.CronJob; c != nil && c.Period.Set {
		out = append(out, cronJobSummary(c))
	}
	for _, n := range tl.Notes {
		out = append(out, "note: "+n.Text)
	}
	for _, e := range tl.Errors {
		out = append(out, "error: "+e.Error())
	}
	return out
}

// containerSummary states one container's probes, start-up and init failure.
func containerSummary(c *timeline.Container) []string {
	var out []string
	if sp := c.Startup; sp != nil {
		out = append(out, fmt.Sprintf("startup probe gives %s %s guaranteed (at most %s); if it never starts, it is killed %s after start",
			c.Name, secs(sp.GuaranteedBudget.Lo), secs(sp.MaxBudget.Lo), between(sp.KillDecision.Interval)))
	}
	if lp := c.Liveness; lp != nil {
		when := "after start"
		if lp.Gated {
			when = "after start (unhealthy right after startup succeeds)"
		}
		line := fmt.Sprintf("liveness kills %s %s %s; a hang is detected %s after it begins",
			c.Name, between(lp.KillDecision.Interval), when, between(lp.HangDetection.Interval))
		if lp.NextStart != nil {
			line += "; after such a kill the replacement starts " + between(lp.NextStart.Interval) + " after the first start"
		} else {
			line += "; it is not restarted after such a kill"
		}
		out = append(out, line)
		if len(lp.UnhealthyRestarts) > 0 {
			out = append(out, livenessRestarts(c.Name, lp))
		}
	}
	if f := c.InitFailure; f != nil {
		if f.PodFails {
			out = append(out, fmt.Sprintf("if init container %s fails, the Pod fails %s after its exit", c.Name, between(f.PodFailed.Interval)))
		} else if len(f.Restarts) > 0 {
			out = append(out, fmt.Sprintf("if init container %s fails, it is retried after waits of %s", c.Name, delaysText(f.Restarts)))
		}
	}
	if c.Ready != nil && c.Ready.Never {
		out = append(out, fmt.Sprintf("%s never becomes Ready: it is killed before its expected start-up of %s, on every start", c.Name, secs(c.ExpectedStartup.Seconds)))
	} else if rp := c.Readiness; rp != nil && c.Ready != nil {
		out = append(out, fmt.Sprintf("%s is Ready %s after start (first readiness probe typically at %s)",
			c.Name, between(c.Ready.Interval), secs(rp.FirstProbeTypical)))
	}
	return out
}

// podSummary states the Pod's readiness, shutdown and crash loop.
func podSummary(tl *timeline.Timeline) []string {
	pod := tl.Pod
	var out []string
	if r := pod.Ready; r != nil && r.Never {
		out = append(out, "Pod never becomes Ready")
	} else if r != nil {
		s := "Pod Ready at the earliest " + secs(r.Lo) + " after creation"
		if r.HiUnbounded {
			s += ", no upper bound from the spec"
			stated := true
			for _, c := range tl.Containers {
				if c.Type != timeline.Init && !c.ExpectedStartup.OK {
					stated = false
				}
			}
			if !stated {
				s += " (state podlint.dev/expected-startup)"
			}
		} else {
			s += ", at the latest " + secs(r.Hi)
		}
		out = append(out, s+plus(r.Plus))
	}
	for _, c := range tl.Containers {
		if tr := c.Termination; tr != nil {
			who := c.Name
			if c.Type == timeline.Init {
				who = "init container " + c.Name + ", if still running,"
			}
			kill := secs(tr.SIGKILL.Max())
			if x := tl.Params.StopLatency; x > 0 && !tr.SIGKILL.HiUnbounded {
				// The kubelet's deadline and the runtime's share apart,
				// so the grace arithmetic stays visible (T-9).
				kill += fmt.Sprintf(" (%s, plus up to %s for the runtime to deliver it)", secs(tr.SIGKILL.Max()-x), secs(x))
			}
			out = append(out, fmt.Sprintf("on delete %s gets SIGTERM %s and SIGKILL at most %s after the delete request",
				who, between(tr.StopSignal.Interval), kill))
		}
	}
	if len(pod.SidecarStopOrder) > 0 {
		out = append(out, "sidecars stop in the order "+strings.Join(pod.SidecarStopOrder, ", "))
	}
	out = append(out, fmt.Sprintf("grace period %s, restartPolicy %s, QoS class %s", secs(pod.GracePeriod.V), pod.RestartPolicy, pod.QOSClass))
	if line := crashLoop(tl); line != "" {
		out = append(out, line)
	}
	return out
}

// deploymentSummary states how long a new Pod and a rollout take.
func deploymentSummary(d *timeline.Deployment) string {
	verdict := "stays within"
	if d.MayExceedDeadline {
		verdict = "may exceed"
	}
	if d.PodReady.Never {
		return fmt.Sprintf("Deployment: a new pod never becomes Ready, so a rollout of %s never completes and is marked ProgressDeadlineExceeded after progressDeadlineSeconds %s",
			replicas(d.Replicas.V), secs(d.ProgressDeadline.V))
	}
	return fmt.Sprintf("Deployment: a new pod is Ready %s after creation%s, which %s progressDeadlineSeconds %s; a rollout of %s takes roughly %s",
		between(d.PodReady.Interval), plus(d.PodReady.Plus), verdict, secs(d.ProgressDeadline.V), replicas(d.Replicas.V), between(d.Rollout.Interval))
}

// statefulSetSummary states how long creation and a rolling update take.
func statefulSetSummary(s *timeline.StatefulSet) string {
	line := fmt.Sprintf("StatefulSet (%s): creating %s takes %s", s.PodManagementPolicy, replicas(s.Replicas.V), between(s.Creation.Interval))
	if s.RollingUpdate != nil {
		line += fmt.Sprintf(", a rolling update %s (%s Pod(s) at a time)", between(s.RollingUpdate.Interval), number(s.MaxUnavailable.V))
	}
	return line + plus(s.Creation.Plus)
}

// jobSummary states when the Job gives up, and why.
func jobSummary(j *timeline.Job) string {
	line := fmt.Sprintf("Job (%s, backoffLimit %s): gives up %s after it starts%s", j.RestartPolicy, number(j.BackoffLimit.V), between(j.GivesUp.Interval), plus(j.GivesUp.Plus))
	switch {
	case j.NotCounted != "":
		line += "; failures never reach backoffLimit: " + j.NotCounted
	case j.OnFailure.Action == batchv1.PodFailurePolicyActionFailJob, j.OnFailure.Action == batchv1.PodFailurePolicyActionFailIndex:
		line += fmt.Sprintf("; its podFailurePolicy (%s) ends it at the first failure", j.OnFailure.Action)
	}
	if j.DeadlineFirst && j.ActiveDeadline != nil {
		line += fmt.Sprintf("; activeDeadlineSeconds %s ends it before the retries are used up", secs(j.ActiveDeadline.V))
	}
	if j.Parallelism.V > 1 {
		line += fmt.Sprintf("; %s Pods run and fail at once", number(j.Parallelism.V))
	}
	if len(j.FailureOutcomes) > 1 {
		var as []string
		for _, a := range j.FailureOutcomes {
			as = append(as, string(a))
		}
		line += "; by exit code its podFailurePolicy may " + strings.Join(as, ", ") + " a failure"
	}
	return line
}

// cronJobSummary states how often the CronJob starts and what an overlong run does.
func cronJobSummary(c *timeline.CronJob) string {
	line := fmt.Sprintf("CronJob (%s): starts every %s at the shortest", c.ConcurrencyPolicy, secs(c.Period.V))
	switch {
	case !c.Overlaps:
	case c.ReplacedAt != nil:
		line += fmt.Sprintf("; a run still active at the next start is deleted %s after it starts", secs(c.ReplacedAt.Lo))
	case c.LateStart != nil:
		line += fmt.Sprintf("; a run can outlast the period, skipping %d start(s), and the latest missed start runs %s late", c.SkippedStarts, between(*c.LateStart))
	case c.ConcurrentRuns > 0:
		line += fmt.Sprintf("; runs can overlap, up to %d at once", c.ConcurrentRuns)
	default:
		line += "; runs can overlap"
	}
	return line
}

// livenessRestarts states the restarts of a container its liveness probe
// kills in every run. The waits rise and fall (0s, 80s–110s, 0s–3m10s):
// the sentence says why, so that a reader need not take them for an
// error, and what the run is when the container is healthy for a while
// first.
func livenessRestarts(name string, lp *timeline.LivenessProbe) string {
	why := timeline.ProbeKillRestartRule
	unhealthy := fmt.Sprintf("if liveness kills %s at every start (runs of %s), the restarts wait %s",
		name, delayText(lp.NextStart.Interval), delaysText(lp.UnhealthyRestarts))
	switch h := lp.HealthyFor; {
	case h.Known && h.Seconds == 0:
		return fmt.Sprintf("its probe states its failure: liveness kills %s at every start (runs of %s), and the restarts wait %s: %s",
			name, delayText(lp.NextStart.Interval), delaysText(lp.Restarts), why)
	case h.Known:
		return fmt.Sprintf("%s is healthy for %s of each run, as its command and probe state, then killed (runs of %s): the restarts wait %s; %s; %s",
			name, secs(h.Seconds), delayText(lp.Restarts[0].Exit.Interval), delaysText(lp.Restarts), why, unhealthy)
	}
	return fmt.Sprintf("%s; %s, so a container healthy for a while before each kill (for how long, nothing states) can be restarted at once from restart 3 on: it waits %s",
		unhealthy, why, delaysText(lp.Restarts))
}

// crashLoop states the restart schedule of a container that keeps exiting
// (R-3, F-10), as JSON's controller.restartSchedule lists it: the back-off
// before each restart and when the last listed restart starts.
func crashLoop(tl *timeline.Timeline) string {
	rs := tl.Pod.RestartSchedule
	if len(rs) == 0 {
		return ""
	}
	run := "each run counted as 0s"
	switch d := tl.Pod.RestartRun; {
	case d.Known && tl.Pod.RestartRunFrom == "command":
		run = "each run lasting " + secs(d.Seconds) + " as its command states"
	case d.Known:
		run = "each run lasting " + secs(d.Seconds)
	}
	last := rs[len(rs)-1]
	if tl.Pod.Completes {
		return fmt.Sprintf("the commands exit 0, so the containers complete and are not restarted; only after %s: crash loop with back-offs of %s; restart %d starts %s after the first start (%s)",
			timeline.CompletesOtherwise, delaysText(rs), last.N, between(last.Start.Interval), run)
	}
	return fmt.Sprintf("crash loop: a container that keeps exiting is restarted after back-offs of %s; restart %d starts %s after the first start (%s)",
		delaysText(rs), last.N, between(last.Start.Interval), run)
}

// delaysText lists the waits before each restart: "0s, 10s–15s, …".
func delaysText(rs []timeline.Restart) string { return timeline.RestartWaits(rs) }

// delayText is a back-off, to a tenth of a second: "0s", "10s–15s".
func delayText(iv timeline.Interval) string { return timeline.FormatWait(iv) }

// replicas is "1 replica" or "3 replicas".
func replicas(n float64) string {
	if n == 1 {
		return "1 replica"
	}
	return number(n) + " replicas"
}

// number prints a count or a time in seconds in full: 2147483647, never
// 2.147483647e+09 as %g would.
func number(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
