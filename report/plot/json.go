package plot

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"time"

	"github.com/podlint/podlint/timeline"
)

// JSONSchemaVersion is bumped on incompatible changes of the JSON form
// documented in docs/timeline-output.md.
const JSONSchemaVersion = 1

// The JSON form is built from structs, not maps, so key order is fixed.
// Intervals are timeline.Interval: [lo, hi] with null for an unbounded hi.
// Absent probes and hooks are absent keys, never zeros.

type jsonDoc struct {
	SchemaVersion   int          `json:"schemaVersion"`
	ObservedProfile *jsonProfile `json:"observedProfile,omitempty"`
	Objects         []jsonObject `json:"objects"`
}

// jsonProfile is the podlint observe profile of the run (--observed, or
// observed: in the configuration).
type jsonProfile struct {
	// Source is how messages name it: "snapshot of 2026-12-01", with
	// ", stale: 45 days old" when Stale.
	Source string `json:"source"`
	Mode   string `json:"mode"`
	// From and To span its recordings (RFC 3339); absent when it has none.
	From  string `json:"from,omitempty"`
	To    string `json:"to,omitempty"`
	Stale bool   `json:"stale"`
}

// jsonObserved is what the profile saw of a container. Durations are
// seconds: start-ups from the container's start to Ready, shutdowns from
// the delete request to the container's exit.
type jsonObserved struct {
	Startup *jsonSeries `json:"startup,omitempty"`
	// PodStartup: the start-ups are the Pod's (it runs several
	// containers), the same for each of them.
	PodStartup        bool              `json:"podStartup,omitempty"`
	KilledBeforeReady *jsonCensored     `json:"killedBeforeReady,omitempty"`
	ProbeKills        *jsonProbeKills   `json:"probeKills,omitempty"`
	Shutdown          *jsonObservedStop `json:"shutdown,omitempty"`
}

type jsonSeries struct {
	Count  int     `json:"count"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
}

// jsonCensored: start-ups a probe cut short. NotReadyAfter is the longest
// killed run whose length is known, a lower bound of the start-up.
type jsonCensored struct {
	Kills         int      `json:"kills"`
	NotReadyAfter *float64 `json:"notReadyAfter,omitempty"`
}

type jsonProbeKills struct {
	Liveness int `json:"liveness"`
	Startup  int `json:"startup"`
}

type jsonObservedStop struct {
	jsonSeries
	SIGKILL int `json:"sigkill"`
}

type jsonObject struct {
	File              string          `json:"file"`
	Line              int             `json:"line"`
	APIVersion        string          `json:"apiVersion,omitempty"`
	Kind              string          `json:"kind"`
	Namespace         string          `json:"namespace"`
	Name              string          `json:"name"`
	KubernetesVersion string          `json:"kubernetesVersion"`
	Containers        []jsonContainer `json:"containers"`
	Pod               *jsonPod        `json:"pod,omitempty"`
	Controller        *jsonController `json:"controller,omitempty"`
	Rollout           *jsonRollout    `json:"rollout,omitempty"`
	Drain             *jsonDrain      `json:"drain,omitempty"`
	Notes             []jsonNote      `json:"notes,omitempty"`
	Errors            []string        `json:"errors,omitempty"`
	Fields            []jsonField     `json:"fields,omitempty"`
}

// jsonField is where a field the timeline depends on is written.
type jsonField struct {
	Path        string `json:"path"`
	File        string `json:"file"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	Approximate bool   `json:"approximate"`
}

type jsonContainer struct {
	Name            string             `json:"name"`
	Type            string             `json:"type"`
	Path            string             `json:"path"`
	Start           timeline.Interval  `json:"start"`
	StartUnknowns   []string           `json:"startUnknowns,omitempty"`
	ExpectedStartup *float64           `json:"expectedStartup,omitempty"`
	Started         *timeline.Interval `json:"started,omitempty"`
	Ready           *timeline.Interval `json:"ready,omitempty"`
	NeverReady      bool               `json:"neverReady,omitempty"`
	StartupProbe    *jsonStartup       `json:"startupProbe,omitempty"`
	LivenessProbe   *jsonLiveness      `json:"livenessProbe,omitempty"`
	ReadinessProbe  *jsonReadiness     `json:"readinessProbe,omitempty"`
	PostStart       *jsonHook          `json:"postStart,omitempty"`
	Termination     *jsonTermination   `json:"termination,omitempty"`
	InitFailure     *jsonInitFailure   `json:"initFailure,omitempty"`
	Observed        *jsonObserved      `json:"observed,omitempty"`
}

