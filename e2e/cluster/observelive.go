package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// The end-to-end test of `podlint observe` (issue 40): workloads whose
// lives the profile must tell are created as the admin, while podlint
// observe watches them as the observer, the user bound only to the
// ClusterRole docs/observe.md documents; then `podlint check --observed`
// must name what the cluster saw. No fake client stands in anywhere: the
// API server, the controllers and the kubelet are the real ones the
// cluster script started.

const observeNS = "observe-e2e"

// holdFinalizer keeps the Pod of the api Deployment after its owners are
// gone, so that a list shows a Pod whose ReplicaSet is not there (what a
// snapshot taken across a deletion shows).
const holdFinalizer = "podlint.dev/e2e-hold"

// observeManifest is applied as the admin and linted by podlint check.
// slow-start's first run in each Pod sleeps 30 s before it is Ready, far
// past its liveness probe's kill at 8-10 s, and its later runs 3 s: the
// emptyDir outlives the container, so each Pod has one killed start and
// then one that gets through.
var observeManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: slow-start, namespace: ` + observeNS + `}
spec:
  replicas: 2
  selector: {matchLabels: {app: slow-start}}
  template:
    metadata:
      labels: {app: slow-start}
    spec:
      terminationGracePeriodSeconds: 1
      volumes: [{name: state, emptyDir: {}}]
      containers:
      - name: app
        image: ` + image + `
        imagePullPolicy: Never
        volumeMounts: [{name: state, mountPath: /state}]
        command: [sh, -c, "if [ -e /state/ran ]; then s=3; else touch /state/ran; s=30; fi; sleep $s; touch /tmp/ready; trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"]
        readinessProbe: {exec: {command: [test, -e, /tmp/ready]}, periodSeconds: 1}
        livenessProbe: {exec: {command: [test, -e, /tmp/ready]}, initialDelaySeconds: 6, periodSeconds: 2, failureThreshold: 2}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: stubborn, namespace: ` + observeNS + `}
spec:
  replicas: 1
  selector: {matchLabels: {app: stubborn}}
  template:
    metadata:
      labels: {app: stubborn}
    spec:
      terminationGracePeriodSeconds: 3
      containers:
      - name: app
        image: ` + image + `
        imagePullPolicy: Never
        command: [sh, -c, "trap '' TERM; touch /tmp/ready; while :; do sleep 1; done"]
        readinessProbe: {exec: {command: [test, -e, /tmp/ready]}, periodSeconds: 1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: cache, namespace: ` + observeNS + `}
spec:
  replicas: 1
  selector: {matchLabels: {app: cache}}
  template:
    metadata:
      labels: {app: cache}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: app
        image: ` + image + `
        imagePullPolicy: Never
        command: [sh, -c, "sleep 2; head -c 200000000 /dev/zero | tail"]
        resources:
          limits: {memory: 32Mi}
          requests: {memory: 32Mi}
---
apiVersion: batch/v1
kind: Job
metadata: {name: migrate, namespace: ` + observeNS + `}
spec:
  backoffLimit: 1
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 1
      containers:
      - name: run
        image: ` + image + `
        imagePullPolicy: Never
        command: [sh, -c, "sleep 2; exit 1"]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: ` + observeNS + `}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata:
      labels: {app: api}
      finalizers: [` + holdFinalizer + `]
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: api
        image: ` + image + `
        imagePullPolicy: Never
        command: [sh, -c, "sleep 2; touch /tmp/ready; trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"]
        readinessProbe: {exec: {command: [test, -e, /tmp/ready]}, periodSeconds: 1}
      - name: proxy
        image: ` + image + `
        imagePullPolicy: Never
        command: [sh, -c, "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done"]
