package main

import (
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The quantities read off a recording. Each subtracts the terms podlint
// lists as unknown and counts as 0 (a Pod's run time, its scheduling and
// sandbox), measured on the same recording, so that what is compared is
// the controller's part.

func jobDone(o obs) bool {
	return o.Kind == "Job" && (hasCond(o, "Failed=True") || hasCond(o, "Complete=True"))
}

func jobFinished(r *recording) bool {
	_, err := r.first("", jobDone)
	return err == nil
}

func jobFailed(r *recording) (float64, error) {
	return r.first("the Job Failed", func(o obs) bool { return o.Kind == "Job" && hasCond(o, "Failed=True") })
}

// jobFailedLessRuns is the Job's Failed condition less the Pods' run
// time up to their finishedAt, which the back-off counts from, and less
// the kubelet's report of the last failure (finishedAt to the Failed
// phase in the API), before which no controller can act.
func jobFailedLessRuns(r *recording) (float64, error) {
	t, err := jobFailed(r)
	if err != nil {
		return 0, err
	}
	ps := lastIndex(r.pods())
	runs, err := sumRuns(ps)
	if err != nil {
		return 0, err
	}
	return t - runs - reportLag(ps), nil
}

// lastIndex keeps, of an Indexed Job's Pods, those of the index whose
// Pod failed last: each index retries on its own back-off, and the Job
// ends with the last index; their sandboxes, created one after another,
// stagger the indexes, so that one index runs while another waits. Pods
// without an index are kept.
func lastIndex(ps []*podLife) []*podLife {
	var last *podLife
	for _, p := range ps {
		if p.hasEnded && (last == nil || p.ended > last.ended) {
			last = p
		}
	}
	if last == nil || last.index == "" {
		return ps
	}
	var out []*podLife
	for _, p := range ps {
		if p.index == last.index {
			out = append(out, p)
		}
	}
	return out
}

// reportLag is the last Pod to fail's finishedAt to its Failed phase as
// the watch showed it (0 without a finishedAt).
func reportLag(ps []*podLife) float64 {
	var last *podLife
	for _, p := range ps {
		if p.hasEnded && (last == nil || p.ended > last.ended) {
			last = p
		}
	}
	if last == nil || !last.hasFinished {
		return 0
	}
	return max(last.ended-last.finished, 0)
}

// jobFailedAfterFirstRun counts from the first Pod's Running phase: under
// OnFailure the Pod never fails, its container restarts. It subtracts
// each restart's creation by the runtime (the kubelet's Pulled event,
// which starts it, to the status showing it running with the new restart
// count): podlint's restart starts are when the kubelet starts the
// container, as the kubelet harness measures them.
func jobFailedAfterFirstRun(r *recording) (float64, error) {
	t, err := jobFailed(r)
	if err != nil {
		return 0, err
	}
	ps := r.pods()
	if len(ps) == 0 || !ps[0].hasRunning {
		return 0, fmt.Errorf("never saw the Pod running")
	}
	return t - ps[0].running - restartCreations(r, ps[0]), nil
}

// restartCreations sums, over the Pod's restarts, the time from the
// kubelet's Pulled event for it to the status that shows the container
// running with that restart count.
func restartCreations(r *recording, p *podLife) float64 {
	sum, pulled := 0.0, math.NaN()
	var seen int32
	for _, o := range r.Obs {
		if o.T <= p.running {
			continue
		}
		switch {
		case o.Kind == "Event" && o.Name == "Pod/"+p.name && o.Reason == "Pulled":
			pulled = o.T
		case o.Kind == "Pod" && o.Name == p.name && o.Running && o.Restarts > seen:
			seen = o.Restarts
			if !math.IsNaN(pulled) {
				sum += o.T - pulled
				pulled = math.NaN()
			}
		}
	}
	return sum
}

func podCount(r *recording) (float64, error) { return float64(len(r.pods())), nil }

// latest is the last observation of kind before t (or the last of all).
func (r *recording) latest(kind string, t float64) (obs, bool) {
	var last obs
	found := false
	for _, o := range r.Obs {
		if o.T > t {
			break
		}
		if o.Kind == kind {
			last, found = o, true
		}
	}
	return last, found
}

// settled is a workload's status once its controller has seen the latest
// spec: n replicas, u of them updated, every one ready and available.
func settled(o obs, n, u int32) bool {
	return o.Reason != "stale" && o.Replicas == n && o.Updated == u && o.ReadyN == n && o.Available == n
}

func deploymentAvailable(n int32) func(*recording) bool {
	return func(r *recording) bool {
		o, ok := r.latest("Deployment", math.Inf(1))
		return ok && settled(o, n, n)
	}
}

// The update mark's message is "Kind n u": the workload, its replicas and
// how many the update replaces (fewer under a partition).
func updateTarget(r *recording) (kind string, at float64, n, u int32, err error) {
	for _, o := range r.Obs {
		if o.Kind == "Mark" && o.Name == "update" {
			var nn, uu int32
			if _, err := fmt.Sscanf(o.Message, "%s %d %d", &kind, &nn, &uu); err != nil {
				return "", 0, 0, 0, fmt.Errorf("update mark %q: %v", o.Message, err)
			}
			return kind, o.T, nn, uu, nil
		}
	}
	return "", 0, 0, 0, fmt.Errorf("never updated")
}

// rolledOut is when the workload's status first showed the update done.
func rolledOut(r *recording) (float64, error) {
	kind, at, n, u, err := updateTarget(r)
	if err != nil {
		return 0, err
	}
	return r.firstAfter(at, "the rollout done", func(o obs) bool {
		if o.Kind != kind || !settled(o, n, u) {
			return false
		}
		if kind == "StatefulSet" {
			// Updated counts Pods of the new revision only once the
			// status names it.
			return o.Rev != "" && o.Rev != r.firstRev(kind, at)
		}
		return true
	})
}

// firstRev is the revision the workload's status named before t.
func (r *recording) firstRev(kind string, t float64) string {
	o, _ := r.latest(kind, t)
	return o.Rev
}

// rollout is an act: wait until the workload is settled with n replicas,
// then update its template, which is to replace u of them.
func rollout(kind, name string, n, u int32) func(a *actor) error {
	return func(a *actor) error {
		if err := a.until(kind+" settled", func(r *recording) bool {
			o, ok := r.latest(kind, math.Inf(1))
			return ok && settled(o, n, n)
		}); err != nil {
			return err
		}
		return a.bump(kind, name, fmt.Sprintf("%s %d %d", kind, n, u))
	}
}

func doneAfterUpdate(r *recording) bool {
	_, err := rolledOut(r)
	return err == nil
}

func deploymentUpdated(int32) func(*recording) bool  { return doneAfterUpdate }
func statefulSetUpdated(int32) func(*recording) bool { return doneAfterUpdate }
func daemonSetUpdated(r *recording) bool             { return doneAfterUpdate(r) }

func createdBetween(ps []*podLife, from, to float64) []*podLife {
	var out []*podLife
	for _, p := range ps {
		if p.created >= from && p.created <= to {
			out = append(out, p)
		}
	}
	return out
}

// rolloutWindow is the update's time and the rollout's end.
func rolloutWindow(r *recording) (at, done float64, err error) {
	if _, at, _, _, err = updateTarget(r); err != nil {
		return 0, 0, err
	}
	done, err = rolledOut(r)
	return at, done, err
}

func rolloutLessStarts(r *recording) (float64, error) {
	at, done, err := rolloutWindow(r)
	if err != nil {
		return 0, err
	}
	starts, err := startsByWave(createdBetween(r.pods(), at, done))
	return done - at - starts, err
}

func stsCreationLessStarts(r *recording) (float64, error) {
	_, at, n, _, err := updateTarget(r)
	if err != nil {
		at = math.Inf(1)
	}
	t, err := r.first("every Pod Ready", func(o obs) bool { return o.Kind == "StatefulSet" && o.T < at && o.ReadyN == n })
	if err != nil {
		return 0, err
	}
	starts, err := startsByWave(createdBetween(r.pods(), 0, t))
	return t - starts, err
}

func podsReplaced(r *recording) (float64, error) {
	at, done, err := rolloutWindow(r)
	if err != nil {
		return 0, err
	}
	return float64(len(createdBetween(r.pods(), at, done))), nil
}

func deadlineExceeded(r *recording) error {
	_, err := deadlineExceededAfter(r)
	return err
}

// deadlineLessProgress is ProgressDeadlineExceeded after the update less
// the update to the last progress the controller recorded before it (the
// last Deployment status whose Progressing condition says the new
// ReplicaSet was created or updated): podlint's interval counts from the
// last progress, whose lastUpdateTime the controller's clock restarts at.
func deadlineLessProgress(r *recording) (float64, error) {
	_, at, _, _, err := updateTarget(r)
	if err != nil {
		return 0, err
	}
	t, err := deadlineExceededAfter(r)
	if err != nil {
		return 0, err
	}
	last := math.NaN()
	for _, o := range r.Obs {
		if o.T < at || o.T >= at+t {
			continue
		}
		if o.Kind == "Deployment" && o.Reason != "stale" &&
			(hasCond(o, "Progressing=True:ReplicaSetUpdated") || hasCond(o, "Progressing=True:NewReplicaSetCreated")) {
			last = o.T
		}
	}
	if math.IsNaN(last) {
		return 0, fmt.Errorf("never saw progress after the update")
	}
	return t - (last - at), nil
}

func deadlineExceededAfter(r *recording) (float64, error) {
	_, at, _, _, err := updateTarget(r)
	if err != nil {
		return 0, err
	}
	t, err := r.firstAfter(at, "ProgressDeadlineExceeded", func(o obs) bool {
		return o.Kind == "Deployment" && hasCond(o, "Progressing=False:ProgressDeadlineExceeded")
	})
	return t - at, err
}

// job is a Job a CronJob created: when it was first seen and its scheduled
// time, both relative to the recording's start.
type job struct {
	name           string
	created, sched float64
}

func (r *recording) jobs() []job {
	var out []job
	seen := map[string]bool{}
	for _, o := range r.Obs {
		if o.Kind != "Job" || seen[o.Name] {
			continue
		}
		seen[o.Name] = true
		j := job{name: o.Name, sched: math.NaN()}
		if t, err := time.Parse(time.RFC3339, o.Sched); err == nil {
			j.sched = t.Sub(r.Start).Seconds()
		}
		j.created = o.T
		out = append(out, j)
	}
	return out
}

// lateStartLessStart is how late the second Job was created after its
// scheduled time, less the first run's Pod start (podlint's scheduling
// and sandbox term, which delays the first run's end).
func lateStartLessStart(r *recording) (float64, error) {
	js := r.jobs()
	if len(js) < 2 {
		return 0, fmt.Errorf("saw %d Jobs, not 2", len(js))
	}
	if math.IsNaN(js[1].sched) {
		return 0, fmt.Errorf("the Job %s has no scheduled time", js[1].name)
	}
	var first *podLife
	for _, p := range r.pods() {
		if p.owner == "Job/"+js[0].name {
			first = p
			break
		}
	}
	if first == nil || !first.hasRunning {
		return 0, fmt.Errorf("never saw the first run's Pod running")
	}
	return js[1].created - js[1].sched - (first.running - first.created) - reportLag([]*podLife{first}), nil
}

// alreadyActive counts the scheduled times, after the first Job's and
// before the second Job was created, at which the controller refused a
// start (a JobAlreadyActive event within 5 s after the time).
func alreadyActive(r *recording) (float64, error) {
	js := r.jobs()
	if len(js) < 2 || math.IsNaN(js[0].sched) {
		return 0, fmt.Errorf("saw %d Jobs with a scheduled time, not 2", len(js))
	}
	n := 0
	for m := js[0].sched + 60; m < js[1].created; m += 60 {
		if _, err := r.firstAfter(m, "", func(o obs) bool {
			return o.Kind == "Event" && o.Reason == "JobAlreadyActive" && o.T <= m+5
		}); err == nil {
			n++
		}
	}
	return float64(n), nil
}

// evictUnderBudget evicts a Pod under minAvailable 2 (refused), lowers the
// budget to 1, evicts the same Pod again (accepted, retried for 30 s while
// the disruption controller catches up) and waits for its replacement.
func evictUnderBudget(a *actor) error {
	if err := a.until("the Deployment available", deploymentAvailable(2)); err != nil {
		return err
	}
	if err := a.until("the budget computed", func(r *recording) bool {
		o, ok := r.latest("PodDisruptionBudget", math.Inf(1))
		return ok && o.Reason == "computed"
	}); err != nil {
		return err
	}
	var victim string
	for _, p := range (&recording{Obs: a.r.snapshot()}).pods() {
		if !p.isGone {
			victim = p.name
			break
		}
	}
	if victim == "" {
		return fmt.Errorf("no Pod to evict")
	}
	if _, err := a.evict(victim); err != nil {
		return err
	}
	a.r.mark("pdb-relaxed", time.Now(), "")
	patch := []byte(`{"spec":{"minAvailable":1}}`)
	if _, err := a.cs.PolicyV1().PodDisruptionBudgets(a.r.Namespace).Patch(a.ctx, "budget", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return err
	}
	for {
		ok, err := a.evict(victim)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		if time.Now().After(a.deadline) {
			return fmt.Errorf("the eviction of %s was never accepted", victim)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := a.until("the replacement Ready", func(r *recording) bool {
		_, err := replacement(r)
		return err == nil
	}); err != nil {
		return err
	}
	a.r.mark("replacement-ready", time.Now(), "")
	return nil
}

func accepted(r *recording) (obs, error) {
	for _, o := range r.Obs {
		if o.Kind == "Mark" && o.Name == "evict-accepted" {
			return o, nil
		}
	}
	return obs{}, fmt.Errorf("no eviction accepted")
}

func replacement(r *recording) (*podLife, error) {
	acc, err := accepted(r)
	if err != nil {
		return nil, err
	}
	for _, p := range r.pods() {
		if p.created >= acc.T-markSlack && p.name != acc.Message && p.hasReady {
			return p, nil
		}
	}
	return nil, fmt.Errorf("no replacement Ready")
}

func allowedBefore(r *recording) (float64, error) {
	at, err := r.markAt("pdb-relaxed")
	if err != nil {
		return 0, err
	}
	o, ok := r.latest("PodDisruptionBudget", at)
	if !ok {
		return 0, fmt.Errorf("never saw the budget's status")
	}
	return float64(o.Allowed), nil
}

func refused(r *recording) (float64, error) {
	at, err := r.markAt("pdb-relaxed")
	if err != nil {
		return 0, err
	}
	if t, err := r.markAt("evict-refused"); err == nil && t < at {
		return 1, nil
	}
	return 0, nil
}

// evicted is when the watch first showed the evicted Pod deleting: the
// accepted eviction's delete. The accepted mark is stamped when the
// request was sent, and the apiserver once took 10 s to answer it (run 3
// of 7 December 2026, its Pod deleted 10.1 s after the request): podlint
// counts the Pod's termination from its delete.
func evicted(r *recording) (acc obs, at float64, err error) {
	if acc, err = accepted(r); err != nil {
		return acc, 0, err
	}
	at, err = r.firstAfter(acc.T-markSlack, "the evicted Pod deleting", func(o obs) bool {
		return o.Kind == "Pod" && o.Name == acc.Message && o.Deleting
	})
	return acc, at, err
}

// evictedStopped is when the watch first showed every container of the
// evicted Pod terminated, after its delete.
func evictedStopped(r *recording) (float64, error) {
	acc, at, err := evicted(r)
	if err != nil {
		return 0, err
	}
	t, err := r.firstAfter(at, "the evicted Pod's containers stopped", func(o obs) bool {
		return o.Kind == "Pod" && o.Name == acc.Message && (o.Stopped || o.Op == "DELETED")
	})
	return t - at, err
}

func replacementReadyLessStart(r *recording) (float64, error) {
	_, at, err := evicted(r)
	if err != nil {
		return 0, err
	}
	p, err := replacement(r)
	if err != nil {
		return 0, err
	}
	if !p.hasRunning {
		return 0, fmt.Errorf("never saw the replacement running")
	}
	return p.ready - at - (p.running - p.created), nil
}

// markSlack: a mark is stamped when the harness sends its request, and
// what the request causes is watched after it; 0.5 s before the mark
// still counts as after it, for the stamps' order under load.
const markSlack = 0.5
