package timeline

import (
	"fmt"
	"math"
	"slices"

	"github.com/podlint/podlint/workload"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Controller terms of the v1.37.2 source that the intervals below carry
// (docs/semantics.md#controller-timing).
const (
	// APITimeResolution: the API keeps the timestamps controllers count
	// from (a condition's lastUpdateTime, a Job's status.startTime, a
	// container's finishedAt) in whole seconds, so each lies up to 1 s
	// before the instant it records.
	APITimeResolution = 1
	// JobSyncBatch is SyncJobBatchPeriod (job_controller.go:71): a Pod
	// event reaches the Job controller in a sync enqueued that much later
	// (enqueueSyncJobBatched), so it counts a failure or a finished Pod
	// up to 1 s after the kubelet wrote it.
	JobSyncBatch = 1
	// ProgressRequeue: requeueStuckDeployment re-queues a Deployment
	// without progress for lastUpdateTime + progressDeadlineSeconds plus
	// this ("Add a second to avoid milliseconds skew", progress.go:198).
	ProgressRequeue = 1
)

func (k *computer) controllers() {
	w := k.w
	podReady := Span{Interval: From(0)}
	terminated := span(At(0))
	if pod := k.t.Pod; pod != nil {
		if pod.Ready != nil {
			podReady = *pod.Ready
		}
		// The controllers wait for a deleted Pod's terminal phase or its
		// removal (getNodesToDaemonPods, processReplica's isTerminating,
		// oldPodsRunning), which the kubelet writes up to ε after the last
		// container is gone.
		terminated = pod.Terminated.Add(span(Between(0, k.p.Epsilon)))
	}
	spec := w.Path.Join("spec")
	switch {
	case w.Deployment != nil:
		k.t.Deployment = k.deployment(w.Deployment, spec, podReady, terminated)
	case w.StatefulSet != nil:
		k.t.StatefulSet = k.statefulSet(w.StatefulSet, spec, podReady, terminated)
	case w.DaemonSet != nil:
		k.t.DaemonSet = k.daemonSet(w.DaemonSet, spec, podReady, terminated)
	}
	if w.Job != nil {
		k.t.Job = k.job()
	}
	if w.CronJob != nil {
		k.t.CronJob = k.cronJob()
	}
}

func int32Value(p *int32, def float64, path workload.Path) Value {
	if p == nil {
		return Value{V: def, Path: path}
	}
	return Value{V: math.Max(float64(*p), 0), Path: path, Set: true}
}

// deployment: F-13 and the rollout estimate (§5.1).
func (k *computer) deployment(d *appsv1.DeploymentSpec, sp workload.Path, podReady, terminated Span) *Deployment {
	out := &Deployment{
		Path:             sp,
		Replicas:         int32Value(d.Replicas, 1, sp.Join("replicas")),
		Strategy:         string(d.Strategy.Type),
		MinReadySeconds:  Value{V: math.Max(float64(d.MinReadySeconds), 0), Path: sp.Join("minReadySeconds"), Set: d.MinReadySeconds != 0},
		ProgressDeadline: int32Value(d.ProgressDeadlineSeconds, DefaultProgressDeadline, sp.Join("progressDeadlineSeconds")),
		Paused:           d.Paused,
		PodReady:         podReady,
		OldPodsGone:      terminated,
	}
	if out.Strategy == "" {
		out.Strategy = string(appsv1.RollingUpdateDeploymentStrategyType)
	}
	ru := sp.Join("strategy.rollingUpdate")
	var surge, unavail = Value{Path: ru.Join("maxSurge")}, Value{Path: ru.Join("maxUnavailable")}
	if d.Strategy.RollingUpdate != nil {
		surge.Set = d.Strategy.RollingUpdate.MaxSurge != nil
		unavail.Set = d.Strategy.RollingUpdate.MaxUnavailable != nil
	}
	var s, u int64
	var err error
	if d.Strategy.RollingUpdate != nil {
		s, u, err = Fenceposts(d.Strategy.RollingUpdate.MaxSurge, d.Strategy.RollingUpdate.MaxUnavailable, int32(out.Replicas.V))
	} else {
		s, u, err = Fenceposts(nil, nil, int32(out.Replicas.V))
	}
	if err != nil {
		k.note(ru, "invalid maxSurge/maxUnavailable (%v); using 25%%", err)
	}
	surge.V, unavail.V = float64(s), float64(u)
	out.MaxSurge, out.MaxUnavailable = surge, unavail
	out.MayExceedDeadline = podReady.HiUnbounded || podReady.Hi > out.ProgressDeadline.V
	if out.ProgressDeadline.V != math.MaxInt32 && !out.Paused {
		// DeploymentTimedOut (deployment_util.go:807) is true once
		// lastUpdateTime + D is past, for any sync; lastUpdateTime is the
		// last progress in whole seconds, and requeueStuckDeployment's
		// re-queue at lastUpdateTime + D + 1 s is the latest sync.
		D := out.ProgressDeadline.V
		ex := span(closedHi(Between(math.Max(D-APITimeResolution, 0), D+ProgressRequeue)), out.ProgressDeadline.Path)
		out.DeadlineExceeded = &ex
	}

	per := podReady.Add(span(AvailableAfterReady(out.MinReadySeconds.V), out.MinReadySeconds.Path))
	switch {
	case out.Replicas.V == 0:
		out.Rollout = span(At(0), out.Replicas.Path)
	case out.Strategy == string(appsv1.RecreateDeploymentStrategyType):
		out.Rollout = terminated.Add(per)
	default:
		batches := math.Ceil(out.Replicas.V / (surge.V + unavail.V))
		out.Rollout = Span{Interval: per.Interval.Scale(batches), Plus: per.Plus, Paths: merge(per.Paths, []workload.Path{surge.Path, unavail.Path, out.Replicas.Path})}
	}
	return out
}

// statefulSet: F-14 (§5.2). A rolling update replaces maxUnavailable Pods
// at once where MaxUnavailableStatefulSet is on (1.37), one otherwise
// (updateStatefulSetAfterInvariantEstablished).
func (k *computer) statefulSet(s *appsv1.StatefulSetSpec, sp workload.Path, podReady, terminated Span) *StatefulSet {
	out := &StatefulSet{
		Path:                sp,
		Replicas:            int32Value(s.Replicas, 1, sp.Join("replicas")),
		PodManagementPolicy: string(s.PodManagementPolicy),
		UpdateStrategy:      string(s.UpdateStrategy.Type),
		Partition:           Value{Path: sp.Join("updateStrategy.rollingUpdate.partition")},
		MinReadySeconds:     Value{V: math.Max(float64(s.MinReadySeconds), 0), Path: sp.Join("minReadySeconds"), Set: s.MinReadySeconds != 0},
	}
	if out.MinReadySeconds.Set && k.v.StatefulSetMinReadySeconds() != On {
		k.note(out.MinReadySeconds.Path, "StatefulSet minReadySeconds needs Kubernetes 1.23 (alpha and off in 1.22): on %s it is dropped and a Pod counts as available as soon as it is Ready", k.v)
		out.MinReadySeconds = Value{Path: out.MinReadySeconds.Path}
	}
	if out.PodManagementPolicy == "" {
		out.PodManagementPolicy = string(appsv1.OrderedReadyPodManagement)
	}
	if out.UpdateStrategy == "" {
		out.UpdateStrategy = string(appsv1.RollingUpdateStatefulSetStrategyType)
	}
	if ru := s.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		out.Partition = int32Value(ru.Partition, 0, out.Partition.Path)
	}
	per := podReady.Add(span(AvailableAfterReady(out.MinReadySeconds.V), out.MinReadySeconds.Path))
	n := out.Replicas.V
	if out.PodManagementPolicy == string(appsv1.ParallelPodManagement) {
		n = math.Min(n, 1)
	}
	out.Creation = Span{Interval: per.Interval.Scale(n), Plus: per.Plus, Paths: merge(per.Paths, []workload.Path{out.Replicas.Path, sp.Join("podManagementPolicy")})}
	out.MaxUnavailable = k.statefulSetMaxUnavailable(s, sp, int(out.Replicas.V))
	if out.UpdateStrategy == string(appsv1.RollingUpdateStatefulSetStrategyType) {
		updated := math.Max(out.Replicas.V-out.Partition.V, 0)
		m := out.MaxUnavailable.V
		// Waves of m Pods: deleted together, so their shutdowns overlap;
		// OrderedReady then re-creates them one after another, each once
		// the one before is Running and Ready (processReplica, monotonic),
		// Parallel all at once.
		full, rest := math.Floor(updated/m), math.Mod(updated, m)
		waves := full
		created := per.Interval.Scale(full * m)
		if out.PodManagementPolicy == string(appsv1.ParallelPodManagement) {
			created = per.Interval.Scale(full)
		}
		if rest > 0 {
			waves++
			if out.PodManagementPolicy == string(appsv1.ParallelPodManagement) {
				created = created.Add(per.Interval)
			} else {
				created = created.Add(per.Interval.Scale(rest))
			}
		}
		ru := Span{Interval: terminated.Interval.Scale(waves).Add(created), Plus: merge(terminated.Plus, per.Plus),
			Paths: merge(merge(terminated.Paths, per.Paths), []workload.Path{out.Replicas.Path, out.Partition.Path, out.MaxUnavailable.Path})}
		out.RollingUpdate = &ru
	}
	return out
}

