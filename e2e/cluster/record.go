package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// obs is one thing the harness saw: a watch event of an object, reduced to
// what the checks read, or a mark of the harness's own actions (Kind
// "Mark": an update sent, an eviction refused or accepted). T is seconds
// after the scenario's objects were created, by the harness's clock when
// the watch delivered it, which is milliseconds after the apiserver wrote
// it; the API's own timestamps have whole seconds only.
type obs struct {
	T    float64 `json:"t"`
	Kind string  `json:"kind"`
	Name string  `json:"name"`
	Op   string  `json:"op,omitempty"` // ADDED, MODIFIED, DELETED

	Phase    string `json:"phase,omitempty"`
	Ready    bool   `json:"ready,omitempty"`
	Running  bool   `json:"running,omitempty"` // every container started
	Deleting bool   `json:"deleting,omitempty"`
	Owner    string `json:"owner,omitempty"`
	Rev      string `json:"rev,omitempty"` // pod-template-hash or controller-revision-hash
	Restarts int32  `json:"restarts,omitempty"`
	Exit     *int32 `json:"exit,omitempty"` // the last terminated state's exit code
	Index    string `json:"index,omitempty"`
	UID      string `json:"uid,omitempty"`
	// Finished is when the last container of a Pod whose containers have
	// all terminated finished, as the kubelet wrote it (whole seconds):
	// the time the Job controller counts its back-off from.
	Finished string `json:"finished,omitempty"`
	Stopped  bool   `json:"stopped,omitempty"` // every container terminated
	// Sched is a CronJob's Job's scheduled time (its
	// batch.kubernetes.io/cronjob-scheduled-timestamp annotation).
	Sched string `json:"sched,omitempty"`

	Conds     []string `json:"conds,omitempty"` // Type=Status:Reason, the workload's conditions
	Replicas  int32    `json:"replicas,omitempty"`
	ReadyN    int32    `json:"readyReplicas,omitempty"`
	Available int32    `json:"available,omitempty"`
	Updated   int32    `json:"updated,omitempty"`
	Active    int32    `json:"active,omitempty"`
	Failed    int32    `json:"failed,omitempty"`
	Allowed   int32    `json:"disruptionsAllowed,omitempty"`

	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// recording is one scenario's run.
type recording struct {
	Scenario  string    `json:"scenario"`
	Run       int       `json:"run"`
	Namespace string    `json:"namespace"`
	Start     time.Time `json:"start"`
	Obs       []obs     `json:"obs"`
	mu        sync.Mutex
}

func (r *recording) add(o obs, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o.T = at.Sub(r.Start).Seconds()
	r.Obs = append(r.Obs, o)
}

func (r *recording) mark(name string, at time.Time, msg string) {
	r.add(obs{Kind: "Mark", Name: name, Message: msg}, at)
}

// snapshot is a copy of what was seen so far, in time order.
func (r *recording) snapshot() []obs {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]obs(nil), r.Obs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

func (r *recording) save(path string) error {
	r.mu.Lock()
	b, err := json.MarshalIndent(r, "", " ")
	r.mu.Unlock()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func loadRecording(path string) (*recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	sort.SliceStable(r.Obs, func(i, j int) bool { return r.Obs[i].T < r.Obs[j].T })
	return &r, nil
}

// reduce turns a watched object into an obs; ok is false for kinds the
// harness does not record.
func reduce(object any) (o obs, ns string, ok bool) {
	switch x := object.(type) {
	case *corev1.Pod:
		o = obs{Kind: "Pod", Name: x.Name, Phase: string(x.Status.Phase), Deleting: x.DeletionTimestamp != nil,
			Owner: owner(x.ObjectMeta), Index: x.Labels["batch.kubernetes.io/job-completion-index"], UID: string(x.UID)}
		o.Rev = x.Labels["pod-template-hash"]
		if o.Rev == "" {
			o.Rev = x.Labels["controller-revision-hash"]
		}
		for _, c := range x.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				o.Ready = true
			}
		}
		o.Running = len(x.Status.ContainerStatuses) > 0
		o.Stopped = len(x.Status.ContainerStatuses) > 0
		var finished time.Time
		for _, cs := range x.Status.ContainerStatuses {
			if t := cs.State.Terminated; t == nil {
				o.Stopped = false
			} else if t.FinishedAt.After(finished) {
				finished = t.FinishedAt.Time
			}
			o.Restarts += cs.RestartCount
			if cs.State.Running == nil {
				o.Running = false
			}
			if t := cs.State.Terminated; t != nil {
				code := t.ExitCode
				o.Exit = &code
			} else if t := cs.LastTerminationState.Terminated; t != nil && o.Exit == nil {
				code := t.ExitCode
				o.Exit = &code
			}
		}
		if o.Stopped && !finished.IsZero() {
			o.Finished = finished.UTC().Format(time.RFC3339)
		}
		return o, x.Namespace, true
	case *batchv1.Job:
		o = obs{Kind: "Job", Name: x.Name, Owner: owner(x.ObjectMeta), Active: x.Status.Active, Failed: x.Status.Failed,
			Sched: x.Annotations["batch.kubernetes.io/cronjob-scheduled-timestamp"]}
		for _, c := range x.Status.Conditions {
			o.Conds = append(o.Conds, fmt.Sprintf("%s=%s:%s", c.Type, c.Status, c.Reason))
		}
		return o, x.Namespace, true
	case *appsv1.ReplicaSet:
		o = obs{Kind: "ReplicaSet", Name: x.Name, Owner: owner(x.ObjectMeta), Rev: x.Labels["pod-template-hash"],
			Replicas: x.Status.Replicas, ReadyN: x.Status.ReadyReplicas, Available: x.Status.AvailableReplicas}
		return o, x.Namespace, true
	case *appsv1.Deployment:
		o = obs{Kind: "Deployment", Name: x.Name, Replicas: x.Status.Replicas, ReadyN: x.Status.ReadyReplicas,
			Available: x.Status.AvailableReplicas, Updated: x.Status.UpdatedReplicas}
		if x.Status.ObservedGeneration < x.Generation {
			o.Reason = "stale"
		}
		for _, c := range x.Status.Conditions {
			o.Conds = append(o.Conds, fmt.Sprintf("%s=%s:%s", c.Type, c.Status, c.Reason))
		}
		return o, x.Namespace, true
	case *appsv1.StatefulSet:
		o = obs{Kind: "StatefulSet", Name: x.Name, Replicas: x.Status.Replicas, ReadyN: x.Status.ReadyReplicas,
			Available: x.Status.AvailableReplicas, Updated: x.Status.UpdatedReplicas, Rev: x.Status.UpdateRevision}
		if x.Status.ObservedGeneration < x.Generation {
			o.Reason = "stale"
		}
		return o, x.Namespace, true
	case *appsv1.DaemonSet:
		o = obs{Kind: "DaemonSet", Name: x.Name, Replicas: x.Status.CurrentNumberScheduled, ReadyN: x.Status.NumberReady,
			Available: x.Status.NumberAvailable, Updated: x.Status.UpdatedNumberScheduled}
		if x.Status.ObservedGeneration < x.Generation {
			o.Reason = "stale"
		}
		return o, x.Namespace, true
	case *batchv1.CronJob:
		o = obs{Kind: "CronJob", Name: x.Name, Active: int32(len(x.Status.Active))}
		if x.Status.LastScheduleTime != nil {
			o.Message = x.Status.LastScheduleTime.UTC().Format(time.RFC3339)
		}
		return o, x.Namespace, true
	case *policyv1.PodDisruptionBudget:
		o = obs{Kind: "PodDisruptionBudget", Name: x.Name, Allowed: x.Status.DisruptionsAllowed}
		if x.Status.ObservedGeneration >= x.Generation && x.Status.ExpectedPods > 0 {
			o.Reason = "computed"
		}
		return o, x.Namespace, true
	case *corev1.Event:
		o = obs{Kind: "Event", Name: x.InvolvedObject.Kind + "/" + x.InvolvedObject.Name, Reason: x.Reason, Message: x.Message}
		return o, x.Namespace, true
	}
	return obs{}, "", false
}

