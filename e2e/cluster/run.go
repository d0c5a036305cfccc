package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
)

type config struct {
	kubeconfig                     *string
	podlint, obs, kubeVersion, doc string
	// from: recompute the table from the recordings in this folder (a
	// run's -obs) instead of running; took: that run's durations.
	from string
	took []time.Duration
	runs int
	only *regexp.Regexp
	// batch: at most this many scenarios at once (0: all of a run at
	// once). Fewer at once leaves the node's probes and stops the CPU a
	// lone workload would have, at the price of a longer run.
	batch int
}

// batches splits the scenarios into the groups that run at once.
func batches(scs []*scenario, n int) [][]*scenario {
	if n <= 0 || n >= len(scs) {
		return [][]*scenario{scs}
	}
	var out [][]*scenario
	for i := 0; i < len(scs); i += n {
		out = append(out, scs[i:min(i+n, len(scs))])
	}
	return out
}

func runAll(c config) error {
	if c.runs < 1 {
		c.runs = 1
	}
	var scs []*scenario
	for _, s := range scenarios() {
		if c.only == nil || c.only.MatchString(s.name) {
			scs = append(scs, s)
		}
	}
	if len(scs) == 0 {
		return fmt.Errorf("no scenario matches -only")
	}
	preds := map[string]*prediction{}
	for _, sc := range scs {
		p, err := predict(c.podlint, []byte(sc.render("podlint-e2e")), sc.target)
		if err != nil {
			return fmt.Errorf("%s: %v", sc.name, err)
		}
		preds[sc.name] = p
		if sc.after != "" {
			sa := *sc
			sa.manifest = sc.after
			if preds[sc.name+"/after"], err = predict(c.podlint, []byte(sa.render("podlint-e2e")), sc.target); err != nil {
				return fmt.Errorf("%s (after): %v", sc.name, err)
			}
		}
	}
	if c.from != "" {
		recs, err := loadRecordings(c.from, scs)
		if err != nil {
			return err
		}
		return report(c, scs, preds, recs, c.took)
	}
	cs, err := client(*c.kubeconfig)
	if err != nil {
		return err
	}
	var recs []*recording
	var took []time.Duration
	for run := 1; run <= c.runs; run++ {
		began := time.Now()
		for _, group := range batches(scs, c.batch) {
			rs, err := runOnce(cs, c, group, run)
			if err != nil {
				return err
			}
			recs = append(recs, rs...)
		}
		took = append(took, time.Since(began))
	}
	return report(c, scs, preds, recs, took)
}

// report evaluates the recordings, writes the table and fails when a
// check is outside its interval or was not observed.
func report(c config, scs []*scenario, preds map[string]*prediction, recs []*recording, took []time.Duration) error {
	var err error
	rows := evaluate(scs, preds, recs)
	table := renderTable(c, rows, scs, took)
	if c.doc == "" {
		_, err = os.Stdout.WriteString(table)
	} else {
		err = writeDoc(c.doc, table)
	}
	if err != nil {
		return err
	}
	n := counts(rows)
	fmt.Fprintf(os.Stderr, "e2e-cluster: %d checks: %d inside, %d outside, %d not checked, %d not observed; runs took %s\n",
		len(rows), n[inside], n[outside], n[notChecked], n[notSeen], durations(took))
	if n[outside]+n[notSeen] > 0 {
		return fmt.Errorf("%d checks outside their interval or not observed (see the table)", n[outside]+n[notSeen])
	}
	return nil
}

