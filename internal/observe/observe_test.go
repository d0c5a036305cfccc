package observe

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// snapshot builds the profile of testdata/snapshot.json, a list in the
// shapes the API server returns (testdata/snapshot.py writes it).
func snapshot(t *testing.T) *Profile {
	t.Helper()
	data, err := os.ReadFile("testdata/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	b := NewBuilder()
	if _, err := ReadList(bytes.NewReader(data), b); err != nil {
		t.Fatal(err)
	}
	return b.Profile("", ModeSnapshot, time.Time{})
}

func find(t *testing.T, p *Profile, key, container string) (*Workload, *Container) {
	t.Helper()
	for _, w := range p.Workloads {
		if w.Key != key {
			continue
		}
		for _, c := range w.Containers {
			if c.Name == container {
				return w, c
			}
		}
		t.Fatalf("%s has no container %q", key, container)
	}
	var keys []string
	for _, w := range p.Workloads {
		keys = append(keys, w.Key)
	}
	t.Fatalf("no workload %s; have %v", key, keys)
	return nil, nil
}

func restart(c *Container, cause string) *Restart {
	for _, r := range c.Restarts {
		if r.Cause == cause {
			return r
		}
	}
	return nil
}

func samples(s *Series) string {
	if s == nil {
		return "none"
	}
	var out []string
	for _, x := range s.Samples {
		out = append(out, Seconds(x.Seconds).String())
	}
	return strings.Join(out, " ")
}

// A Deployment whose starts cross the liveness window: two Pods got
// through (52 s and 42 s), two runs were killed at 43 s before Ready, six
// kills in all by the kubelet's events.
func TestDeploymentCrossingTheLivenessWindow(t *testing.T) {
	p := snapshot(t)
	w, c := find(t, p, "shop/Deployment/web", "app")
	if w.Pods != 4 || w.PodStartup {
		t.Errorf("pods = %d, podStartup = %v; want 4, false", w.Pods, w.PodStartup)
	}
	if got := samples(c.Startup); got != "52s 42s" {
		t.Errorf("start-ups = %s; want 52s 42s (Ready minus the latest start)", got)
	}
	if c.Startup.Max != 52 || c.Startup.Count != 2 {
		t.Errorf("start-up summary = %+v", c.Startup)
	}
	if c.Censored == nil || c.Censored.Kills != 6 || samples(c.Censored.NotReadyAfter) != "43s 43s" {
		t.Fatalf("censored = %+v; want 6 kills, not Ready after 43s twice", c.Censored)
	}
	if r := restart(c, "liveness-probe"); r == nil || r.Count != 6 || samples(r.Runs) != "43s 43s" {
		t.Errorf("liveness restarts = %+v", r)
	}
	if r := restart(c, "exit-code-137"); r != nil {
		t.Errorf("a probe kill is counted as exit code 137 too: %+v", r)
	}
}

func TestProbeKilledByStartupProbeFromEventsV1(t *testing.T) {
	_, c := find(t, snapshot(t), "data/StatefulSet/db", "postgres")
	if r := restart(c, "startup-probe"); r == nil || r.Count != 3 {
		t.Fatalf("startup-probe restarts = %+v; want 3 from the events.k8s.io event", r)
	}
	if c.Censored == nil || c.Censored.Kills != 3 || samples(c.Censored.NotReadyAfter) != "1m30s" {
		t.Errorf("censored = %+v", c.Censored)
	}
	if c.Startup != nil {
		t.Errorf("a Pod never Ready has no start-up, got %s", samples(c.Startup))
	}
}

func TestOOMKilled(t *testing.T) {
	_, c := find(t, snapshot(t), "shop/Deployment/cache", "app")
	r := restart(c, "OOMKilled")
	if r == nil || r.Count != 1 || samples(r.Runs) != "9m50s" {
		t.Fatalf("OOMKilled = %+v", r)
	}
	if c.Censored != nil || c.Shutdowns != nil {
		t.Errorf("an OOM kill is neither a probe kill nor a shutdown: %+v %+v", c.Censored, c.Shutdowns)
	}
}

func TestJobFailedPodsUnderTheirCronJob(t *testing.T) {
	w, c := find(t, snapshot(t), "batch/CronJob/nightly", "run")
	if w.Pods != 2 || w.FailedPods != 2 {
		t.Errorf("pods %d failed %d; want 2 2", w.Pods, w.FailedPods)
	}
	if r := restart(c, "exit-code-1"); r == nil || r.Count != 2 || samples(r.Runs) != "12s 10s" {
		t.Errorf("exit-code-1 = %+v", r)
	}
}

func TestOwnerGone(t *testing.T) {
	w, c := find(t, snapshot(t), "shop/Deployment/api", "api")
	if !strings.Contains(w.Inferred, "api-7f9c was not listed") {
		t.Errorf("inferred = %q", w.Inferred)
	}
	if !w.PodStartup || samples(c.Startup) != "8s" {
		t.Errorf("two containers: the start-up is the Pod's, 8s; got podStartup %v, %s", w.PodStartup, samples(c.Startup))
	}
	// A Job whose owner is gone keeps the Job's name and says so.
	b := NewBuilder()
	b.AddPod(podOwnedBy("Job", "once-1"))
	p := b.Profile("", ModeSnapshot, time.Time{})
	if len(p.Workloads) != 1 || p.Workloads[0].Key != "ns/Job/once-1" || !strings.Contains(p.Workloads[0].Inferred, "its own owner is unknown") {
		t.Errorf("got %+v", p.Workloads[0])
	}
}

func TestShutdownReachingSIGKILL(t *testing.T) {
	_, c := find(t, snapshot(t), "shop/Deployment/web", "app")
	if c.Shutdowns == nil || samples(c.Shutdowns.Took) != "31s" || samples(c.Shutdowns.SIGKILL) != "31s" {
		t.Fatalf("shutdowns = %+v; want one of 31s (deletion at 10:20:00, grace 30 s) ending in SIGKILL", c.Shutdowns)
	}
}

func TestBarePodAndInitContainer(t *testing.T) {
	_, c := find(t, snapshot(t), "tools/Pod/debug", "migrate")
	if !c.Init || samples(c.Startup) != "8s" {
		t.Errorf("init run = %v %s", c.Init, samples(c.Startup))
	}
}

func TestProfileHoldsNothingSecret(t *testing.T) {
	p := snapshot(t)
	out, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"hunter2", "aHVudGVy", "10.244.", "192.168.", "node-secret", "0b5c1d3e", "registry.example", "DB_PASSWORD", "Secret", "ConfigMap/"} {
		if bytes.Contains(bytes.TrimLeft(out, "#"), []byte(bad)) && !strings.Contains(headerOf(out), bad) {
			t.Errorf("the profile holds %q", bad)
		}
	}
	if len(out) > 8<<10 {
		t.Errorf("profile of 6 workloads is %d bytes; want it small", len(out))
	}
}

