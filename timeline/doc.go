// Package timeline is podlint's model of the Pod lifecycle: when probes run,
// when the kubelet kills a container, when a Pod can be Ready, when SIGTERM and
// SIGKILL arrive, how a crash loop and a Job play out. It is pure: typed
// k8s.io/api values in, intervals of seconds out; no YAML and no I/O. The
// reference is docs/semantics.md; labels such as F-7, T-2 or E-5 in the
// comments name its items (F-7 is docs/semantics.md#f-7).
//
// # Entry point
//
//	tl := timeline.Compute(w, version, timeline.DefaultParams())
//
// Compute never panics (nil Workload, nil Spec, 2^31−1 everywhere). The zero
// Version means Latest (1.37). Start from DefaultParams: ε = 1 s, λ = 0.5 s,
// X = 1 s (the runtime's stop call, T-9), all runtime durations (pulls,
// start-up, shutdown) unknown.
//
// # Intervals
//
// Every time is an Interval [Lo, Hi) in seconds: probe tickers have an
// unknowable phase, so a time is a range. Lo == Hi is an exact value;
// HiUnbounded means nothing in the spec bounds it. A Span adds Paths (full
// field paths such as "spec.template.spec.containers[0].livenessProbe.periodSeconds",
// to point findings at) and Plus: unknown runtime terms ("image pull of
// app") counted as 0 in both edges — the real time is later by their sum.
// Lower edges use the kubelet reacting immediately; upper edges add ε.
//
// # What is relative to what
//
//   - Container.Start, Pod.Ready, Pod.Initialized: seconds after pod
//     creation (F-9 start chain).
//   - Probe fields, Container.Started, Container.Ready: seconds after the
//     container's start S.
//   - LivenessProbe.HangDetection, ReadinessProbe.NotReadyDetection:
//     seconds after the target starts hanging (F-7).
//   - Container.Termination, Pod.Terminated: seconds after the delete
//     request (F-11).
//   - StartupProbe.Kill, LivenessProbe.Kill: seconds after the probe
//     verdict (λ included).
//   - Job.Retries, Job.GivesUp: seconds after the Job starts.
//
// # Fields rule authors usually need
//
//	tl.Container(name) / tl.ContainersOf(timeline.Sidecar)
//	c.Type                         container | init | sidecar
//	c.Startup.GuaranteedBudget     B_g = max(D−1, 0) + (FT−1)·P: healthy by then always passes (F-6, P-11)
//	c.Startup.MaxBudget            B_max = max(D,ε) + FT·P: healthy later never passes
//	c.Startup.KillDecision         never healthy: [D+(FT−1)P, max(D,ε)+FT·P) (F-6, E-3)
//	c.Startup.Outcome(h)           may / must the startup probe kill an app healthy at h
//	c.Liveness.FirstProbe          F-1; with a startup probe F-5 (Gated)
//	c.Liveness.KillDecision        unhealthy from start, fast failures (F-4, E-1)
//	c.Liveness.KillDecisionHang    same, target hangs (d = T)
//	c.Liveness.HangDetection       F-7, Δ = max(P, T), relative to the hang
//	c.Liveness.FailingFrom(h, hang) kill decision for a target failing from h
//	c.Liveness.Outcome(h)          may / must liveness kill an app that needs h s to start
//	c.Liveness.Kill                preStop, stop signal, SIGKILL after the verdict (probe TGPS ?? pod TGPS)
//	c.Liveness.NextStart           when the replacement starts (first restart immediate)
//	c.Liveness.Restarts            restarts of a container killed in every run, the run a term (R-3 liveness kills)
//	c.Liveness.HealthyFor          healthy part of each run, when command and probe state it (StatedHealth)
//	c.Liveness.UnhealthyRestarts   restarts of a container killed at every start (runs of the kill window)
//	c.Readiness.FirstProbe         F-2 bounds; FirstProbeTypical = X-10 point, FastPath = D ≤ ε
//	c.Readiness.NotReadyDetection / .NotReadyDetectionFast   F-7: the check hangs / fails fast
//	c.Ready                        F-8: container Ready after S (X-1: D counts from S)
//	c.AppStart / c.ExpectedStartup user-stated start-up (annotation > config > Params)
//	c.PostStart                    T-6: blocks the next container; Duration symbolic unless sleep
//	c.Termination.PreStop          sleep exact; exec "sleep N" → [N, G]; else [0, G]
//	c.Termination.StopSignal       after preStop (sidecars: after main containers and the next sidecar, + [0, X] per hand-over, T-9)
//	c.Termination.SIGKILL          stop + max(G − ⌊stop⌋, 2) ≤ G + 2, + [0, X] on a delete (T-9)
//	c.Termination.Exit             stop + shutdown, at most SIGKILL (termination intervals are closed)
//	c.InitFailure                  regular init containers: Pod fails [0, ε + λ] after the exit, or restarts
//	tl.Pod.GracePeriod             TGPS after defaulting (nil → 30, negative → 1)
//	tl.Pod.Ready                   max over regular containers and sidecars (+ readiness gates)
//	tl.Pod.Terminated              last container gone after delete (≤ G + 2 + X)
//	tl.Pod.SidecarStopOrder        reverse declaration order (T-4, E-7)
//	tl.Pod.RestartSchedule         crash-loop restarts: 0, 10, 20 … 300 s; back to 10 s after the 600 s reset (R-3, F-10, E-5)
//	c.Restarts / .RestartsOnFailure  after a probe kill / a crash: the container's own policy where ContainerRestartRules is on
//	tl.Pod.QOSClass                BestEffort | Burstable | Guaranteed, as the kubelet computes it
//	tl.Pod.ActiveDeadline          spec.activeDeadlineSeconds, from pod start (pulls count)
//	tl.Deployment.PodReady / .ProgressDeadline / .MayExceedDeadline / .Rollout   (F-13, E-9)
//	tl.Deployment.OldPodsGone      Recreate: new Pods only once the old ones are gone
//	tl.StatefulSet.Creation / .RollingUpdate / .MaxUnavailable                 (F-14, E-10)
//	tl.DaemonSet.Rollout / .Invalid    waves over Params.Nodes; strategy the API server rejects
//	tl.Job.Retries / .ActiveDeadline / .GivesUp / .DeadlineFirst / .BackoffCap   (F-12, E-8)
//	tl.Job.Parallelism / .Indexes / .MaxFailedIndexes   Pods failing together, indexes in groups
//	tl.Job.OnFailure / .FailureOutcomes / .NotCounted / .CountsRestarts   podFailurePolicy (§5.3)
//	tl.CronJob.Period / .Overlaps / .SkippedStarts / .LateStart / .ReplacedAt / .ConcurrentRuns
//	tl.Notes                       fields ignored on this version, coerced values, rejected sleeps
//	tl.Errors                      malformed podlint.dev/expected-* annotations (*AnnotationError)
//
// # Typical rule checks
//
//   - liveness kills before ready: c.Startup == nil && c.Liveness != nil &&
//     c.AppStart.Known: c.Liveness.Outcome(c.AppStart.Seconds).
//   - startup budget too short: c.Startup.Outcome(c.ExpectedStartup.Seconds).
//   - preStop exceeds grace: c.Termination.PreStop.Duration.Lo >= GracePeriod.V.
//   - startup exceeds progress deadline: tl.Deployment.MayExceedDeadline.
//   - job deadline before retries: tl.Job.DeadlineFirst.
//
// # Assumptions
//
// A healthy kubelet; a probe that answers at once (d = 0) unless the field
// says Hang; ε is a typical latency, not a bound; crash-loop back-off
// 10 s → 300 s unless Params say otherwise; a container's exit code is
// known only when its command states it (StatedExit). Probe errors (P-17)
// are not modelled: an erroring probe never counts.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package timeline
