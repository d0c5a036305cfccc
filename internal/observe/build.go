package observe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Builder collects Pods, events and owners and makes the profile. It
// keeps a few facts per Pod and container, never the objects, so a list of
// ten thousand Pods costs little (TestTenThousandPodsMemory). Objects may
// come in any order: owners and events are joined to Pods in Profile.
type Builder struct {
	pods map[string]*podFacts // by namespace/name
	// owners maps namespace/Kind/name of a ReplicaSet or Job to its own
	// controller, namespace/Kind/name, or "" when it has none.
	owners map[string]string
	// kills counts the kubelet's probe kills by namespace/pod/container.
	kills map[string]*killFacts
	// seenEvents keeps an event's count once per event name, so a watch
	// that sees the same event updated does not count it twice.
	seenEvents map[string]int
	from, to   time.Time
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{pods: map[string]*podFacts{}, owners: map[string]string{}, kills: map[string]*killFacts{}, seenEvents: map[string]int{}}
}

type podFacts struct {
	ns, name string
	// deleted is when the Pod's deletion was asked for, the earliest a
	// version shows: the kubelet's own final delete (grace 0) moves
	// deletionTimestamp to its own time, after the containers finished.
	deleted      time.Time
	ownerKind    string
	ownerName    string
	templateHash string
	failed       bool
	regular      int
	// Slices rather than maps: a Pod has a few of each, and an empty
	// map's buckets would be most of what the builder keeps per Pod.
	containers []*containerFacts
	samples    []fact // start-ups, init runs, shutdowns
}

// container returns the facts of a container, init or not.
func (pf *podFacts) container(name string, init bool) *containerFacts {
	for _, c := range pf.containers {
		if c.name == name && c.init == init {
			return c
		}
	}
	c := &containerFacts{name: name, init: init}
	pf.containers = append(pf.containers, c)
	return c
}

// sample records a fact unless one with its id is there.
func (pf *podFacts) sample(f fact) {
	for i := range pf.samples {
		if pf.samples[i].id == f.id {
			return
		}
	}
	pf.samples = append(pf.samples, f)
}

type containerFacts struct {
	name         string
	init         bool
	restartCount int
	// failedNow says the container's current state is a failure the
	// kubelet has not restarted yet (or never will): a termination
	// restartCount does not count.
	failedNow bool
	// runs are the container's terminations, each once, in the order
	// seen: a snapshot shows the last (lastState, or the current state of
	// a container that is not restarted), a watch each as it happens.
	runs []*termFacts
}

// maxRuns bounds the terminations kept per container over a long watch;
// restarts beyond it still count, by restartCount, as cause unknown.
const maxRuns = 64

type termFacts struct {
	exitCode          int32
	reason            string
	started, finished time.Time
	// neverReady says the Pod was not Ready at any time the status shows
	// during the run, as of the version that first showed its end.
	neverReady bool
}

// last is the run that ended last.
func (cf *containerFacts) last() *termFacts {
	var last *termFacts
	for _, t := range cf.runs {
		if last == nil || t.finished.After(last.finished) {
			last = t
		}
	}
	return last
}

// addRun records a termination unless it is one already seen (the same
// run shows first as the state, then as lastState).
func (cf *containerFacts) addRun(t *termFacts, ready *corev1.PodCondition) {
	for _, r := range cf.runs {
		if r.started.Equal(t.started) && r.finished.Equal(t.finished) {
			return
		}
	}
	if len(cf.runs) == maxRuns {
		return
	}
	t.neverReady = neverReady(ready, t)
	cf.runs = append(cf.runs, t)
}

type factKind int

const (
	factStartup factKind = iota
	factInitRun
	factShutdown
)

type fact struct {
	id        string
	kind      factKind
	container string
	init      bool
	sigkill   bool
	at        time.Time
	seconds   float64
}

type killFacts struct {
	liveness, startup int
	first, last       time.Time
}