`

// observeLive runs the test; dir receives the manifest, the profile, the
// raw lists (for scrubbing into podlint's test data) and podlint's output.
func observeLive(adminConfig, observerConfig, podlint, dir string, watch time.Duration) (err error) {
	ctx := context.Background()
	admin, err := client(adminConfig)
	if err != nil {
		return err
	}
	observer, err := client(observerConfig)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	manifest := filepath.Join(dir, "workloads.yaml")
	if err := os.WriteFile(manifest, []byte(observeManifest), 0o644); err != nil {
		return err
	}
	objs, err := decode(observeManifest)
	if err != nil {
		return err
	}
	if err := readOnly(ctx, observer); err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: observeNS}}
	if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("namespace %s (a run left on this cluster? TEARDOWN=1 the cluster): %v", observeNS, err)
	}
	defer func() {
		if cerr := cleanUp(admin); err == nil {
			err = cerr
		}
	}()

	// The watch starts before the workloads exist, as a user would start
	// it before a deploy, and sees every Pod from its creation.
	profile := filepath.Join(dir, "observed.yaml")
	w := exec.Command(podlint, "observe", "-n", observeNS, "--watch", watch.String(), "--fresh", "-o", profile)
	w.Env = append(os.Environ(), "KUBECONFIG="+observerConfig)
	var wout bytes.Buffer
	w.Stdout, w.Stderr = &wout, &wout
	if err := w.Start(); err != nil {
		return err
	}
	started := time.Now()
	// Every version of every Pod the watch saw, in order, for the
	// recorded test data of the Builder (a watch is the Pod's versions
	// one after another).
	stopRecording, err := recordPods(ctx, observer)
	if err != nil {
		_ = w.Process.Kill()
		_ = w.Wait()
		return err
	}
	time.Sleep(2 * time.Second)
	for _, o := range objs {
		if err := create(ctx, admin, observeNS, o); err != nil {
			_ = w.Process.Kill()
			_ = w.Wait()
			return fmt.Errorf("create %T: %v", o, err)
		}
	}
	// Halfway, while the watch runs: a shutdown that reaches SIGKILL
	// (stubborn ignores SIGTERM, grace 3 s), and the api Deployment deleted
	// under its Pod, which the finalizer keeps.
	time.Sleep(watch / 2)
	pods, err := admin.CoreV1().Pods(observeNS).List(ctx, metav1.ListOptions{LabelSelector: "app=stubborn"})
	if err != nil || len(pods.Items) != 1 {
		return fmt.Errorf("stubborn's Pod: %v (%d Pods)", err, len(pods.Items))
	}
	if err := admin.CoreV1().Pods(observeNS).Delete(ctx, pods.Items[0].Name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	background := metav1.DeletePropagationBackground
	if err := admin.AppsV1().Deployments(observeNS).Delete(ctx, "api", metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		return err
	}
	if err := w.Wait(); err != nil {
		return fmt.Errorf("podlint observe --watch %s as the observer: %v\n%s", watch, err, wout.String())
	}
	fmt.Fprintf(os.Stderr, "e2e-cluster: podlint observe --watch %s took %s: %s", watch, time.Since(started).Round(time.Second), wout.String())
	seen := stopRecording()
	if err := writeList(filepath.Join(dir, "watch-pods.json"), seen); err != nil {
		return err
	}

	// The lists as kubectl get pods,events,replicasets,jobs -o json
	// prints them, read as the observer, for podlint's recorded test data.
	if err := waitOwnerGone(ctx, admin); err != nil {
		return err
	}
	items, err := listAsKubectl(ctx, observer)
	if err != nil {
		return err
	}
	if err := writeList(filepath.Join(dir, "lists.json"), items); err != nil {
		return err
	}
	return checkObserved(podlint, dir, manifest, profile)
}

// readOnly proves the observer can list and cannot write: a create, an
// update and a delete are each Forbidden (dry run, so that nothing would
// change even if RBAC were wrong).
func readOnly(ctx context.Context, cs *kubernetes.Clientset) error {
	if _, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return fmt.Errorf("the observer cannot list Pods: %v", err)
	}
	dry := []string{metav1.DryRunAll}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "observer-write", Namespace: "default"}}
	_, errCreate := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{DryRun: dry})
	_, errPatch := cs.CoreV1().Namespaces().Patch(ctx, "default", types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{DryRun: dry})
	errDelete := cs.CoreV1().Pods("kube-system").DeleteCollection(ctx, metav1.DeleteOptions{DryRun: dry}, metav1.ListOptions{})
	for what, err := range map[string]error{"create a ConfigMap": errCreate, "patch a Namespace": errPatch, "delete Pods": errDelete} {
		if !apierrors.IsForbidden(err) {
			return fmt.Errorf("the observer may %s (got %v, want Forbidden): it is not read-only", what, err)
		}
	}
	fmt.Fprintln(os.Stderr, "e2e-cluster: the observer lists Pods; its create, patch and delete are Forbidden")
	return nil
}

// waitOwnerGone waits until the garbage collector has removed the api
// Deployment's ReplicaSet, leaving its Pod (held by the finalizer).
func waitOwnerGone(ctx context.Context, cs *kubernetes.Clientset) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		rs, err := cs.AppsV1().ReplicaSets(observeNS).List(ctx, metav1.ListOptions{LabelSelector: "app=api"})
		pods, perr := cs.CoreV1().Pods(observeNS).List(ctx, metav1.ListOptions{LabelSelector: "app=api"})
		if err == nil && perr == nil && len(rs.Items) == 0 && len(pods.Items) > 0 {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return errors.New("the api Deployment's ReplicaSet is still there (or its Pod is gone) a minute after the delete")
}

// recordPods watches the namespace's Pods until stop is called, which
// returns every version seen, in order, each with its kind set.
func recordPods(ctx context.Context, cs *kubernetes.Clientset) (func() []runtime.Object, error) {
	wi, err := cs.CoreV1().Pods(observeNS).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("the observer's watch of Pods: %v", err)
	}
	done := make(chan []runtime.Object)
	go func() {
		var seen []runtime.Object
		for ev := range wi.ResultChan() {
			if p, ok := ev.Object.(*corev1.Pod); ok {
				p = p.DeepCopy()
				p.APIVersion, p.Kind = "v1", "Pod"
				seen = append(seen, p)
			}
		}
		done <- seen
	}()
	return func() []runtime.Object { wi.Stop(); return <-done }, nil
}

// writeList writes items as kubectl's -o json prints a List.
func writeList(path string, items []runtime.Object) error {
	if items == nil {
		items = []runtime.Object{}
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items}
	data, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// listAsKubectl returns the items of what kubectl get
// pods,events,replicasets,jobs -n observe-e2e -o json prints, each with
// its kind.
func listAsKubectl(ctx context.Context, cs *kubernetes.Clientset) ([]runtime.Object, error) {
	var items []runtime.Object
	pods, err := cs.CoreV1().Pods(observeNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		p.APIVersion, p.Kind = "v1", "Pod"
		items = append(items, p)
	}
	evs, err := cs.CoreV1().Events(observeNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range evs.Items {
		e := &evs.Items[i]
		e.APIVersion, e.Kind = "v1", "Event"
		items = append(items, e)
	}
	rss, err := cs.AppsV1().ReplicaSets(observeNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range rss.Items {
		r := &rss.Items[i]
		r.APIVersion, r.Kind = "apps/v1", "ReplicaSet"
		items = append(items, r)
	}
	jobs, err := cs.BatchV1().Jobs(observeNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range jobs.Items {
		j := &jobs.Items[i]
		j.APIVersion, j.Kind = "batch/v1", "Job"
		items = append(items, j)
	}
	return items, nil
}

// checkObserved runs podlint check --observed on the workloads and on a
// profile made from the lists alone, and checks what they must say.
func checkObserved(podlint, dir, manifest, profile string) error {
	var problems []string
	fail := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	prof, err := readProfile(profile)
	if err != nil {
		return err
	}
	slow := prof.container("observe-e2e/Deployment/slow-start", "app")
	switch {
	case slow == nil:
		fail("the watched profile has no slow-start/app")
	case slow.Censored == nil || slow.Censored.Kills < 2:
		fail("slow-start: %+v, want at least 2 liveness kills before Ready (one per Pod)", slow.Censored)
	case slow.Startup == nil || slow.Startup.Count < 2 || slow.Startup.max() < 0 || slow.Startup.max() > 20*time.Second:
		fail("slow-start: start-ups %+v, want at least 2 of the 3 s runs that got through", slow.Startup)
	}
	stub := prof.container("observe-e2e/Deployment/stubborn", "app")
	if stub == nil || stub.Shutdowns == nil || stub.Shutdowns.SIGKILL == nil || stub.Shutdowns.SIGKILL.Count == 0 {
		fail("stubborn: %+v, want a shutdown that ended in SIGKILL", stub)
	}

	out, code, err := runPodlint(podlint, "check", "--no-config", "--observed", profile, "-f", "json", manifest)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "check.json"), out, 0o644); err != nil {
		return err
	}
	if code != 1 {
		fail("podlint check --observed: exit %d, want 1", code)
	}
	var res struct {
		Findings []struct {
			Rule    string `json:"id"`
			Message string `json:"message"`
			Detail  string `json:"detail"`
			Object  struct {
				Name string `json:"name"`
			} `json:"object"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("podlint check -f json: %v", err)
	}
	var kills, sigkill bool
	for _, f := range res.Findings {
		text := f.Message + " " + f.Detail
		fmt.Fprintf(os.Stderr, "e2e-cluster: %s %s: %s\n", f.Rule, f.Object.Name, f.Message)
		switch {
		case f.Rule == "PL115" && f.Object.Name == "slow-start":
			kills = strings.Contains(text, "before it was ever Ready") && strings.Contains(text, "kills in the cluster") &&
				strings.Contains(text, "podlint observe saw the kubelet kill") && strings.Contains(text, "The starts that got through took up to")
		case f.Rule == "PL208" && f.Object.Name == "stubborn":
			sigkill = strings.Contains(text, "ended in SIGKILL") || strings.Contains(text, "exit code 137")
		}
	}
	if !kills {
		fail("no finding names slow-start's observed liveness kills before Ready and its observed start-ups")
	}
	if !sigkill {
		fail("no finding names stubborn's observed SIGKILL")
	}

	// The same lists as a snapshot, through --from: what CI without
	// cluster access does with kubectl's output.
	out, code, err = runPodlint(podlint, "observe", "--from", filepath.Join(dir, "lists.json"), "--fresh", "-o", filepath.Join(dir, "snapshot.yaml"))
	if err != nil || code != 0 {
		return fmt.Errorf("podlint observe --from: exit %d %v\n%s", code, err, out)
	}
	snap, err := readProfile(filepath.Join(dir, "snapshot.yaml"))
	if err != nil {
		return err
	}
	if w := snap.workload("observe-e2e/Deployment/api"); w == nil || !strings.Contains(w.Inferred, "was not listed") {
		fail("snapshot: the api Pod whose ReplicaSet is gone: %+v", w)
	}
	if c := snap.container("observe-e2e/Deployment/cache", "app"); c == nil || c.restarts("OOMKilled") == 0 {
		fail("snapshot: cache/app has no OOMKilled restart: %+v", c)
	}
	if w := snap.workload("observe-e2e/Job/migrate"); w == nil || w.FailedPods != 2 {
		fail("snapshot: Job migrate: %+v, want 2 failed Pods", w)
	}
	if len(problems) > 0 {
		return fmt.Errorf("podlint observe end to end:\n  %s", strings.Join(problems, "\n  "))
	}
	fmt.Fprintln(os.Stderr, "e2e-cluster: podlint observe end to end: all checks passed")
	return nil
}

