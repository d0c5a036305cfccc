package timeline

import "github.com/podlint/podlint/workload"

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// ContainerType distinguishes the three kinds of containers whose lifecycles
// differ.
type ContainerType string

const (
	// Regular is an entry of spec.containers.
	Regular ContainerType = "container"
	// Init is a regular init container: runs to completion, in order,
	// before anything else; never probed.
	Init ContainerType = "init"
	// Sidecar is an init container with restartPolicy Always (≥ 1.29):
	// started in its init slot, probed, kept running, stopped last.
	Sidecar ContainerType = "sidecar"
)

// Noun is how messages name a container of the type: "container", "init
// container" or "sidecar".
func (t ContainerType) Noun() string {
	if t == Init {
		return "init container"
	}
	return string(t)
}

// Timeline is everything Compute derives for one workload. Times are
// relative to the event named on each field; see the package doc.
type Timeline struct {
	Kind    string
	Version Version
	// Params are the effective parameters (after cleaning).
	Params Params

	// Pod is nil when the workload has no pod spec.
	Pod *Pod
	// Containers lists init containers and sidecars in declaration order,
	// then regular containers.
	Containers []*Container

	// At most one controller part is set (a CronJob sets Job and CronJob).
	Deployment  *Deployment
	StatefulSet *StatefulSet
	DaemonSet   *DaemonSet
	Job         *Job
	// CronJob is set beside Job for a CronJob.
	CronJob *CronJob

	// Notes are remarks of the model (ignored fields on this version,
	// coerced values, assumptions).
	Notes []Note
	// Errors are malformed podlint.dev/expected-* annotations
	// (*AnnotationError); the model went on without them.
	Errors []error
}