// jsonInitFailure is what a non-zero exit of a regular init container
// leads to: the Pod fails (podFailed, after the exit) or the container is
// retried (restarts, after its first start).
type jsonInitFailure struct {
	Outcome   string             `json:"outcome"`
	PodFailed *timeline.Interval `json:"podFailed,omitempty"`
	Restarts  []jsonRestart      `json:"restarts,omitempty"`
}

type jsonStartup struct {
	FirstProbe       timeline.Interval `json:"firstProbe"`
	GuaranteedBudget float64           `json:"guaranteedBudget"`
	MaxBudget        float64           `json:"maxBudget"`
	KillDecision     timeline.Interval `json:"killDecision"`
	KillDecisionHang timeline.Interval `json:"killDecisionHang"`
	KillGracePeriod  float64           `json:"killGracePeriod"`
	Kill             *jsonTermination  `json:"kill,omitempty"`
	Restarts         []jsonRestart     `json:"restarts,omitempty"`
}

type jsonLiveness struct {
	FirstProbe       timeline.Interval  `json:"firstProbe"`
	KillDecision     timeline.Interval  `json:"killDecision"`
	KillDecisionHang timeline.Interval  `json:"killDecisionHang"`
	HangDetection    timeline.Interval  `json:"hangDetection"`
	KillGracePeriod  float64            `json:"killGracePeriod"`
	NextStart        *timeline.Interval `json:"nextStart,omitempty"`
	GatedByStartup   bool               `json:"gatedByStartup"`
	Kill             *jsonTermination   `json:"kill,omitempty"`
	Restarts         []jsonRestart      `json:"restarts,omitempty"`
	// HealthyFor: absent when unknown (Restarts then covers runs of any
	// length); UnhealthyRestarts: the runs of the kill window.
	HealthyFor        *float64      `json:"healthyFor,omitempty"`
	UnhealthyRestarts []jsonRestart `json:"unhealthyRestarts,omitempty"`
}

type jsonReadiness struct {
	FirstProbe        timeline.Interval `json:"firstProbe"`
	FirstProbeTypical float64           `json:"firstProbeTypical"`
	Ready             timeline.Interval `json:"ready"`
	NotReadyDetection timeline.Interval `json:"notReadyDetection"`
	// NotReadyDetectionFast: the check fails fast rather than hangs.
	NotReadyDetectionFast timeline.Interval `json:"notReadyDetectionFast"`
	GatedByStartup        bool              `json:"gatedByStartup"`
}

type jsonHook struct {
	Kind     string            `json:"kind"`
	Duration timeline.Interval `json:"duration"`
	Exact    bool              `json:"exact"`
	Skipped  string            `json:"skipped,omitempty"`
}

type jsonTermination struct {
	GracePeriod float64           `json:"gracePeriod"`
	PreStop     *jsonHook         `json:"preStop,omitempty"`
	Sigterm     timeline.Interval `json:"sigterm"`
	Sigkill     timeline.Interval `json:"sigkill"`
	Exit        timeline.Interval `json:"exit"`
	WaitsFor    []string          `json:"waitsFor,omitempty"`
}

type jsonPod struct {
	Ready            *timeline.Interval `json:"ready"`
	NeverReady       bool               `json:"neverReady,omitempty"`
	ReadyUnknowns    []string           `json:"readyUnknowns,omitempty"`
	Initialized      timeline.Interval  `json:"initialized"`
	Terminated       timeline.Interval  `json:"terminated"`
	GracePeriod      float64            `json:"gracePeriod"`
	RestartPolicy    string             `json:"restartPolicy"`
	QOSClass         string             `json:"qosClass"`
	ActiveDeadline   *float64           `json:"activeDeadline,omitempty"`
	ReadinessGates   []string           `json:"readinessGates,omitempty"`
	SidecarStopOrder []string           `json:"sidecarStopOrder,omitempty"`
}