func headerOf(out []byte) string {
	var h []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "#") {
			h = append(h, l)
		}
	}
	return strings.Join(h, "\n")
}

func TestEncodeIsStableAndDecodes(t *testing.T) {
	a, err := snapshot(t).Encode()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := snapshot(t).Encode()
	if !bytes.Equal(a, b) {
		t.Fatal("two encodings of the same list differ")
	}
	p, err := Decode(a, "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := p.Encode()
	if !bytes.Equal(a, c) {
		t.Errorf("decode then encode changes the profile:\n%s\n---\n%s", a, c)
	}
}

func TestDecodeRefusesWhatIsNotAProfile(t *testing.T) {
	for in, want := range map[string]string{
		"version: 2\nmode: snapshot\n":               "profile version 2",
		"version: 1\nmode: snapshot\nbogus: 1\n":     "field bogus not found",
		"version: 1\nworkloads: [{workload: a/b}]\n": "namespace/Kind/name",
		"[1, 2]": "not a podlint observe profile",
		"version: 1\nworkloads: [{workload: a/B/c, containers: [{name: x, startup: {samples: [[i, yesterday, 1s]]}}]}]\n": "RFC 3339",
	} {
		_, err := Decode([]byte(in), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "p.yaml: ") {
			t.Errorf("Decode(%q) = %v; want an error naming p.yaml with %q", in, err, want)
		}
	}
	if _, err := Decode(make([]byte, MaxProfileSize+1), "big.yaml"); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("an oversized profile: %v", err)
	}
}