// statefulSetMaxUnavailable is how many Pods a rolling update replaces at
// once: spec.updateStrategy.rollingUpdate.maxUnavailable (default 1, a
// percentage of replicas rounded down, at least 1: getStatefulSetMaxUnavailable)
// where MaxUnavailableStatefulSet is on; 1 where the API server drops the
// field.
func (k *computer) statefulSetMaxUnavailable(s *appsv1.StatefulSetSpec, sp workload.Path, replicas int) Value {
	out := Value{V: 1, Path: sp.Join("updateStrategy.rollingUpdate.maxUnavailable")}
	ru := s.UpdateStrategy.RollingUpdate
	if ru == nil || ru.MaxUnavailable == nil {
		return out
	}
	switch k.v.MaxUnavailableStatefulSet() {
	case Absent:
		k.note(out.Path, "StatefulSet maxUnavailable does not exist before Kubernetes 1.24: the field is rejected or pruned, and the update replaces one Pod at a time")
		return out
	case Off:
		k.note(out.Path, "StatefulSet maxUnavailable is behind MaxUnavailableStatefulSet, off by default on Kubernetes %s (on from 1.37): the API server drops it and the update replaces one Pod at a time", k.v)
		return out
	}
	n, err := intstr.GetScaledValueFromIntOrPercent(ru.MaxUnavailable, replicas, false)
	if err != nil {
		k.note(out.Path, "invalid maxUnavailable (%v); using 1", err)
		return out
	}
	out.V, out.Set = float64(max(n, 1)), true
	return out
}