// probeKill matches the kubelet's Killing event message for a probe
// (pkg/kubelet/prober/worker.go, kuberuntime's killContainer reason):
// "Container app failed liveness probe, will be restarted".
// Compiled on first use: podlint links this package into every run.
var probeKill = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^Container (\S+) failed (liveness|startup) probe`)
})

func (b *Builder) span(t time.Time) {
	if t.IsZero() {
		return
	}
	if b.from.IsZero() || t.Before(b.from) {
		b.from = t
	}
	if t.After(b.to) {
		b.to = t
	}
}

func id(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:6])
}

// controllerOf returns the controlling owner reference, or the first.
func controllerOf(refs []metav1.OwnerReference) *metav1.OwnerReference {
	for i := range refs {
		if refs[i].Controller != nil && *refs[i].Controller {
			return &refs[i]
		}
	}
	if len(refs) > 0 {
		return &refs[0]
	}
	return nil
}

// AddReplicaSet records whose a ReplicaSet is.
func (b *Builder) AddReplicaSet(rs *appsv1.ReplicaSet) {
	b.addOwner(rs.Namespace, "ReplicaSet", rs.Name, rs.OwnerReferences)
}

// AddJob records whose a Job is.
func (b *Builder) AddJob(j *batchv1.Job) {
	b.addOwner(j.Namespace, "Job", j.Name, j.OwnerReferences)
}

func (b *Builder) addOwner(ns, kind, name string, refs []metav1.OwnerReference) {
	owner := ""
	if o := controllerOf(refs); o != nil {
		owner = ns + "/" + o.Kind + "/" + o.Name
	}
	b.owners[ns+"/"+kind+"/"+name] = owner
}

// AddEvent records a core/v1 Event.
func (b *Builder) AddEvent(e *corev1.Event) {
	first, last := e.FirstTimestamp.Time, e.LastTimestamp.Time
	if first.IsZero() {
		first = e.EventTime.Time
	}
	if last.IsZero() {
		last = first
	}
	count := int(e.Count)
	if e.Series != nil && int(e.Series.Count) > count {
		count = int(e.Series.Count)
	}
	b.addEvent(e.Namespace+"/"+e.Name, e.InvolvedObject.Kind, e.InvolvedObject.Namespace, e.InvolvedObject.Name, e.Reason, e.Message, count, first, last)
}

// AddEventV1 records an events.k8s.io/v1 Event.
func (b *Builder) AddEventV1(e *eventsv1.Event) {
	first := e.EventTime.Time
	if first.IsZero() {
		first = e.DeprecatedFirstTimestamp.Time
	}
	last := e.DeprecatedLastTimestamp.Time
	count := int(e.DeprecatedCount)
	if e.Series != nil {
		count = max(count, int(e.Series.Count))
		last = e.Series.LastObservedTime.Time
	}
	if last.IsZero() {
		last = first
	}
	b.addEvent(e.Namespace+"/"+e.Name, e.Regarding.Kind, e.Regarding.Namespace, e.Regarding.Name, e.Reason, e.Note, count, first, last)
}

func (b *Builder) addEvent(key, kind, ns, pod, reason, message string, count int, first, last time.Time) {
	b.span(first)
	b.span(last)
	if kind != "Pod" || reason != "Killing" {
		return
	}
	if !strings.HasPrefix(message, "Container ") {
		return
	}
	m := probeKill().FindStringSubmatch(message)
	if m == nil {
		return
	}
	count = max(count, 1)
	// A watch sees an event again each time its count rises: only the
	// rise is new.
	seen := b.seenEvents[key]
	if count <= seen {
		return
	}
	b.seenEvents[key] = count
	count -= seen
	k := b.kills[ns+"/"+pod+"/"+m[1]]
	if k == nil {
		k = &killFacts{}
		b.kills[ns+"/"+pod+"/"+m[1]] = k
	}
	if m[2] == "liveness" {
		k.liveness += count
	} else {
		k.startup += count
	}
	if k.first.IsZero() || first.Before(k.first) {
		k.first = first
	}
	if last.After(k.last) {
		k.last = last
	}
}

// AddPod records what a Pod's status tells. A Pod seen again (a watch)
// keeps what it showed before and takes its new last terminations.
func (b *Builder) AddPod(p *corev1.Pod) {
	key := p.Namespace + "/" + p.Name
	pf := b.pods[key]
	if pf == nil {
		pf = &podFacts{ns: p.Namespace, name: p.Name}
		b.pods[key] = pf
	}
	if o := controllerOf(p.OwnerReferences); o != nil {
		pf.ownerKind, pf.ownerName = o.Kind, o.Name
	}
	pf.templateHash = p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	pf.failed = pf.failed || p.Status.Phase == corev1.PodFailed
	pf.regular = len(p.Spec.Containers)
	if pf.regular == 0 {
		pf.regular = len(p.Status.ContainerStatuses)
	}
	b.span(p.CreationTimestamp.Time)

	var ready *corev1.PodCondition
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			ready = &p.Status.Conditions[i]
		}
	}
	if ready != nil {
		b.span(ready.LastTransitionTime.Time)
	}

	// The start-up: Ready minus the latest start of a running container.
	var latest time.Time
	for _, s := range p.Status.ContainerStatuses {
		if s.State.Running != nil && s.State.Running.StartedAt.After(latest) {
			latest = s.State.Running.StartedAt.Time
		}
	}
	if ready != nil && ready.Status == corev1.ConditionTrue && !latest.IsZero() && !ready.LastTransitionTime.Time.Before(latest) {
		at := ready.LastTransitionTime.Time
		for _, s := range p.Status.ContainerStatuses {
			pf.sample(fact{id: id(key, s.Name, "startup", latest.Format(time.RFC3339)), kind: factStartup, container: s.Name, at: at, seconds: at.Sub(latest).Seconds()})
		}
	}

	if p.DeletionTimestamp != nil {
		deleted := p.DeletionTimestamp.Time
		if p.DeletionGracePeriodSeconds != nil {
			deleted = deleted.Add(-time.Duration(*p.DeletionGracePeriodSeconds) * time.Second)
		}
		if pf.deleted.IsZero() || deleted.Before(pf.deleted) {
			pf.deleted = deleted
		}
	}
	for _, s := range p.Status.InitContainerStatuses {
		b.addStatus(pf, key, &s, true, ready, pf.deleted)
	}
	for _, s := range p.Status.ContainerStatuses {
		b.addStatus(pf, key, &s, false, ready, pf.deleted)
	}
}

func (b *Builder) addStatus(pf *podFacts, key string, s *corev1.ContainerStatus, init bool, ready *corev1.PodCondition, deleted time.Time) {
	ck := s.Name
	if init {
		ck = "init:" + s.Name
	}
	cf := pf.container(s.Name, init)
	cf.restartCount = max(cf.restartCount, int(s.RestartCount))
	cf.failedNow = false
	if t := s.State.Terminated; t != nil {
		b.span(t.FinishedAt.Time)
		run := t.FinishedAt.Sub(t.StartedAt.Time).Seconds()
		switch {
		case !deleted.IsZero() && !t.FinishedAt.Before(&metav1.Time{Time: deleted}):
			// Finished after the deletion: a shutdown. (An init container
			// that finished long before is not one.)
			sigkill := t.ExitCode == 137 && t.Reason != "OOMKilled"
			took := max(0, t.FinishedAt.Sub(deleted).Seconds())
			pf.sample(fact{id: id(key, ck, "shutdown", t.StartedAt.Format(time.RFC3339)), kind: factShutdown, container: s.Name, init: init, sigkill: sigkill, at: t.FinishedAt.Time, seconds: took})
		case init && t.ExitCode == 0 && run >= 0:
			pf.sample(fact{id: id(key, ck, "init", t.StartedAt.Format(time.RFC3339)), kind: factInitRun, container: s.Name, init: true, at: t.FinishedAt.Time, seconds: run})
		case t.ExitCode != 0:
			// A container that failed: not restarted (a Job's Pod), or
			// seen before the kubelet starts it again.
			cf.failedNow = true
			cf.addRun(&termFacts{exitCode: t.ExitCode, reason: t.Reason, started: t.StartedAt.Time, finished: t.FinishedAt.Time}, ready)
		}
	}
	if t := s.LastTerminationState.Terminated; t != nil {
		b.span(t.FinishedAt.Time)
		cf.addRun(&termFacts{exitCode: t.ExitCode, reason: t.Reason, started: t.StartedAt.Time, finished: t.FinishedAt.Time}, ready)
	}
}

// neverReady reports whether the Pod status shows the Pod not Ready during
// the whole run t: Ready is False and has been since before the run began,
// or Ready is True but became so only after the run ended. The status
// keeps only the last transition, so a Pod that was Ready, lost it and
// regained it after the run counts as never Ready in it; the kubelet marks
// a Pod not Ready when its liveness probe fails, so such runs are rare.
func neverReady(ready *corev1.PodCondition, t *termFacts) bool {
	if ready == nil {
		return true
	}
	ltt := ready.LastTransitionTime.Time
	if ready.Status == corev1.ConditionTrue {
		return !ltt.Before(t.finished)
	}
	return !ltt.After(t.started.Add(time.Second))
}

// ownerKey resolves a Pod's workload: namespace/Kind/name, and how it was
// inferred when an owner was not listed.
func (b *Builder) ownerKey(pf *podFacts) (key, inferred string) {
	if pf.ownerKind == "" {
		return pf.ns + "/Pod/" + pf.name, ""
	}
	key = pf.ns + "/" + pf.ownerKind + "/" + pf.ownerName
	for range 4 { // ReplicaSet → Deployment, Job → CronJob, and custom chains
		up, listed := b.owners[key]
		if !listed {
			break
		}
		if up == "" {
			return key, ""
		}
		key = up
	}
	if _, listed := b.owners[key]; listed || (pf.ownerKind != "ReplicaSet" && pf.ownerKind != "Job") || key != pf.ns+"/"+pf.ownerKind+"/"+pf.ownerName {
		return key, ""
	}
	// The owner is gone (a rolled-out ReplicaSet, a Job cleaned up) or
	// was not listed.
	if pf.ownerKind == "ReplicaSet" && pf.templateHash != "" {
		if d, ok := strings.CutSuffix(pf.ownerName, "-"+pf.templateHash); ok {
			return pf.ns + "/Deployment/" + d, fmt.Sprintf("ReplicaSet %s was not listed; the Deployment is named from it", pf.ownerName)
		}
	}
	return key, fmt.Sprintf("%s %s was not listed; its own owner is unknown", pf.ownerKind, pf.ownerName)
}

// Profile returns what the builder has seen as a profile: one window of
// mode, which ends at now, or at the latest time the objects show when now
// is zero (--from files have no clock worth trusting).
func (b *Builder) Profile(context, mode string, now time.Time) *Profile {
	to := now
	if to.IsZero() {
		to = b.to
	}
	from := b.from
	if from.IsZero() || from.After(to) {
		from = to
	}
	p := &Profile{Context: context, Mode: mode}
	if !to.IsZero() {
		// A list whose objects carry no time at all (not what kubectl
		// prints) has no window: its findings say "of unknown date"
		// rather than thousands of days stale.
		p.Windows = []Window{{Mode: mode, From: from.UTC(), To: to.UTC()}}
	}
	byKey := map[string]*Workload{}
	for _, pf := range b.pods {
		key, inferred := b.ownerKey(pf)
		w := byKey[key]
		if w == nil {
			w = &Workload{Key: key, Inferred: inferred}
			byKey[key] = w
			p.Workloads = append(p.Workloads, w)
		}
		w.Pods++
		if pf.failed {
			w.FailedPods++
		}
		if pf.regular > 1 {
			w.PodStartup = true
		}
		b.addPodTo(w, pf)
	}
	for _, w := range p.Workloads {
		// Drop containers that showed nothing.
		kept := w.Containers[:0]
		for _, c := range w.Containers {
			if c.Startup != nil || c.Censored != nil || len(c.Restarts) > 0 || c.Shutdowns != nil {
				kept = append(kept, c)
			}
		}
		w.Containers = kept
	}
	p.normalize()
	return p
}

func (b *Builder) addPodTo(w *Workload, pf *podFacts) {
	key := pf.ns + "/" + pf.name
	for _, f := range pf.samples {
		c := w.container(f.container, f.init)
		s := Sample{ID: f.id, At: f.at.UTC(), Seconds: f.seconds}
		switch f.kind {
		case factStartup, factInitRun:
			if c.Startup == nil {
				c.Startup = &Series{}
			}
			c.Startup.add(s)
		case factShutdown:
			if c.Shutdowns == nil {
				c.Shutdowns = &Shutdowns{Took: &Series{}}
			}
			c.Shutdowns.Took.add(s)
			if f.sigkill {
				if c.Shutdowns.SIGKILL == nil {
					c.Shutdowns.SIGKILL = &Series{}
				}
				c.Shutdowns.SIGKILL.add(s)
			}
		}
	}
	for _, cf := range pf.containers {
		ck := cf.name
		if cf.init {
			ck = "init:" + cf.name
		}
		k := b.kills[key+"/"+cf.name]
		if cf.init {
			k = nil // probes run on regular containers and sidecars only
		}
		var c *Container
		get := func() *Container {
			if c == nil {
				c = w.container(cf.name, cf.init)
			}
			return c
		}
		attributed := 0
		lastProbe := ""
		if k != nil {
			for _, pk := range []struct {
				cause string
				n     int
			}{{"liveness-probe", k.liveness}, {"startup-probe", k.startup}} {
				if pk.n == 0 {
					continue
				}
				r := get().restart(pk.cause)
				r.Count += pk.n
				attributed += pk.n
				lastProbe = pk.cause
			}
			if k.liveness > 0 && k.startup > 0 {
				lastProbe = "" // which probe killed the last run is not known
			}
		}
		for _, t := range cf.runs {
			cause := fmt.Sprintf("exit-code-%d", t.exitCode)
			if t.reason == "OOMKilled" {
				cause = "OOMKilled"
			}
			probeKilled := killedByProbe(t, k)
			if probeKilled && lastProbe != "" {
				cause = lastProbe
			}
			r := get().restart(cause)
			if !probeKilled {
				r.Count++
				attributed++
			}
			run := t.finished.Sub(t.started).Seconds()
			if !t.started.IsZero() && run >= 0 {
				s := Sample{ID: id(key, ck, "run", t.started.Format(time.RFC3339)), At: t.finished.UTC(), Seconds: run}
				if r.Runs == nil {
					r.Runs = &Series{}
				}
				r.Runs.add(s)
				if probeKilled && t.neverReady {
					cz := get().censored()
					if cz.NotReadyAfter == nil {
						cz.NotReadyAfter = &Series{}
					}
					cz.NotReadyAfter.add(s)
				}
			}
		}
		if k != nil && b.killsBeforeReady(pf, cf, k) {
			get().censored().Kills += k.liveness + k.startup
		}
		terminations := cf.restartCount
		if cf.failedNow {
			terminations++
		}
		if rest := terminations - attributed; rest > 0 && !cf.init {
			get().restart("unknown").Count += rest
		}
	}
}

func (c *Container) censored() *Censored {
	if c.Censored == nil {
		c.Censored = &Censored{}
	}
	return c.Censored
}

// killsBeforeReady reports whether the probe kills of a container all came
// before the Pod was ever Ready: its last run, killed, was never Ready, and
// the kills are no later than that run's end.
func (b *Builder) killsBeforeReady(pf *podFacts, cf *containerFacts, k *killFacts) bool {
	last := cf.last()
	if last == nil {
		return false
	}
	return last.neverReady && killedByProbe(last, k) && !k.last.After(last.finished.Add(2*time.Second))
}

// killedByProbe reports whether the run t ended in one of the probe kills
// k counts: it finished between the first kill event and the grace period
// after the last (2 minutes allowed; the default is 30 s). The exit code
// does not tell: an app that handles SIGTERM exits 143 or 0, one that
// ignores it is SIGKILLed (137).
func killedByProbe(t *termFacts, k *killFacts) bool {
	if k == nil || t.reason == "OOMKilled" {
		return false
	}
	return !t.finished.Before(k.first.Add(-2*time.Second)) && !t.finished.After(k.last.Add(2*time.Minute))
}