func runPodlint(podlint string, args ...string) ([]byte, int, error) {
	cmd := exec.Command(podlint, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out, exit.ExitCode(), nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s: %v %s", podlint, strings.Join(args, " "), err, stderr.String())
	}
	return out, 0, nil
}

// cleanUp lets the held Pod go and deletes the namespace, so that the
// kept cluster can run the test again.
func cleanUp(cs *kubernetes.Clientset) error {
	ctx := context.Background()
	pods, err := cs.CoreV1().Pods(observeNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		if len(p.Finalizers) == 0 {
			continue
		}
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		if _, err := cs.CoreV1().Pods(observeNS).Patch(ctx, p.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, observeNS, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if _, err := cs.CoreV1().Namespaces().Get(ctx, observeNS, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return nil
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("namespace %s not gone 2 minutes after its deletion", observeNS)
}

// profile is the part of podlint observe's profile (docs/observe.md,
// "Schema") the test reads.
type profile struct {
	Workloads []profileWorkload `json:"workloads"`
}

type profileWorkload struct {
	Workload   string             `json:"workload"`
	Inferred   string             `json:"inferred"`
	FailedPods int                `json:"failedPods"`
	Containers []profileContainer `json:"containers"`
}

// series is a SERIES: durations as Go writes them ("52.1s"), samples as
// [id, time, duration].
type series struct {
	Count   int    `json:"count"`
	Max     string `json:"max"`
	Samples []any  `json:"samples"`
}

func (s *series) max() time.Duration {
	d, err := time.ParseDuration(s.Max)
	if err != nil {
		return -1
	}
	return d
}

type profileContainer struct {
	Name     string  `json:"name"`
	Startup  *series `json:"startup"`
	Censored *struct {
		Kills int `json:"kills"`
	} `json:"censored"`
	Restarts []struct {
		Cause string `json:"cause"`
		Count int    `json:"count"`
	} `json:"restarts"`
	Shutdowns *struct {
		Took    series  `json:"took"`
		SIGKILL *series `json:"sigkill"`
	} `json:"shutdowns"`
}

func (c *profileContainer) restarts(cause string) int {
	for _, r := range c.Restarts {
		if r.Cause == cause {
			return r.Count
		}
	}
	return 0
}

func readProfile(path string) (*profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p profile
	if err := yaml.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &p, nil
}

func (p *profile) workload(key string) *profileWorkload {
	for i := range p.Workloads {
		if p.Workloads[i].Workload == key {
			return &p.Workloads[i]
		}
	}
	return nil
}

func (p *profile) container(key, name string) *profileContainer {
	w := p.workload(key)
	if w == nil {
		return nil
	}
	for i := range w.Containers {
		if w.Containers[i].Name == name {
			return &w.Containers[i]
		}
	}
	return nil
}