// JobRetryLimit is the limit a Job's failed Pods count against on version
// v, as the API server leaves the spec: the field that holds it
// (backoffLimitPerIndex or backoffLimit), its value and whether the manifest
// set it. backoffLimit defaults to 6, or to 2147483647 when
// backoffLimitPerIndex is set (SetDefaults_Job); on 1.28, where
// JobBackoffLimitPerIndex is off, defaulting runs before the API server
// drops backoffLimitPerIndex, so the Job keeps the 2147483647.
func JobRetryLimit(js *batchv1.JobSpec, v Version) (field string, limit int32, set bool) {
	stage := v.orLatest().JobBackoffLimitPerIndex()
	if js.BackoffLimitPerIndex != nil && stage == On {
		return "backoffLimitPerIndex", *js.BackoffLimitPerIndex, true
	}
	if js.BackoffLimit != nil {
		return "backoffLimit", *js.BackoffLimit, true
	}
	if js.BackoffLimitPerIndex != nil && stage == Off {
		return "backoffLimit", math.MaxInt32, false
	}
	return "backoffLimit", DefaultBackoffLimit, false
}

// job: F-12 (§5.3), with container-level restart policies, the
// podFailurePolicy (§5.3) and the Pods that run at once: the controller
// counts every Pod of a sync that failed, so Pods failing together use up
// backoffLimit together (newBackoffRecord), and restarts are summed over
// all active Pods (pastBackoffLimitOnFailure).
func (k *computer) job() *Job {
	js, jp := k.w.Job, k.w.JobPath
	policy := k.policy
	if policy == "" {
		policy = corev1.RestartPolicyNever
	}
	out := &Job{Path: jp, RestartPolicy: policy, BackoffCap: k.v.JobBackoffCap()}
	field, limit, set := JobRetryLimit(js, k.v)
	out.PerIndex = field == "backoffLimitPerIndex"
	out.BackoffLimit = Value{V: math.Max(float64(limit), 0), Path: jp.Join(field), Set: set}
	if js.BackoffLimitPerIndex != nil && !out.PerIndex {
		p := jp.Join("backoffLimitPerIndex")
		if k.v.JobBackoffLimitPerIndex() == Off {
			k.note(p, "backoffLimitPerIndex is alpha and off by default on Kubernetes %s: the API server drops it, after defaulting backoffLimit to %d because it was set, so failed Pods are retried practically forever", k.v, limit)
		} else {
			k.note(p, "backoffLimitPerIndex does not exist before Kubernetes 1.28: the field is rejected or pruned, and backoffLimit applies")
		}
	}
	out.Parallelism, out.Indexes = jobWidth(js, jp)
	if out.PerIndex && js.MaxFailedIndexes != nil {
		m := Value{V: math.Max(float64(*js.MaxFailedIndexes), 0), Path: jp.Join("maxFailedIndexes"), Set: true}
		out.MaxFailedIndexes = &m
	}
	eps := k.p.Epsilon
	r, rKnown := 0.0, false
	run := k.podRun()
	if run.usable() && !math.IsInf(run.Seconds, 1) {
		r, rKnown = run.Seconds, true
	}
	out.PodRun = k.unknown(run, "pod run time")
	inPlace := k.restartsInPlace()
	if !inPlace {
		out.OnFailure, out.FailureOutcomes = k.jobFailureRule()
	}
	paths := []workload.Path{out.BackoffLimit.Path, k.w.SpecPath.Join("restartPolicy")}
	if out.Parallelism.Set {
		paths = append(paths, out.Parallelism.Path)
	}
	runs, lo, extra, paths := k.jobFailures(out, r, inPlace, paths)
	if out.OnFailure.Action != "" && out.NotCounted == "" && !slices.Contains(paths, out.OnFailure.Path) {
		paths = append(paths, out.OnFailure.Path)
	}
	if out.NotCounted != "" {
		// Failures never reach the limit: nothing but a deadline ends it.
		out.Retries = Span{Interval: From(r), Paths: paths}
		if !rKnown {
			out.Retries.Plus = []string{"pod run time"}
		}
	} else {
		// The failure that ends the Job reaches it in a batched sync
		// (JobSyncBatch) after the kubelet's phase write (ε).
		extra += float64(runs)*eps + JobSyncBatch
		out.Retries = span(Between(lo, lo+extra), paths...)
		if out.CountsRestarts && k.v.JobFinishedAfterPods() && k.t.Pod != nil {
			// The Pod still runs when its restarts reach the limit: the
			// controller deletes it and writes Failed once it is no
			// longer terminating (enactJobFinished), in the batched sync
			// after the kubelet's phase write.
			out.Retries = out.Retries.Add(k.t.Pod.Terminated).Add(span(Between(0, eps+JobSyncBatch)))
		}
		if !rKnown {
			out.Retries.Plus = []string{fmt.Sprintf("%d × pod run time", runs)}
		}
	}
	out.GivesUp = out.Retries
	if js.ActiveDeadlineSeconds != nil {
		k.jobDeadline(out, *js.ActiveDeadlineSeconds)
	}
	return out
}