func podOwnedBy(kind, name string) *corev1.Pod {
	p := &corev1.Pod{}
	p.Namespace, p.Name = "ns", name+"-x"
	yes := true
	p.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: name, Controller: &yes}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: 1, LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 2}}}}
	return p
}

func TestReadListErrors(t *testing.T) {
	for in, want := range map[string]string{
		``:   "ends early",
		`[]`: "not a JSON object",
		`{"kind":"List","items":[{"kind":"Pod","apiVersion":"v1","metadata":{"name":1}}]}`: "item 1: Pod: json: cannot unmarshal",
		`{"kind":"List","items":[{`:                     "item 1: malformed JSON",
		`{"kind":"List","items":{}}`:                    `"items" is not a list`,
		`{"a":1}`:                                       `no "kind"`,
		`{"kind":"List","items":[]} {}`:                 "more than one JSON value",
		`{"kind":"List","items":[{"apiVersion":"v1"}]}`: `item 1: no "kind"`,
	} {
		_, err := ReadList(strings.NewReader(in), NewBuilder())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadList(%q) = %v; want %q", in, err, want)
		}
	}
	// One object rather than a List is read as it is.
	n, err := ReadList(strings.NewReader(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n"}}`), NewBuilder())
	if n != 1 || err != nil {
		t.Errorf("one Pod: %d, %v", n, err)
	}
}

func TestScrubKeepsTheProfile(t *testing.T) {
	data, err := os.ReadFile("testdata/snapshot.json")
	if err != nil {
		t.Fatal(err)
	}
	clean, err := Scrub(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"hunter2", "10.244.", "192.168.", "node-secret", "0b5c1d3e", "\"Secret\"", "\"ConfigMap\""} {
		if bytes.Contains(clean, []byte(bad)) {
			t.Errorf("the scrubbed list holds %s", bad)
		}
	}
	b := NewBuilder()
	if _, err := ReadList(bytes.NewReader(clean), b); err != nil {
		t.Fatal(err)
	}
	got, _ := b.Profile("", ModeSnapshot, time.Time{}).Encode()
	want, _ := snapshot(t).Encode()
	if !bytes.Equal(got, want) {
		t.Errorf("scrubbing changed the profile:\n%s\n---\n%s", got, want)
	}
}

func TestQuantileIsNearestRank(t *testing.T) {
	v := make([]float64, 100)
	for i := range v {
		v[i] = float64(i + 1)
	}
	if q := quantile(v, 0.95); q != 95 {
		t.Errorf("p95 of 1..100 = %v", q)
	}
	if q := quantile([]float64{7}, 0.95); q != 7 {
		t.Errorf("p95 of one = %v", q)
	}
	if fmt.Sprint(Seconds(52.14)) != "52.1s" {
		t.Errorf("Seconds = %v", Seconds(52.14))
	}
}

// A probe kill sends SIGTERM first: an app that handles it exits 143 (or
// 0), not 137, and is still probe-killed. A run that ended long after the
// kill events is not one of them.
func TestProbeKillWithGracefulExit(t *testing.T) {
	list := func(exit int, finished string) string {
		return `{"kind":"List","items":[
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n"},"status":{
 "conditions":[{"type":"Ready","status":"False","lastTransitionTime":"2026-12-01T10:00:00Z"}],
 "containerStatuses":[{"name":"app","restartCount":1,"state":{"waiting":{"reason":"CrashLoopBackOff"}},
  "lastState":{"terminated":{"exitCode":` + fmt.Sprint(exit) + `,"reason":"Error","startedAt":"2026-12-01T10:00:01Z","finishedAt":"` + finished + `"}}}]}},
{"apiVersion":"v1","kind":"Event","metadata":{"name":"p.1","namespace":"n"},"involvedObject":{"kind":"Pod","namespace":"n","name":"p"},
 "reason":"Killing","message":"Container app failed liveness probe, will be restarted","count":1,
 "firstTimestamp":"2026-12-01T10:00:31Z","lastTimestamp":"2026-12-01T10:00:31Z"}]}`
	}
	for _, tc := range []struct {
		exit          int
		finished      string
		cause         string
		censoredKills int
	}{
		{143, "2026-12-01T10:00:32Z", "liveness-probe", 1},
		{0, "2026-12-01T10:00:33Z", "liveness-probe", 1},
		{137, "2026-12-01T10:01:01Z", "liveness-probe", 1},
		{1, "2026-12-01T11:00:00Z", "exit-code-1", 0},
	} {
		b := NewBuilder()
		if _, err := ReadList(strings.NewReader(list(tc.exit, tc.finished)), b); err != nil {
			t.Fatal(err)
		}
		_, c := find(t, b.Profile("", ModeSnapshot, time.Time{}), "n/Pod/p", "app")
		r := restart(c, tc.cause)
		kills := 0
		if c.Censored != nil {
			kills = c.Censored.Kills
		}
		if r == nil || kills != tc.censoredKills {
			t.Errorf("exit %d at %s: restarts %+v, censored kills %d; want cause %s, %d", tc.exit, tc.finished, c.Restarts, kills, tc.cause, tc.censoredKills)
		}
	}
}

// Only containers that finished after the deletion shut down: an init
// container that finished at start is an init run, not a 0s shutdown.
func TestShutdownIsAfterDeletion(t *testing.T) {
	const pod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"n",
 "deletionTimestamp":"2026-12-01T11:00:30Z","deletionGracePeriodSeconds":30},"status":{
 "initContainerStatuses":[{"name":"migrate","state":{"terminated":{"exitCode":0,"startedAt":"2026-12-01T10:00:00Z","finishedAt":"2026-12-01T10:00:05Z"}}}],
 "containerStatuses":[{"name":"app","state":{"terminated":{"exitCode":0,"startedAt":"2026-12-01T10:00:06Z","finishedAt":"2026-12-01T11:00:04Z"}}}]}}`
	b := NewBuilder()
	if _, err := ReadList(strings.NewReader(pod), b); err != nil {
		t.Fatal(err)
	}
	p := b.Profile("", ModeSnapshot, time.Time{})
	_, app := find(t, p, "n/Pod/p", "app")
	_, migrate := find(t, p, "n/Pod/p", "migrate")
	if app.Shutdowns == nil || samples(app.Shutdowns.Took) != "4s" || app.Shutdowns.SIGKILL != nil {
		t.Errorf("app shutdowns = %+v; want one of 4s without SIGKILL", app.Shutdowns)
	}
	if migrate.Shutdowns != nil || samples(migrate.Startup) != "5s" {
		t.Errorf("migrate: shutdowns %+v, run %s; want no shutdown and a 5s run", migrate.Shutdowns, samples(migrate.Startup))
	}
}

// A list whose objects carry no time (hand-written, not what kubectl
// prints) gives a profile without a window: check's notes say "of unknown
// date", not thousands of days stale. The summary counts in words.
func TestListWithoutTimesHasNoWindow(t *testing.T) {
	b := NewBuilder()
	b.AddPod(podOwnedBy("Job", "once-1"))
	p := b.Profile("", ModeSnapshot, time.Time{})
	if len(p.Windows) != 0 {
		t.Fatalf("windows %+v, want none", p.Windows)
	}
	data, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	o, err := Expectations(data, "p.yaml", time.Date(2026, 12, 8, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if o.Source != "snapshot of unknown date" {
		t.Errorf("source %q", o.Source)
	}
	if got, want := summary(p), "1 workload, 1 container, 0 start-ups, 0 probe kills before Ready, 0 recordings (snapshot)"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
}