// Container returns the container (of any type) with the given name, or nil.
func (t *Timeline) Container(name string) *Container {
	if t == nil {
		return nil
	}
	for _, c := range t.Containers {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ContainersOf returns the containers of one type in declaration order.
func (t *Timeline) ContainersOf(typ ContainerType) []*Container {
	if t == nil {
		return nil
	}
	var out []*Container
	for _, c := range t.Containers {
		if c.Type == typ {
			out = append(out, c)
		}
	}
	return out
}

// Container is the lifecycle of one container.
type Container struct {
	Name  string
	Type  ContainerType
	Index int           // index in spec.containers or spec.initContainers
	Path  workload.Path // full field path of the container

	// Start is S, the container's start instant, relative to pod creation
	// (F-9 start chain). Probe and Ready times below are relative to S.
	Start Span
	// Pull is the image pull before Start (Params or symbolic).
	Pull Span
	// Run is a regular init container's run time (nil for other types).
	Run *Span
	// Done is when a regular init container is observed complete, or when a
	// sidecar lets the next init container start, relative to pod creation.
	Done *Span

	// PostStart is nil without a postStart hook (T-6): it blocks the start
	// of the next container and probe-driven kills.
	PostStart *Hook

	// Probes; nil when absent (always nil for regular init containers).
	Startup   *StartupProbe
	Liveness  *LivenessProbe
	Readiness *ReadinessProbe

	// Started: when the container counts as started, relative to S: [0, ε)
	// without a startup probe; the first startup success otherwise (F-6,
	// F-8). HiUnbounded if the expected start-up never passes the probe.
	Started Span
	// Ready: when the container first becomes ready, relative to S (F-8,
	// F-2, X-1). Nil for regular init containers. Lo assumes the app is
	// healthy at AppStart.Lo; Hi the latest start the probes tolerate.
	Ready *Span
	// AppStart is the application start-up time used (expected-startup
	// annotation/config, Params) — unknown when !Known.
	AppStart Duration
	// AppShutdown is the shutdown time used, likewise.
	AppShutdown Duration
	// ExpectedStartup/ExpectedShutdown are the user-stated values with
	// their source (annotation or config), OK=false when none.
	ExpectedStartup  Expected
	ExpectedShutdown Expected

	// Termination on pod deletion, relative to the delete request
	// (F-11, T-2, T-4). For a regular init container it is what happens
	// when the Pod is deleted while that container still runs (T-3:
	// every running container is stopped, init containers included);
	// one that has completed is not stopped again.
	Termination *Termination

	// Restarts is whether a probe kill restarts the container (R-2: the
	// Pod's restartPolicy, or the container's own with ContainerRestartRules
	// on this version, sidecars always).
	Restarts bool
	// InitFailure is what a non-zero exit of a regular init container
	// leads to; nil for other types.
	InitFailure *InitFailure

	// RestartsOnFailure is whether the container is restarted after it
	// exits with a non-zero code that no restartPolicyRules entry lists
	// like Restarts, unless the first rule matching such a code
	// (operator NotIn) says Restart.
	RestartsOnFailure bool
}

// Probe holds the defaulted settings of one probe (P-1) and its first run.
type Probe struct {
	Path    workload.Path
	Handler string // exec | httpGet | tcpSocket | grpc | "" when none is set
	// After defaulting: D, P, T, ST, FT.
	InitialDelay, Period, Timeout, SuccessThreshold, FailureThreshold Value
	// Spacing is Δ = max(P, T), the distance between probes against a
	// hanging target (P-7).
	Spacing float64
	// FirstProbe is when the first probe runs, relative to S: F-1
	// [D⁻, max(D, ε) + P) with D⁻ = max(D − 1, 0): startedAt is kept in
	// whole seconds, so probing may begin at ⌊S⌋ + D (P-11). D⁻ replaces
	// D in every lower edge below.
	// With a startup probe, liveness and readiness are gated (F-5).
	FirstProbe Span
}

// StartupProbe: F-6.
type StartupProbe struct {
	Probe
	// GuaranteedBudget B_g = D⁻ + (FT−1)·P: an app healthy by then always
	// passes (exact value, Lo == Hi).
	GuaranteedBudget Span
	// MaxBudget B_max = max(D, ε) + FT·P: an app healthy at or after it
	// never passes (exclusive edge, lucky phase).
	MaxBudget Span
	// KillDecision: the app never becomes healthy, failures are fast (d=0):
	// [D⁻ + (FT−1)·P, max(D, ε) + FT·P).
	KillDecision Span
	// KillDecisionHang: the target hangs, each probe takes T:
	// [D⁻ + (FT−1)·Δ + T, max(D, ε) + P + (FT−1)·Δ + T).
	KillDecisionHang Span
	// GracePeriod for the startup kill: probe TGPS ?? pod TGPS (T-2).
	GracePeriod Value
	// Kill is the kill after KillDecision, relative to the decision
	// (λ included).
	Kill *Termination
	// Restarts is the restart schedule of a container that never passes
	// its startup probe and so is killed by it at every start, relative to
	// the first S: computed as LivenessProbe.UnhealthyRestarts (R-3 liveness
	// kills), the same sync killing and restarting it. Nil when the
	// container is not restarted.
	Restarts []Restart
}

// Outcome says whether a probe may and must act for an application that
// becomes healthy h seconds after container start.
func (s *StartupProbe) Outcome(h float64) (mayKill, mustKill bool) {
	return h > s.GuaranteedBudget.Lo, h >= s.MaxBudget.Hi
}

// LivenessProbe: F-4, F-5, F-7.
type LivenessProbe struct {
	Probe
	// KillDecision: the container is unhealthy from its start (with a
	// startup probe: from startup success), fast failures (d = 0), F-4:
	// [D + (FT−1)·P, max(D, ε) + FT·P). The docs' "D + FT·P" is the
	// exclusive upper edge; the earliest kill is one period sooner.
	KillDecision Span
	// KillDecisionHang: same, the target hangs (d = T, Δ = max(P, T)).
	KillDecisionHang Span
	// HangDetection, relative to the instant h the target hangs, F-7:
	// [(FT−1)·Δ + T, FT·Δ + T).
	HangDetection Span
	// GracePeriod for the liveness kill: probe TGPS ?? pod TGPS (T-2).
	GracePeriod Value
	// Kill is the kill after a decision, relative to the decision
	// (λ, preStop, stop signal, SIGKILL).
	Kill *Termination
	// NextStart is when the replacement container starts, relative to S,
	// for a container unhealthy from its start (first kill restarts
	// immediately, R-3); nil when the container is not restarted.
	NextStart *Span
	// Restarts is the restart schedule of a container that this probe
	// kills in every run, relative to the first S (R-3 liveness kills):
	// the back-off check of the killing sync looks at the instance that
	// exited before, so a restart is immediate when the time between the
	// two previous exits covers the current back-off, and the run is a
	// term. With HealthyFor known each run is that long healthy, then
	// killed (0: UnhealthyRestarts); with it unknown a run may last any
	// time from the kill window on, so every restart from the third may
	// be immediate (lower edge 0) and the exits and starts have no upper
	// edge. Nil when the container is not restarted.
	Restarts []Restart
	// UnhealthyRestarts is Restarts for a container unhealthy from every
	// start: each run lasts the kill window (NextStart).
	UnhealthyRestarts []Restart
	// HealthyFor is how long each run stays healthy before the probe
	// starts failing, when the command and the probe state it
	// (StatedHealth): 0 for a probe that states its failure.
	HealthyFor Duration
	// Gated is true when a startup probe gates this probe (F-5).
	Gated bool
}

// FailingFrom is the kill decision for a target that is healthy until h
// (seconds after S) and then fails fast (hang=false, d=0) or hangs
// (hang=true, d=T). For h after the first probe it is F-7 shifted by h.
func (l *LivenessProbe) FailingFrom(h float64, hang bool) Interval {
	if h <= l.FirstProbe.Lo {
		if hang {
			return l.KillDecisionHang.Interval
		}
		return l.KillDecision.Interval
	}
	P, FT := l.Period.V, l.FailureThreshold.V
	if hang {
		return l.HangDetection.Interval.Shift(h)
	}
	return Between(h+(FT-1)*P, h+FT*P)
}

// Outcome: for an app that needs h seconds to become healthy (no startup
// probe), may / must the liveness probe kill it first.
func (l *LivenessProbe) Outcome(h float64) (mayKill, mustKill bool) {
	return l.KillDecision.Lo < h, !l.KillDecision.HiUnbounded && l.KillDecision.Hi <= h
}

// ReadinessProbe: F-2, F-7.
type ReadinessProbe struct {
	Probe
	// FirstProbeTypical is the usual first attempt without extra pod syncs
	// ε when D ≤ ε (fast path at the sync that observes the start),
	// else ε + ⌈(D−ε)/P⌉·P — about one period, not D — since the ticker
	// reset of 1.32 (Version.ProbeTickerReset); before, D + P/2.
	FirstProbeTypical float64
	// FastPath is D ≤ ε: the first attempt races the status write (F-2).
	FastPath bool
	// NotReadyDetection, relative to the instant h the target starts
	// failing (hang), F-7 with readiness fields.
	NotReadyDetection Span
	// NotReadyDetectionFast: the check fails fast from h on (d = 0), so
	// each failure counts when its command exits: [(FT−1)·P, FT·P) (F-7).
	NotReadyDetectionFast Span
	Gated                 bool
}

// Hook is a preStop or postStart handler.
type Hook struct {
	Path workload.Path
	Kind string // sleep | exec | httpGet | tcpSocket
	// Duration: sleep → exact; exec with "sleep N" → Lo = N (a lower
	// bound); otherwise unknown. For preStop the Hi is the grace period
	// (the hook is cut there); for postStart an unknown Hi is unbounded.
	Duration Span
	// Exact is true for sleep actions.
	Exact bool
	// Skipped says why the hook does not run ("" when it does): sleep on a
	// version without the action, grace period 0, tcpSocket handler.
	Skipped string
}

// Termination is one container kill (T-2). Times are relative to the
// trigger: the delete request, or the probe verdict for probe kills.
type Termination struct {
	// Reason: delete | liveness | startup.
	Reason string
	// GracePeriod G handed to this kill.
	GracePeriod Value
	// PreStop is nil without a preStop hook.
	PreStop *Hook
	// StopSignal: when the stop signal (SIGTERM unless STOPSIGNAL) is sent:
	// after the preStop hook; for sidecars after the containers it waits
	// for (T-4).
	StopSignal Span
	// SIGKILL: when the runtime SIGKILLs a container still running:
	// stop + max(G − ⌊elapsed⌋, 2) (the 2 s floor, X-7); ≤ G + 2; on a
	// delete up to Params.StopLatency later, as the runtime delivers it
	// (T-9).
	SIGKILL Span
	// Exit: when the container is gone (stop + shutdown time, at most
	// SIGKILL).
	Exit Span
	// WaitsFor names the containers a sidecar waits for before its stop
	// signal (all regular containers and the next-declared sidecar).
	WaitsFor []string
}

// Pod is the pod-level part of the timeline. Pod-relative times start at
// pod creation.
type Pod struct {
	Path          workload.Path
	RestartPolicy corev1.RestartPolicy
	// GracePeriod is the effective pod TGPS (nil → 30, negative → 1).
	GracePeriod Value
	// ActiveDeadline is spec.activeDeadlineSeconds (nil when unset),
	// measured from the pod's start time (pulls and init count, §5.6).
	ActiveDeadline *Value
	QOSClass       corev1.PodQOSClass
	// ReadinessGates are the condition types Ready also waits for.
	ReadinessGates []string
	// Initialized: every init container done and sidecar started.
	Initialized Span
	// Ready: earliest / latest Pod Ready after creation (F-9 + F-8):
	// maximum over regular containers and sidecars; readiness gates add a
	// Plus term. HiUnbounded when some container's readiness is unbounded;
	// nil when the pod has no regular container.
	Ready *Span
	// Terminated: when the last container is gone after a delete request
	// (F-11), ≤ G + 2 + Params.StopLatency.
	Terminated Span
	// SidecarStopOrder: sidecars in the order they get their stop signal
	// (reverse declaration order, T-4).
	SidecarStopOrder []string
	// RestartSchedule is the crash-loop schedule of a container that keeps
	// exiting after RestartRun seconds (R-3, F-10); nil when no regular
	// container is restarted after a failure (Pod restartPolicy Never, or
	// every container's own policy Never, R-5). With the run unknown each
	// run counts as 0 and every Exit and Start carries the term
	// RestartRunUnknown.
	RestartSchedule []Restart
	// RestartRun is how long the crash-looping container runs before each
	// exit: what the commands state (StatedRun: the shortest over the
	// regular containers restarted after a failure, when each states one),
	// else Params.CrashRun; Known false otherwise.
	RestartRun Duration
	// RestartRunFrom says where RestartRun comes from: "command" or
	// "params"; "" when unknown.
	RestartRunFrom string
	// Completes is true when every regular container restarted after a
	// failure states exit 0 and is not restarted after a success
	// (OnFailure, or rules that do not restart code 0; R-1): the stated
	// path ends there, and RestartSchedule is only the branch of an OOM
	// kill or another non-zero exit.
	Completes bool
}

// CompletesOtherwise is what a Pod whose commands state exit 0 needs to
// enter its crash loop (Pod.Completes).
const CompletesOtherwise = "an OOM kill or another non-zero exit"

// RestartRunUnknown is the term a restart schedule's exits and starts
// carry when the run before each exit is unknown.
func RestartRunUnknown(container string) string {
	return "run of " + container + " before each exit"
}

// InitFailure is the outcome of a regular init container that exits with
// a non-zero code: under an effective restartPolicy Never the Pod
// fails, otherwise the kubelet retries the init container with the crash
// back-off while the Pod stays Pending.
type InitFailure struct {
	// PodFails is true when the failure ends the Pod (Never).
	PodFails bool
	// PodFailed: when the Pod's phase becomes Failed, relative to the
	// init container's exit: the next PLEG relist, then the sync that
	// writes the phase, [0, ε + λ]. Nil when PodFails is false.
	PodFailed *Span
	// Restarts: the crash-loop schedule of an init container that keeps
	// failing at once, relative to its first start; nil when
	// PodFails.
	Restarts []Restart
}

// Restart is one step of a crash loop. Times relative to the first start.
type Restart struct {
	// N is the restart number (restartCount after it).
	N int
	// Exit of the instance before it, as the kubelet sees it: the
	// container's exit plus up to ε (PLEG relist and sync). For a crash
	// the back-off counts from there.
	Exit Span
	// Delay: back-off waited before this restart, from Exit (δ_n incl.
	// the re-queue overshoot). The back-off is a lower bound: a refused
	// restart is retried after a jittered delay.
	Delay Interval
	// Start of the restarted instance.
	Start Span
	// Reset: the back-off entry had expired or was garbage-collected, so
	// this restart came early and the next one waits the initial delay.
	Reset bool
}

// Deployment: F-13.
type Deployment struct {
	Path                     workload.Path
	Replicas                 Value
	Strategy                 string
	MaxSurge, MaxUnavailable Value // resolved to pods (ceil / floor fenceposts)
	MinReadySeconds          Value
	ProgressDeadline         Value
	Paused                   bool
	// PodReady is creation → Ready of one new pod (Pod.Ready).
	PodReady Span
	// OldPodsGone is delete → gone of an old Pod (Pod.Terminated): under
	// Recreate no new Pod is created before every old one is gone.
	OldPodsGone Span
	// MayExceedDeadline is true when PodReady's upper edge passes
	// ProgressDeadline, or has no bound at all (nothing in the spec limits
	// how late the Pod can become Ready).
	MayExceedDeadline bool
	// DeadlineExceeded is when Progressing=False with reason
	// ProgressDeadlineExceeded is written, relative to the last progress
	// (a new Pod created or counted Ready or available, an old one
	// removed): (D − 1, D + 1], lastUpdateTime having whole seconds and the
	// re-queue coming 1 s after the deadline. Nil when the check is off
	// (progressDeadlineSeconds 2147483647, or paused).
	DeadlineExceeded *Span
	// Rollout is the rough rollout estimate
	// ⌈replicas / (surge + unavailable)⌉ × (PodReady + minReadySeconds);
	// Recreate: Terminated + PodReady + minReadySeconds.
	Rollout Span
}

// StatefulSet: F-14.
type StatefulSet struct {
	Path                workload.Path
	Replicas            Value
	PodManagementPolicy string
	UpdateStrategy      string
	Partition           Value
	MinReadySeconds     Value
	// Creation: OrderedReady Σ_i (PodReady + minReadySeconds); Parallel
	// one such term.
	Creation Span
	// MaxUnavailable is how many Pods a rolling update replaces at once:
	// 1 unless MaxUnavailableStatefulSet is on (1.37) and the field set.
	MaxUnavailable Value
	// RollingUpdate: the updated ordinals in waves of MaxUnavailable, each
	// Terminated + (PodReady + minReadySeconds) per Pod of the wave under
	// OrderedReady, once under Parallel; nil for OnDelete.
	RollingUpdate *Span
}

// Job: F-12.
type Job struct {
	Path          workload.Path
	RestartPolicy corev1.RestartPolicy
	// BackoffLimit (default 6); with backoffLimitPerIndex the per-index
	// limit (PerIndex true).
	BackoffLimit Value
	PerIndex     bool
	// BackoffCap: 360 s ≤ 1.27, 600 s since 1.28.
	BackoffCap float64
	// PodRun is how long one pod (Never) or one container run (OnFailure)
	// lasts before failing (Params.JobRun, else what the commands state,
	// else symbolic).
	PodRun Span
	// DeadlineEnds is when the Job is marked Failed after its
	// activeDeadlineSeconds, relative to its start: the deadline, plus,
	// where the version waits for terminating Pods (JobFinishedAfterPods),
	// the Pod's termination (T-2); nil without activeDeadlineSeconds.
	DeadlineEnds *Span
	// OnFailure is the podFailurePolicy's verdict on a failed Pod whose
	// container exited with a code no rule names (zero without a policy,
	// or when the containers restart in place).
	OnFailure FailureRule
	// FailureOutcomes lists the actions the podFailurePolicy can take on a
	// failed Pod, in rule order, Count standing for a failure no rule
	// matches: one action when every failing container states its exit
	// code (a literal exit N), several when some code is unknown; nil
	// without a policy on this version.
	FailureOutcomes []batchv1.PodFailurePolicyAction
	// Parallelism is how many Pods run at once: min(parallelism,
	// completions) after defaulting; its Path is the field that bounds it.
	Parallelism Value
	// Indexes is the number of indexes of an Indexed Job (completions), 0
	// otherwise.
	Indexes int64
	// MaxFailedIndexes is spec.maxFailedIndexes where backoffLimitPerIndex
	// applies (nil otherwise).
	MaxFailedIndexes *Value
	// CountsRestarts: failures are container restarts in place, counted
	// against backoffLimit (Pod restartPolicy OnFailure and no container
	// that says Never); otherwise each failure fails the Pod.
	CountsRestarts bool
	// NotCounted says why failures never reach the backoff limit ("" when
	// they do): containers restarted in place by their own restartPolicy
	// under a Pod restartPolicy Never, or a podFailurePolicy that ignores
	// them. Retries is then unbounded.
	NotCounted string
	// Retries: job start → BackoffLimitExceeded; with a FailJob (FailIndex)
	// rule for the failure, the first failed Pod (of an index).
	Retries Span
	// ActiveDeadline is the Job's activeDeadlineSeconds (nil when unset).
	ActiveDeadline *Value
	// GivesUp = min(Retries, ActiveDeadline).
	GivesUp Span
	// DeadlineFirst: the deadline certainly ends the job before the
	// retries are exhausted (ActiveDeadline ≤ Retries.Lo, or failures are
	// NotCounted).
	DeadlineFirst bool
}