type jsonController struct {
	Kind              string             `json:"kind"`
	PodReadyWorstCase *timeline.Interval `json:"podReadyWorstCase,omitempty"`
	Unknowns          []string           `json:"unknowns,omitempty"`
	// Deployment
	ProgressDeadline  *float64           `json:"progressDeadline,omitempty"`
	MayExceedDeadline *bool              `json:"mayExceedDeadline,omitempty"`
	Rollout           *timeline.Interval `json:"rollout,omitempty"`
	// ProgressDeadlineExceeded: when the condition is written, after the
	// last progress; absent when the check is off.
	ProgressDeadlineExceeded *timeline.Interval `json:"progressDeadlineExceeded,omitempty"`
	// DaemonSet: its updateStrategy type, and why the API server rejects
	// the strategy ("" when it does not).
	Strategy string `json:"strategy,omitempty"`
	Invalid  string `json:"invalid,omitempty"`
	// StatefulSet
	Creation      *timeline.Interval `json:"creation,omitempty"`
	RollingUpdate *timeline.Interval `json:"rollingUpdate,omitempty"`
	// MaxUnavailable: the Pods a StatefulSet rolling update replaces at once.
	MaxUnavailable *float64 `json:"maxUnavailable,omitempty"`
	// Job
	BackoffLimit   *float64           `json:"backoffLimit,omitempty"`
	BackoffCap     *float64           `json:"backoffCap,omitempty"`
	JobRetries     *timeline.Interval `json:"jobRetries,omitempty"`
	ActiveDeadline *float64           `json:"activeDeadline,omitempty"`
	JobGivesUp     *timeline.Interval `json:"jobGivesUp,omitempty"`
	JobUnknowns    []string           `json:"jobUnknowns,omitempty"`
	DeadlineFirst  *bool              `json:"deadlineFirst,omitempty"`
	// JobFailureAction is the podFailurePolicy's action for a crash no
	// rule names; JobNotCounted why failures never reach backoffLimit.
	JobFailureAction string `json:"jobFailureAction,omitempty"`
	JobNotCounted    string `json:"jobNotCounted,omitempty"`
	// JobFailureOutcomes: every action the podFailurePolicy can take on a
	// failed Pod (Count: no rule matches); JobParallelism the Pods that
	// run and fail at once; MaxFailedIndexes with backoffLimitPerIndex.
	JobFailureOutcomes []string `json:"jobFailureOutcomes,omitempty"`
	JobParallelism     *float64 `json:"jobParallelism,omitempty"`
	MaxFailedIndexes   *float64 `json:"maxFailedIndexes,omitempty"`
	// CronJob: the schedule's shortest period, the concurrency policy,
	// startingDeadlineSeconds, how long a run can last (the Job's
	// jobGivesUp) and what the policy does when it outlasts the period.
	SchedulePeriod    *float64           `json:"schedulePeriod,omitempty"`
	ConcurrencyPolicy string             `json:"concurrencyPolicy,omitempty"`
	StartingDeadline  *float64           `json:"startingDeadline,omitempty"`
	RunOverlaps       *bool              `json:"runOverlaps,omitempty"`
	ConcurrentRuns    *int               `json:"concurrentRuns,omitempty"`
	SkippedStarts     *int               `json:"skippedStarts,omitempty"`
	LateStart         *timeline.Interval `json:"lateStart,omitempty"`
	ReplacedAt        *timeline.Interval `json:"replacedAt,omitempty"`
	// Pods restarted by the kubelet (a container restarted after a failure)
	RestartSchedule []jsonRestart `json:"restartSchedule,omitempty"`
	// RestartRun: the run before each exit the schedule assumes, with its
	// source; absent when unknown, and then restartScheduleUnknowns names
	// the term its exits and starts leave out.
	RestartRun              *float64 `json:"restartRun,omitempty"`
	RestartRunFrom          string   `json:"restartRunFrom,omitempty"`
	RestartScheduleUnknowns []string `json:"restartScheduleUnknowns,omitempty"`
	// StatedOutcome and RestartScheduleCause: when the commands state
	// exit 0 and nothing restarts a success, what the stated path does,
	// and what the restart schedule then needs.
	StatedOutcome        string `json:"statedOutcome,omitempty"`
	RestartScheduleCause string `json:"restartScheduleCause,omitempty"`
}