func owner(m metav1.ObjectMeta) string {
	for _, r := range m.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.Kind + "/" + r.Name
		}
	}
	return ""
}

// Queries on a recording. Each returns an error naming what was not seen,
// which the table prints instead of a number.

// first is the time of the first observation that matches.
func (r *recording) first(what string, match func(o obs) bool) (float64, error) {
	for _, o := range r.Obs {
		if match(o) {
			return o.T, nil
		}
	}
	return 0, fmt.Errorf("never saw %s", what)
}

// firstAfter is first, among observations at or after t.
func (r *recording) firstAfter(t float64, what string, match func(o obs) bool) (float64, error) {
	return r.first(what, func(o obs) bool { return o.T >= t && match(o) })
}

func (r *recording) markAt(name string) (float64, error) {
	return r.first("the harness's mark "+name, func(o obs) bool { return o.Kind == "Mark" && o.Name == name })
}

func hasCond(o obs, prefix string) bool {
	for _, c := range o.Conds {
		if strings.HasPrefix(c, prefix) {
			return true
		}
	}
	return false
}

// podLife is one Pod's life as the watch showed it: first seen (its
// creation), every container running, Ready, failed or succeeded, gone.
type podLife struct {
	name                                   string
	created, running, ready, ended, gone   float64
	hasRunning, hasReady, hasEnded, isGone bool
	// finished is the containers' finish as the kubelet wrote it
	// (finishedAt, whole seconds); stopped when the watch first showed
	// every container terminated.
	finished, stopped       float64
	hasFinished, hasStopped bool
	exit                    *int32
	rev, owner, index       string
}