// jobFailures counts the failed runs after which the Job gives up, and the
// least (lo) and the extra (extra) time they take, from the policy that
// counts them; paths gains the fields that decide it.
func (k *computer) jobFailures(out *Job, r float64, inPlace bool, paths []workload.Path) (runs int64, lo, extra float64, _ []workload.Path) {
	L := int64(out.BackoffLimit.V)
	w := int64(out.Parallelism.V)
	jp := out.Path
	switch {
	case w == 0:
		out.NotCounted = "no Pod runs: parallelism or completions is 0"
		paths = append(paths, out.Parallelism.Path)
	case inPlace && out.RestartPolicy == corev1.RestartPolicyNever:
		// Container-level policies restart the containers in place; the
		// controller counts restarts only for a Pod restartPolicy
		// OnFailure (pastBackoffLimitOnFailure) and no Pod fails.
		out.NotCounted = "every container is restarted in place by its own restartPolicy, and the Job counts container restarts only under a Pod restartPolicy OnFailure"
	case !out.OnFailure.Counted():
		out.NotCounted = "its podFailurePolicy ignores the failure"
		paths = append(paths, out.OnFailure.Path)
	case out.OnFailure.Action == batchv1.PodFailurePolicyActionFailIndex && out.PerIndex:
		// Each index fails at its first failure; the Job ends when every
		// index has, or when more than maxFailedIndexes have.
		groups := out.indexGroups()
		runs, lo = groups, float64(groups)*r
		paths = append(paths, out.OnFailure.Path)
	case out.OnFailure.Action == batchv1.PodFailurePolicyActionFailJob || out.OnFailure.Action == batchv1.PodFailurePolicyActionFailIndex:
		// The first failed Pod ends the Job (or its index).
		runs, lo = 1, r
		paths = append(paths, out.OnFailure.Path)
	case inPlace && out.RestartPolicy == corev1.RestartPolicyOnFailure:
		out.CountsRestarts = true
		// Fails when the restarts summed over the w running Pods reach L
		// (> 0 for L = 0): each Pod restarts ⌈L/w⌉ times, spaced by the
		// kubelet's crash-loop delays, not the Job back-off.
		runs = max((L+w-1)/w, 1)
		delays, over := crashSeries(runs, r, k.v, k.p)
		lo, extra = float64(runs)*r+delays, over
	case out.PerIndex:
		// Each index fails at its (L+1)-th failed Pod, with its own
		// back-off; only parallelism indexes run at once and an index in
		// back-off keeps its slot (getPodCreationInfoForIndependentIndexes),
		// so the indexes fail in groups.
		groups := out.indexGroups()
		runs = groups * (L + 1)
		lo = float64(groups) * (float64(L+1)*r + series(L, func(n int64) float64 { return jobBackoff(n, out.BackoffCap) }))
		lo, extra = earlyBackoffs(lo, groups*L)
		if out.MaxFailedIndexes != nil {
			paths = append(paths, out.MaxFailedIndexes.Path)
		}
		paths = append(paths, jp.Join("completions"))
	default:
		// w Pods fail together: each round adds w failures, the Job fails
		// once more than L are counted, and the back-off before round
		// j+1 is min(10·2^(j·w−1), cap).
		rounds := L/w + 1
		runs = rounds
		lo = float64(rounds)*r + series(rounds-1, func(n int64) float64 { return jobBackoff(n*w, out.BackoffCap) })
		lo, extra = earlyBackoffs(lo, rounds-1)
	}
	return runs, lo, extra, paths
}