// jsonRestart: exit is when the kubelet sees the previous instance's exit
// (up to ε after it), delay the back-off from there, start the restarted
// instance; all but delay relative to the first start.
type jsonRestart struct {
	Restart int               `json:"restart"`
	Exit    timeline.Interval `json:"exit"`
	Delay   timeline.Interval `json:"delay"`
	Start   timeline.Interval `json:"start"`
}

func restartsJSON(rs []timeline.Restart) []jsonRestart {
	var out []jsonRestart
	for _, r := range rs {
		out = append(out, jsonRestart{Restart: r.N, Exit: r.Exit.Interval, Delay: r.Delay, Start: r.Start.Interval})
	}
	return out
}

func terminationJSON(t *timeline.Termination) *jsonTermination {
	if t == nil {
		return nil
	}
	return &jsonTermination{GracePeriod: t.GracePeriod.V, PreStop: hookJSON(t.PreStop), Sigterm: t.StopSignal.Interval,
		Sigkill: t.SIGKILL.Interval, Exit: t.Exit.Interval, WaitsFor: t.WaitsFor}
}

type jsonRollout struct {
	Replicas      jsonReplicas      `json:"replicas"`
	Strategy      string            `json:"strategy"`
	ExclusiveNode string            `json:"exclusiveNode,omitempty"`
	Nodes         *int              `json:"nodes,omitempty"`
	Assumption    string            `json:"assumption,omitempty"`
	Cases         []jsonRolloutCase `json:"cases"`
}

type jsonReplicas struct {
	Min    int32  `json:"min"`
	Max    int32  `json:"max"`
	Source string `json:"source"`
}

type jsonRolloutCase struct {
	Replicas       int32             `json:"replicas"`
	MaxSurge       int32             `json:"maxSurge"`
	MaxUnavailable int32             `json:"maxUnavailable"`
	MaxPods        int32             `json:"maxPods"`
	MinAvailable   int32             `json:"minAvailable"`
	Waves          []jsonWave        `json:"waves"`
	Duration       timeline.Interval `json:"duration"`
	Stall          string            `json:"stall,omitempty"`
}

type jsonWave struct {
	Wave    int               `json:"wave"`
	Removed int32             `json:"removed"`
	Created int32             `json:"created"`
	Start   timeline.Interval `json:"start"`
	Ready   timeline.Interval `json:"ready"`
}

type jsonDrain struct {
	PodDisruptionBudget string            `json:"podDisruptionBudget,omitempty"`
	ExpectedPods        int32             `json:"expectedPods"`
	DesiredHealthy      int32             `json:"desiredHealthy"`
	DisruptionsAllowed  int32             `json:"disruptionsAllowed"`
	PodsOnNode          int32             `json:"podsOnNode"`
	Assumption          string            `json:"assumption,omitempty"`
	Blocked             string            `json:"blocked,omitempty"`
	Evictions           []jsonEviction    `json:"evictions,omitempty"`
	HoldsNode           timeline.Interval `json:"holdsNode"`
	Recovered           timeline.Interval `json:"recovered"`
}

type jsonEviction struct {
	Pod              int               `json:"pod"`
	Evicted          timeline.Interval `json:"evicted"`
	Terminated       timeline.Interval `json:"terminated"`
	ReplacementReady timeline.Interval `json:"replacementReady"`
}

func rolloutJSON(r *timeline.Rollout) *jsonRollout {
	if r == nil {
		return nil
	}
	out := &jsonRollout{Replicas: jsonReplicas{Min: r.Replicas.Min, Max: r.Replicas.Max, Source: r.Replicas.Source}, Strategy: r.Strategy,
		ExclusiveNode: r.Exclusive, Assumption: r.Assumption, Cases: []jsonRolloutCase{}}
	if r.Nodes > 0 {
		out.Nodes = ptr(r.Nodes)
	}
	for _, c := range r.Cases {
		jc := jsonRolloutCase{Replicas: c.Replicas, MaxSurge: c.MaxSurge, MaxUnavailable: c.MaxUnavailable, MaxPods: c.MaxPods,
			MinAvailable: c.MinAvailable, Waves: []jsonWave{}, Duration: c.Duration, Stall: c.Stall}
		for _, w := range c.Waves {
			jc.Waves = append(jc.Waves, jsonWave{Wave: w.N, Removed: w.Removed, Created: w.Created, Start: w.Start, Ready: w.Ready})
		}
		out.Cases = append(out.Cases, jc)
	}
	return out
}