// pods lists the Pods seen, by creation.
func (r *recording) pods() []*podLife {
	by := map[string]*podLife{}
	var out []*podLife
	for _, o := range r.Obs {
		if o.Kind != "Pod" {
			continue
		}
		key := o.UID
		if key == "" {
			key = o.Name
		}
		p := by[key]
		if p == nil {
			p = &podLife{name: o.Name, created: o.T, rev: o.Rev, owner: o.Owner, index: o.Index}
			by[key] = p
			out = append(out, p)
		}
		if (o.Running || o.Phase == "Running") && !p.hasRunning {
			p.running, p.hasRunning = o.T, true
		}
		if o.Ready && !p.hasReady {
			p.ready, p.hasReady = o.T, true
		}
		if (o.Phase == "Failed" || o.Phase == "Succeeded") && !p.hasEnded {
			p.ended, p.hasEnded, p.exit = o.T, true, o.Exit
		}
		if o.Finished != "" && !p.hasFinished {
			if t, err := time.Parse(time.RFC3339, o.Finished); err == nil {
				p.finished, p.hasFinished = t.Sub(r.Start).Seconds(), true
			}
		}
		if o.Stopped && !p.hasStopped {
			p.stopped, p.hasStopped = o.T, true
		}
		if o.Op == "DELETED" && !p.isGone {
			p.gone, p.isGone = o.T, true
		}
	}
	return out
}

// busy is how long at least one of the Pods was in its span (each Pod's
// span from its creation to what span returns): the time the Pods' own
// terms take, whether they ran one after another or together, and not the
// time between them, which is the controllers'. span fails when the
// recording lacks a Pod's end.
func busy(ps []*podLife, span func(p *podLife) (float64, error)) (float64, error) {
	type iv struct{ lo, hi float64 }
	var ivs []iv
	for _, p := range ps {
		end, err := span(p)
		if err != nil {
			return 0, err
		}
		ivs = append(ivs, iv{p.created, max(end, p.created)})
	}
	sort.Slice(ivs, func(i, j int) bool { return ivs[i].lo < ivs[j].lo })
	sum, cur := 0.0, iv{math.Inf(-1), math.Inf(-1)}
	for _, x := range ivs {
		if x.lo > cur.hi {
			if !math.IsInf(cur.lo, -1) {
				sum += cur.hi - cur.lo
			}
			cur = x
			continue
		}
		cur.hi = max(cur.hi, x.hi)
	}
	if !math.IsInf(cur.lo, -1) {
		sum += cur.hi - cur.lo
	}
	return sum, nil
}

// sumRuns is the Pods' run time podlint counts as unknown ("pod run
// time"): each Pod's creation to its containers' finish as the kubelet
// wrote it, which the Job controller's back-off counts from.
func sumRuns(ps []*podLife) (float64, error) {
	return busy(ps, func(p *podLife) (float64, error) {
		switch {
		case p.hasFinished:
			return p.finished, nil
		case p.hasEnded:
			return p.ended, nil
		}
		return 0, fmt.Errorf("the Pod %s never failed or succeeded", p.name)
	})
}

// startsByWave is the scheduling-and-sandbox term podlint counts as
// unknown: each Pod's creation to every container running.
func startsByWave(ps []*podLife) (float64, error) {
	return busy(ps, func(p *podLife) (float64, error) {
		if !p.hasRunning {
			return 0, fmt.Errorf("the Pod %s never ran", p.name)
		}
		return p.running, nil
	})
}