// AvailableAfterReady is when a Ready Pod counts as available, after its
// Ready: IsPodAvailable (pod/util.go:290) adds minReadySeconds m to the
// Ready condition's lastTransitionTime, which has whole seconds, and the
// controllers re-check m after they saw the Pod Ready (replica_set.go:560)
// or sooner: (m − 1, m].
func AvailableAfterReady(m float64) Interval {
	if m <= 0 {
		return At(0)
	}
	return closedHi(Between(math.Max(m-APITimeResolution, 0), m))
}

// earlyBackoffs lowers lo, the least time of a series of waits
// back-offs, by up to APITimeResolution each: a back-off counts from the
// failed Pod's finishedAt (getFinishedTime, backoff_utils.go:172), which
// has whole seconds, so from the real exit it is that much shorter at
// most. The upper edge stays: the extra returned makes up for the lower
// lo.
func earlyBackoffs(lo float64, waits int64) (float64, float64) {
	early := math.Min(float64(waits)*APITimeResolution, lo)
	return lo - early, early
}

// jobDeadline sets when activeDeadlineSeconds ends the Job and whether it
// comes before the retries are used up.
func (k *computer) jobDeadline(out *Job, seconds int64) {
	jp := out.Path
	ads := Value{V: math.Max(float64(seconds), 0), Path: jp.Join("activeDeadlineSeconds"), Set: true}
	out.ActiveDeadline = &ads
	// pastActiveDeadline counts from status.startTime, whole seconds: the
	// deadline fires up to 1 s before D after the Job's start.
	fires := closedHi(Between(math.Max(ads.V-APITimeResolution, 0), ads.V))
	ends := span(fires, ads.Path)
	if k.v.JobFinishedAfterPods() && k.t.Pod != nil {
		// The deadline deletes the running Pods; Failed waits until
		// none is terminating (enactJobFinished): until the kubelet,
		// up to ε after the last container is gone, writes the Pod's
		// terminal phase (CountTerminatingPods), and the batched sync
		// that update enqueues (JobSyncBatch).
		ends = ends.Add(k.t.Pod.Terminated).Add(span(Between(0, k.p.Epsilon+JobSyncBatch)))
	}
	out.DeadlineEnds = &ends
	// A Pod that certainly runs past the deadline (a stated sleep)
	// never lets a failure count first.
	out.DeadlineFirst = ads.V <= out.Retries.Lo || out.NotCounted != "" || k.podRunsAtLeast() >= ads.V
	if out.DeadlineFirst {
		out.GivesUp = ends
	} else {
		iv := Earlier(out.Retries.Interval, fires)
		if out.Retries.Max() >= fires.Lo {
			iv.Hi, iv.HiClosed = ends.Hi, true
		}
		out.GivesUp = Span{Interval: iv, Plus: out.Retries.Plus, Paths: merge(out.Retries.Paths, ends.Paths)}
	}
}