func drainJSON(d *timeline.Drain) *jsonDrain {
	if d == nil {
		return nil
	}
	out := &jsonDrain{PodDisruptionBudget: d.Budget, ExpectedPods: d.ExpectedPods, DesiredHealthy: d.DesiredHealthy, DisruptionsAllowed: d.DisruptionsAllowed,
		PodsOnNode: d.PodsOnNode, Assumption: d.Assumption, Blocked: d.Blocked, HoldsNode: d.HoldsNode, Recovered: d.Recovered}
	for _, e := range d.Evictions {
		out.Evictions = append(out.Evictions, jsonEviction{Pod: e.Pod, Evicted: e.Evicted, Terminated: e.Terminated, ReplacementReady: e.ReplacementReady})
	}
	return out
}

type jsonNote struct {
	Path string `json:"path,omitempty"`
	Text string `json:"text"`
}

func ptr[T any](v T) *T { return &v }

func hookJSON(h *timeline.Hook) *jsonHook {
	if h == nil {
		return nil
	}
	return &jsonHook{Kind: h.Kind, Duration: h.Duration.Interval, Exact: h.Exact, Skipped: h.Skipped}
}

// JSON writes the documented machine-readable form (docs/timeline-output.md).
func JSON(w io.Writer, items []Item) error {
	doc := jsonDoc{SchemaVersion: JSONSchemaVersion, Objects: []jsonObject{}}
	for _, it := range items {
		doc.Objects = append(doc.Objects, objectJSON(it))
		if p := it.Timeline; p != nil && p.Params.Observed != nil && doc.ObservedProfile == nil {
			doc.ObservedProfile = profileJSON(p.Params.Observed)
		}
	}
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return err
	}
	// Keep intervals on one line: "[25, 35]" reads better than four lines.
	_, err := w.Write(intervalRE.ReplaceAll(out.Bytes(), []byte("[$1, $2]")))
	return err
}

// intervalRE matches an indented two-element array of numbers or null; a
// raw newline cannot occur inside a JSON string, so strings never match.
var intervalRE = regexp.MustCompile(`\[\n\s*(-?[0-9][0-9.eE+-]*|null),\n\s*(-?[0-9][0-9.eE+-]*|null)\n\s*\]`)