// runOnce runs the scenarios it is given at once, each in a namespace of its own,
// under one set of watches, and deletes the namespaces at the end.
func runOnce(cs *kubernetes.Clientset, c config, scs []*scenario, run int) ([]*recording, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	byNS := map[string]*recording{}
	var mu sync.Mutex
	record := func(op string) func(any) {
		return func(object any) {
			now := time.Now()
			if d, ok := object.(cache.DeletedFinalStateUnknown); ok {
				object = d.Obj
			}
			o, ns, ok := reduce(object)
			if !ok {
				return
			}
			o.Op = op
			mu.Lock()
			r := byNS[ns]
			mu.Unlock()
			if r != nil {
				r.add(o, now)
			}
		}
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	for _, inf := range []cache.SharedIndexInformer{
		f.Core().V1().Pods().Informer(), f.Core().V1().Events().Informer(), f.Batch().V1().Jobs().Informer(),
		f.Batch().V1().CronJobs().Informer(), f.Apps().V1().ReplicaSets().Informer(), f.Apps().V1().Deployments().Informer(),
		f.Apps().V1().StatefulSets().Informer(), f.Apps().V1().DaemonSets().Informer(), f.Policy().V1().PodDisruptionBudgets().Informer(),
	} {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    record("ADDED"),
			UpdateFunc: func(_, n any) { record("MODIFIED")(n) },
			DeleteFunc: record("DELETED"),
		}); err != nil {
			return nil, err
		}
	}
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return nil, fmt.Errorf("the watch of %v did not sync", typ)
		}
	}
	var recs []*recording
	for _, sc := range scs {
		ns := fmt.Sprintf("%s-r%d", sc.name, run)
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		// Pods need the namespace's default ServiceAccount (the
		// controller-manager makes it): creating them before it exists
		// is refused.
		if err := waitSA(ctx, cs, ns); err != nil {
			return nil, err
		}
		r := &recording{Scenario: sc.name, Run: run, Namespace: ns}
		recs = append(recs, r)
		mu.Lock()
		byNS[ns] = r
		mu.Unlock()
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(scs))
	for i, sc := range scs {
		r := recs[i]
		objs, err := decode(sc.render(r.Namespace))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", sc.name, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := play(ctx, cs, sc, r, objs); err != nil {
				errs <- fmt.Errorf("%s run %d: %v", sc.name, run, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	// A scenario that failed (a request refused, its end not reached in
	// time) still has its recording: its checks say what was not seen.
	for err := range errs {
		fmt.Fprintln(os.Stderr, "e2e-cluster:", err)
	}
	if dir := c.obs; dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		for _, r := range recs {
			if err := r.save(filepath.Join(dir, r.Namespace+".json")); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range recs {
		_ = cs.CoreV1().Namespaces().Delete(ctx, r.Namespace, metav1.DeleteOptions{})
	}
	// The next run starts on a quiet node: the Pods of this one are gone.
	deadline := time.Now().Add(2 * time.Minute)
	for _, r := range recs {
		for time.Now().Before(deadline) {
			if _, err := cs.CoreV1().Namespaces().Get(ctx, r.Namespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	return recs, nil
}

// loadRecordings reads the recordings of the scenarios from dir.
func loadRecordings(dir string, scs []*scenario) ([]*recording, error) {
	var recs []*recording
	for _, sc := range scs {
		files, err := filepath.Glob(filepath.Join(dir, sc.name+"-r*.json"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			r, err := loadRecording(f)
			if err != nil {
				return nil, err
			}
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("no recordings of the scenarios in %s", dir)
	}
	return recs, nil
}

func waitSA(ctx context.Context, cs *kubernetes.Clientset, ns string) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("namespace %s has no default ServiceAccount after 30 s: %v", ns, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// play creates the scenario's objects (the recording's time 0 is the
// first create request), runs its actions and waits until it is done or
// its time is up.
func play(ctx context.Context, cs *kubernetes.Clientset, sc *scenario, r *recording, objs []runtime.Object) error {
	r.mu.Lock()
	r.Start = time.Now()
	r.mu.Unlock()
	for _, o := range objs {
		if err := create(ctx, cs, r.Namespace, o); err != nil {
			return err
		}
	}
	a := &actor{ctx: ctx, cs: cs, r: r, deadline: r.Start.Add(sc.limit)}
	if sc.act != nil {
		if err := sc.act(a); err != nil {
			return err
		}
	}
	if sc.done != nil {
		return a.until("the scenario's end", sc.done)
	}
	time.Sleep(time.Until(a.deadline))
	return nil
}

func decode(manifest string) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, doc := range strings.Split(manifest, "\n---\n") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		o, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// creatable says whether create knows the object's kind.
func creatable(o runtime.Object) error {
	switch o.(type) {
	case *batchv1.Job, *batchv1.CronJob, *appsv1.Deployment, *appsv1.StatefulSet, *appsv1.DaemonSet,
		*policyv1.PodDisruptionBudget, *corev1.Service:
		return nil
	}
	return fmt.Errorf("the harness cannot create a %T", o)
}

func create(ctx context.Context, cs *kubernetes.Clientset, ns string, o runtime.Object) error {
	if err := creatable(o); err != nil {
		return err
	}
	var err error
	opts := metav1.CreateOptions{}
	switch x := o.(type) {
	case *batchv1.Job:
		_, err = cs.BatchV1().Jobs(ns).Create(ctx, x, opts)
	case *batchv1.CronJob:
		_, err = cs.BatchV1().CronJobs(ns).Create(ctx, x, opts)
	case *appsv1.Deployment:
		_, err = cs.AppsV1().Deployments(ns).Create(ctx, x, opts)
	case *appsv1.StatefulSet:
		_, err = cs.AppsV1().StatefulSets(ns).Create(ctx, x, opts)
	case *appsv1.DaemonSet:
		_, err = cs.AppsV1().DaemonSets(ns).Create(ctx, x, opts)
	case *policyv1.PodDisruptionBudget:
		_, err = cs.PolicyV1().PodDisruptionBudgets(ns).Create(ctx, x, opts)
	case *corev1.Service:
		_, err = cs.CoreV1().Services(ns).Create(ctx, x, opts)
	}
	return err
}

// actor is what a scenario's actions use: the client, its recording and
// its deadline.
type actor struct {
	ctx      context.Context
	cs       *kubernetes.Clientset
	r        *recording
	deadline time.Time
}

// until waits for cond on the recording so far, or fails at the deadline.
func (a *actor) until(what string, cond func(r *recording) bool) error {
	for {
		snap := &recording{Obs: a.r.snapshot()}
		if cond(snap) {
			return nil
		}
		if time.Now().After(a.deadline) {
			return fmt.Errorf("%s did not happen in time", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bump changes the pod template of kind/name (an annotation), which starts
// a rollout, and marks the request's time as "update" with what (the
// checks read it back).
func (a *actor) bump(kind, name, what string) error {
	patch := []byte(`{"spec":{"template":{"metadata":{"annotations":{"podlint.dev/e2e-rev":"2"}}}}}`)
	a.r.mark("update", time.Now(), what)
	var err error
	switch kind {
	case "Deployment":
		_, err = a.cs.AppsV1().Deployments(a.r.Namespace).Patch(a.ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	case "StatefulSet":
		_, err = a.cs.AppsV1().StatefulSets(a.r.Namespace).Patch(a.ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	case "DaemonSet":
		_, err = a.cs.AppsV1().DaemonSets(a.r.Namespace).Patch(a.ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	default:
		err = fmt.Errorf("bump: %s", kind)
	}
	return err
}

// patchDeployment applies a strategic-merge patch to a Deployment and
// marks it "update".
func (a *actor) patchDeployment(name, patch, what string) error {
	a.r.mark("update", time.Now(), what)
	_, err := a.cs.AppsV1().Deployments(a.r.Namespace).Patch(a.ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// evict asks the Eviction API to evict the Pod, as `kubectl drain` does,
// and marks the answer: "evict-refused" (429, the budget allows no
// disruption) or "evict-accepted".
func (a *actor) evict(pod string) (bool, error) {
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: pod, Namespace: a.r.Namespace}}
	sent := time.Now()
	err := a.cs.PolicyV1().Evictions(a.r.Namespace).Evict(a.ctx, ev)
	switch {
	case err == nil:
		a.r.mark("evict-accepted", sent, pod)
		return true, nil
	case apierrors.IsTooManyRequests(err):
		a.r.mark("evict-refused", sent, err.Error())
		return false, nil
	}
	return false, err
}