// podRunsAtLeast is how long a Pod certainly runs: the longest sleep one
// of its regular containers certainly makes (a Pod ends when all have
// ended), whether or not the command states how it ends.
func (k *computer) podRunsAtLeast() float64 {
	least := 0.0
	for _, c := range k.t.ContainersOf(Regular) {
		ctr := &k.w.Spec.Containers[c.Index]
		if len(ctr.Command) == 0 {
			continue
		}
		s := ExecSleep(append(append([]string(nil), ctr.Command...), ctr.Args...), ctr)
		if s.OK && !math.IsNaN(s.Min) {
			least = math.Max(least, s.Min)
		}
	}
	return least
}

// jobWidth is how many Pods of the Job run at once, min(parallelism,
// completions) after defaulting (both 1 when unset; parallelism alone
// leaves completions unset: a work queue), and how many indexes an Indexed
// Job has (0 otherwise).
func jobWidth(js *batchv1.JobSpec, jp workload.Path) (width Value, indexes int64) {
	width = Value{V: 1, Path: jp.Join("parallelism")}
	if js.Parallelism != nil {
		width.V, width.Set = math.Max(float64(*js.Parallelism), 0), true
	}
	if js.Completions != nil {
		c := math.Max(float64(*js.Completions), 0)
		if c < width.V {
			width = Value{V: c, Path: jp.Join("completions"), Set: true}
		}
		if js.CompletionMode != nil && *js.CompletionMode == batchv1.IndexedCompletion {
			indexes = int64(c)
		}
	}
	return width, indexes
}

// indexGroups is how many times in a row the Job runs Parallelism indexes
// until it fails, when every index fails: all of them, or the first
// maxFailedIndexes + 1 (MaxFailedIndexesExceeded).
func (j *Job) indexGroups() int64 {
	w := max(int64(j.Parallelism.V), 1)
	n := max(j.Indexes, 1)
	if j.MaxFailedIndexes != nil {
		n = min(n, int64(j.MaxFailedIndexes.V)+1)
	}
	return (n + w - 1) / w
}

// restartsInPlace reports whether the kubelet restarts every regular
// container of the Job's Pod after a failure, so that a failing
// container never fails the Pod.
func (k *computer) restartsInPlace() bool {
	cs := k.t.ContainersOf(Regular)
	for _, c := range cs {
		if !c.RestartsOnFailure {
			return false
		}
	}
	return len(cs) > 0 || k.policy == corev1.RestartPolicyOnFailure
}

// jobFailureRule is the podFailurePolicy's verdict on a crash of the Job's
// Pod: the same for every regular container that can fail, else none (each
// failure then counts, as without a policy, because podlint cannot tell
// which container fails). A container whose command states its exit code
// (StatedExit) is matched with that code, and one that states exit 0 never
// fails the Pod. outcomes lists what the policy can do when some code is
// unknown (FailureOutcomes), or the one verdict when all are known.
func (k *computer) jobFailureRule() (verdict FailureRule, outcomes []batchv1.PodFailurePolicyAction) {
	first := true
	spec := k.w.Spec
	for _, c := range k.t.ContainersOf(Regular) {
		sc := k.statedOf(&spec.Containers[c.Index])
		code, known := sc.code, sc.exits
		if known && code == 0 {
			continue
		}
		f := JobFailureRuleFor(k.w.Job, k.w.JobPath, c.Name, code, known, k.v)
		possible := []batchv1.PodFailurePolicyAction{f.Action}
		if f.Action == "" {
			possible[0] = batchv1.PodFailurePolicyActionCount
		}
		if !known {
			possible = FailureOutcomes(k.w.Job, c.Name, k.v)
		}
		for _, a := range possible {
			if !slices.Contains(outcomes, a) {
				outcomes = append(outcomes, a)
			}
		}
		if !first && f.Action != verdict.Action {
			verdict = FailureRule{}
		} else if first {
			verdict = f
		}
		first = false
	}
	if k.w.Job.PodFailurePolicy == nil || !k.v.JobPodFailurePolicy() {
		outcomes = nil
	}
	return verdict, outcomes
}