func objectJSON(it Item) jsonObject {
	o := jsonObject{File: it.File, Line: it.Line, APIVersion: it.APIVersion, Kind: it.Kind, Namespace: it.Namespace, Name: it.Name, Containers: []jsonContainer{}}
	tl := it.Timeline
	if tl == nil {
		return o
	}
	o.KubernetesVersion = tl.Version.String()
	for _, c := range tl.Containers {
		jc := jsonContainer{Name: c.Name, Type: string(c.Type), Path: string(c.Path), Start: c.Start.Interval, StartUnknowns: c.Start.Plus}
		if c.ExpectedStartup.OK {
			jc.ExpectedStartup = ptr(c.ExpectedStartup.Seconds)
		}
		if c.Type != timeline.Init {
			jc.Started = ptr(c.Started.Interval)
		}
		if c.Ready != nil {
			jc.Ready = ptr(c.Ready.Interval)
			jc.NeverReady = c.Ready.Never
		}
		if s := c.Startup; s != nil {
			jc.StartupProbe = &jsonStartup{FirstProbe: s.FirstProbe.Interval, GuaranteedBudget: s.GuaranteedBudget.Lo, MaxBudget: s.MaxBudget.Lo,
				KillDecision: s.KillDecision.Interval, KillDecisionHang: s.KillDecisionHang.Interval, KillGracePeriod: s.GracePeriod.V,
				Kill: terminationJSON(s.Kill), Restarts: restartsJSON(s.Restarts)}
		}
		if l := c.Liveness; l != nil {
			jl := &jsonLiveness{FirstProbe: l.FirstProbe.Interval, KillDecision: l.KillDecision.Interval, KillDecisionHang: l.KillDecisionHang.Interval,
				HangDetection: l.HangDetection.Interval, KillGracePeriod: l.GracePeriod.V, GatedByStartup: l.Gated,
				Kill: terminationJSON(l.Kill), Restarts: restartsJSON(l.Restarts), UnhealthyRestarts: restartsJSON(l.UnhealthyRestarts)}
			if l.HealthyFor.Known {
				jl.HealthyFor = ptr(l.HealthyFor.Seconds)
			}
			if l.NextStart != nil {
				jl.NextStart = ptr(l.NextStart.Interval)
			}
			jc.LivenessProbe = jl
		}
		if r := c.Readiness; r != nil {
			jr := &jsonReadiness{FirstProbe: r.FirstProbe.Interval, FirstProbeTypical: r.FirstProbeTypical, NotReadyDetection: r.NotReadyDetection.Interval,
				NotReadyDetectionFast: r.NotReadyDetectionFast.Interval, GatedByStartup: r.Gated}
			if c.Ready != nil {
				jr.Ready = c.Ready.Interval
			}
			jc.ReadinessProbe = jr
		}
		jc.PostStart = hookJSON(c.PostStart)
		jc.Termination = terminationJSON(c.Termination)
		if f := c.InitFailure; f != nil {
			jf := &jsonInitFailure{Outcome: "restarted", Restarts: restartsJSON(f.Restarts)}
			if f.PodFails {
				jf.Outcome = "podFailed"
				jf.PodFailed = ptr(f.PodFailed.Interval)
			}
			jc.InitFailure = jf
		}
		if ob, ok := it.observedOf(c); ok {
			jc.Observed = observedJSON(ob)
		}
		o.Containers = append(o.Containers, jc)
	}
	if p := tl.Pod; p != nil {
		jp := &jsonPod{Initialized: p.Initialized.Interval, Terminated: p.Terminated.Interval, GracePeriod: p.GracePeriod.V,
			RestartPolicy: string(p.RestartPolicy), QOSClass: string(p.QOSClass), ReadinessGates: p.ReadinessGates, SidecarStopOrder: p.SidecarStopOrder}
		if p.Ready != nil {
			jp.Ready = ptr(p.Ready.Interval)
			jp.NeverReady = p.Ready.Never
			jp.ReadyUnknowns = p.Ready.Plus
		}
		if p.ActiveDeadline != nil {
			jp.ActiveDeadline = ptr(p.ActiveDeadline.V)
		}
		o.Pod = jp
	}
	o.Controller = controllerJSON(it.Kind, tl)
	o.Rollout = rolloutJSON(it.rollout())
	o.Drain = drainJSON(it.Drain)
	for _, n := range tl.Notes {
		o.Notes = append(o.Notes, jsonNote{Path: string(n.Path), Text: n.Text})
	}
	for _, e := range tl.Errors {
		o.Errors = append(o.Errors, e.Error())
	}
	for _, f := range it.Fields {
		o.Fields = append(o.Fields, jsonField(f))
	}
	return o
}

func controllerJSON(kind string, tl *timeline.Timeline) *jsonController {
	c := &jsonController{Kind: kind}
	used := false
	if tl.Pod != nil {
		if tl.Pod.Ready != nil {
			c.PodReadyWorstCase = ptr(tl.Pod.Ready.Interval)
			c.Unknowns = tl.Pod.Ready.Plus
		}
		c.RestartSchedule = restartsJSON(tl.Pod.RestartSchedule)
		if rs := tl.Pod.RestartSchedule; len(rs) > 0 {
			if tl.Pod.RestartRun.Known {
				c.RestartRun, c.RestartRunFrom = ptr(tl.Pod.RestartRun.Seconds), tl.Pod.RestartRunFrom
			}
			c.RestartScheduleUnknowns = rs[0].Exit.Plus
			if tl.Pod.Completes {
				c.StatedOutcome, c.RestartScheduleCause = "completes, not restarted", timeline.CompletesOtherwise
			}
		}
		used = true
	}
	if d := tl.Deployment; d != nil {
		c.PodReadyWorstCase = ptr(d.PodReady.Interval)
		c.ProgressDeadline = ptr(d.ProgressDeadline.V)
		if d.DeadlineExceeded != nil {
			c.ProgressDeadlineExceeded = ptr(d.DeadlineExceeded.Interval)
		}
		c.MayExceedDeadline = ptr(d.MayExceedDeadline)
		c.Rollout = ptr(d.Rollout.Interval)
		used = true
	}
	if d := tl.DaemonSet; d != nil {
		c.Strategy = d.Strategy
		c.Invalid = d.Invalid
		used = true
	}
	if s := tl.StatefulSet; s != nil {
		c.Creation = ptr(s.Creation.Interval)
		if s.RollingUpdate != nil {
			c.RollingUpdate = ptr(s.RollingUpdate.Interval)
			c.MaxUnavailable = ptr(s.MaxUnavailable.V)
		}
		used = true
	}
	if j := tl.Job; j != nil {
		c.BackoffLimit = ptr(j.BackoffLimit.V)
		c.BackoffCap = ptr(j.BackoffCap)
		c.JobRetries = ptr(j.Retries.Interval)
		c.JobGivesUp = ptr(j.GivesUp.Interval)
		c.JobUnknowns = j.GivesUp.Plus
		c.DeadlineFirst = ptr(j.DeadlineFirst)
		c.JobFailureAction, c.JobNotCounted = string(j.OnFailure.Action), j.NotCounted
		for _, a := range j.FailureOutcomes {
			c.JobFailureOutcomes = append(c.JobFailureOutcomes, string(a))
		}
		c.JobParallelism = ptr(j.Parallelism.V)
		if j.MaxFailedIndexes != nil {
			c.MaxFailedIndexes = ptr(j.MaxFailedIndexes.V)
		}
		if j.ActiveDeadline != nil {
			c.ActiveDeadline = ptr(j.ActiveDeadline.V)
		}
		used = true
	}
	if cj := tl.CronJob; cj != nil {
		if cj.Period.Set {
			c.SchedulePeriod = ptr(cj.Period.V)
		}
		c.ConcurrencyPolicy = cj.ConcurrencyPolicy
		if cj.StartingDeadline != nil {
			c.StartingDeadline = ptr(cj.StartingDeadline.V)
		}
		if cj.Period.Set && tl.Job != nil {
			c.RunOverlaps = ptr(cj.Overlaps)
		}
		if cj.Overlaps {
			switch {
			case cj.ReplacedAt != nil:
				c.ReplacedAt = ptr(cj.ReplacedAt.Interval)
			case cj.LateStart != nil:
				c.SkippedStarts = ptr(cj.SkippedStarts)
				c.LateStart = cj.LateStart
			default:
				c.ConcurrentRuns = ptr(cj.ConcurrentRuns)
			}
		}
		used = true
	}
	if !used {
		return nil
	}
	return c
}

func profileJSON(p *timeline.Observed) *jsonProfile {
	out := &jsonProfile{Source: p.Source, Mode: p.Mode, Stale: p.Stale}
	if !p.To.IsZero() {
		out.From, out.To = p.From.UTC().Format(time.RFC3339), p.To.UTC().Format(time.RFC3339)
	}
	return out
}

func observedJSON(o timeline.ObservedContainer) *jsonObserved {
	out := &jsonObserved{PodStartup: o.PodStartup}
	if o.Starts > 0 {
		out.Startup = &jsonSeries{Count: o.Starts, Min: o.StartupMin, Median: o.StartupMedian, P95: o.StartupP95, Max: o.StartupMax}
	}
	if o.KillsBeforeReady > 0 {
		out.KilledBeforeReady = &jsonCensored{Kills: o.KillsBeforeReady}
		if o.NotReadyAfter > 0 {
			out.KilledBeforeReady.NotReadyAfter = ptr(o.NotReadyAfter)
		}
	}
	if o.LivenessProbeKills > 0 || o.StartupProbeKills > 0 {
		out.ProbeKills = &jsonProbeKills{Liveness: o.LivenessProbeKills, Startup: o.StartupProbeKills}
	}
	if o.Shutdowns > 0 {
		out.Shutdown = &jsonObservedStop{jsonSeries: jsonSeries{Count: o.Shutdowns, Min: o.ShutdownMin, Median: o.ShutdownMedian, P95: o.ShutdownP95, Max: o.ShutdownMax},
			SIGKILL: o.SIGKILLs}
	}
	return out
}
