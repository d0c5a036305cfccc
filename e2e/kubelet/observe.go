package main

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Four sources of observations, which agree within about 25 ms:
//   - lines the containers write themselves into /obs/log: the system uptime
//     (/proc/uptime, 10 ms resolution; busybox date has no sub-second
//     format), the container and an event;
//   - the kubelet's log (-v=4): every probe result and kill, and the ID of
//     every container it starts ("Added Container"), which names the exits;
//   - ctr events: each container's exit with its status (137 is SIGKILL);
//   - the kubelet's /pods endpoint, polled every 100 ms: readiness, phase,
//     restart counts and container IDs too.

// uptimeOffset is wall time minus uptime, read at a tick of /proc/uptime so
// that it is exact to well under its 10 ms resolution.
func uptimeOffset() (time.Duration, error) {
	first, err := readUptime()
	if err != nil {
		return 0, err
	}
	for {
		u, err := readUptime()
		if err != nil {
			return 0, err
		}
		if u != first {
			return time.Duration(time.Now().UnixNano()) - u, nil
		}
		time.Sleep(200 * time.Microsecond)
	}
}

func readUptime() (time.Duration, error) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, err
	}
	return parseUptime(strings.Fields(string(b))[0])
}

func parseUptime(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(f * 1e9), nil
}

// obsLine is one line a container wrote: "UPTIME CONTAINER EVENT".
type obsLine struct {
	t         time.Time
	container string
	event     string
}

func readObs(path string, offset time.Duration) ([]obsLine, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []obsLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 {
			continue
		}
		u, err := parseUptime(fs[0])
		if err != nil {
			continue
		}
		out = append(out, obsLine{t: time.Unix(0, int64(offset+u)), container: fs[1], event: strings.Join(fs[2:], " ")})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].t.Before(out[j].t) })
	return out, sc.Err()
}

// kubeletLine is a probe result, a kill, a removal or a container's start
// from the kubelet's log.
type kubeletLine struct {
	t         time.Time
	pod       string // namespace/name
	container string
	kind      string // probe-failed | probe-succeeded | probe-run | kill | remove | create | added
	probe     string // Liveness | Readiness | Startup
	id        string // the container's runtime ID (added), without "containerd://"
	event     string // probe-run: the event the scenario's probe command logs (lprobe, …)
}

var (
	klogHeader = regexp.MustCompile(`^[IWE](\d{4} \d\d:\d\d:\d\d\.\d{6})\s+\d+ \S+\] "([^"]*)"(.*)$`)
	klogField  = regexp.MustCompile(`(\w+)="([^"]*)"`)
	klogPods   = regexp.MustCompile(`pods=\["([^"]*)"\]`)
	// The scenarios' exec probes run "C=NAME; . /obs/lib.sh; log EVENT; …".
	klogExecEvent = regexp.MustCompile(`execCommand=\[.*?/obs/lib\.sh; log (\w+)`)
)

// parseKubeletLog reads klog text lines; the header has no year, so it is
// taken from now (a run never spans New Year's Eve in practice; the table
// would show it).
func parseKubeletLog(path string, now time.Time) ([]kubeletLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []kubeletLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		m := klogHeader.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		var kind string
		switch m[2] {
		case "Probe failed":
			kind = "probe-failed"
		case "Probe succeeded", "Probe succeeded with a warning":
			kind = "probe-succeeded"
		case "Killing container with a grace period", "Killing container with a grace period override":
			kind = "kill"
		case "Exec-Probe runProbe":
			// The kubelet runs an exec probe (prober.go, V(4)): the
			// probe's time as the kubelet has it; the command's own line
			// comes after the runtime's exec, 0.2 s later on a loaded
			// machine.
			kind = "probe-run"
		case "Creating container in pod":
			// The kubelet starts a container (kuberuntime_manager.go,
			// SyncPod, V(4)), before the runtime creates and starts it.
			kind = "create"
		case "Added Container":
			// The CPU manager's PreStartContainer hook (cpu_manager.go,
			// AddContainer), for every container the kubelet starts, just
			// before the runtime starts it: the only source that names a
			// container that exits before /pods ever shows it running (a
			// loaded kubelet can take seconds to write the status).
			kind = "added"
		case "SyncLoop REMOVE":
			// The kubelet saw the static Pod's file go: the delete request
			// as the kubelet has it, which can lag the file's removal.
			kind = "remove"
		default:
			continue
		}
		t, err := time.ParseInLocation("2006 0102 15:04:05.000000", fmt.Sprintf("%d %s", now.Year(), m[1]), time.Local)
		if err != nil {
			continue
		}
		l := kubeletLine{t: t, kind: kind}
		if pm := klogPods.FindStringSubmatch(m[3]); pm != nil {
			l.pod = pm[1]
		}
		if em := klogExecEvent.FindStringSubmatch(m[3]); em != nil {
			l.event = em[1]
		}
		for _, fm := range klogField.FindAllStringSubmatch(m[3], -1) {
			switch fm[1] {
			case "pod":
				l.pod = fm[2]
			case "containerName", "container":
				l.container = fm[2]
			case "probeType":
				l.probe = fm[2]
			case "containerID":
				l.id = strings.TrimPrefix(fm[2], "containerd://")
			}
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// exitEvent is a container's (not an exec's) exit or start from ctr
// events: the runtime's own times, as its status reports them.
type exitEvent struct {
	t      time.Time
	id     string
	status int
}

var eventLine = regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?) \+0000 UTC\s+\S+\s+/tasks/(exit|start)\s+(\{.*\})\s*$`)

// parseEvents reads the containers' exits and starts (/tasks/exit,
// /tasks/start; an exec's start is /tasks/exec-started).
func parseEvents(path string) (exits, starts []exitEvent, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := eventLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		var ev struct {
			ContainerID string `json:"container_id"`
			ID          string `json:"id"`
			ExitStatus  int    `json:"exit_status"`
		}
		if json.Unmarshal([]byte(m[3]), &ev) != nil || ev.ContainerID == "" {
			continue
		}
		t, err := time.Parse("2006-01-02 15:04:05.999999999", m[1])
		if err != nil {
			continue
		}
		e := exitEvent{t: t, id: ev.ContainerID, status: ev.ExitStatus}
		switch {
		case m[2] == "start":
			starts = append(starts, e)
		case ev.ID == ev.ContainerID: // else an exec (a probe or a hook) ended, not the container
			exits = append(exits, e)
		}
	}
	return exits, starts, sc.Err()
}

// change is the first time the poller saw a key take a value:
// "phase"=Failed, "ready/app"=true, "restarts/app"=2, "gone"=true.
type change struct {
	t          time.Time
	key, value string
}

// poller polls /pods and records, per pod, every change of the watched
// keys and every container ID with its container's name.
type poller struct {
	url    string
	client *http.Client

	mu      sync.Mutex
	last    map[string]map[string]string // pod -> key -> value
	changes map[string][]change
	ids     map[string]string // container ID -> pod/container
	seen    map[string]bool   // pods seen at least once
	errs    int
}

func newPoller(base string) *poller {
	return &poller{url: strings.TrimRight(base, "/") + "/pods",
		client: &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
			// The kubelet's self-signed serving certificate, on 127.0.0.1.
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}},
		last: map[string]map[string]string{}, changes: map[string][]change{}, ids: map[string]string{}, seen: map[string]bool{}}
}

type podList struct {
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Status struct {
			Phase                 string            `json:"phase"`
			InitContainerStatuses []containerStatus `json:"initContainerStatuses"`
			ContainerStatuses     []containerStatus `json:"containerStatuses"`
		} `json:"status"`
	} `json:"items"`
}

type containerStatus struct {
	Name         string `json:"name"`
	Ready        bool   `json:"ready"`
	RestartCount int    `json:"restartCount"`
	ContainerID  string `json:"containerID"`
	LastState    struct {
		Terminated *struct {
			ContainerID string `json:"containerID"`
		} `json:"terminated"`
	} `json:"lastState"`
	State struct {
		Terminated *struct {
			ContainerID string `json:"containerID"`
		} `json:"terminated"`
	} `json:"state"`
}

func (p *poller) poll() {
	resp, err := p.client.Get(p.url)
	now := time.Now()
	if err != nil {
		p.mu.Lock()
		p.errs++
		p.mu.Unlock()
		return
	}
	defer resp.Body.Close()
	var l podList
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		p.mu.Lock()
		p.errs++
		p.mu.Unlock()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	present := map[string]bool{}
	for _, it := range l.Items {
		pod := it.Metadata.Name
		present[pod] = true
		p.seen[pod] = true
		vals := map[string]string{"phase": it.Status.Phase}
		for _, cs := range append(append([]containerStatus(nil), it.Status.InitContainerStatuses...), it.Status.ContainerStatuses...) {
			vals["ready/"+cs.Name] = strconv.FormatBool(cs.Ready)
			vals["restarts/"+cs.Name] = strconv.Itoa(cs.RestartCount)
			for _, id := range []string{cs.ContainerID, idOf(cs.LastState.Terminated), idOf(cs.State.Terminated)} {
				if id = strings.TrimPrefix(id, "containerd://"); id != "" {
					p.ids[id] = pod + "/" + cs.Name
				}
			}
		}
		p.record(pod, now, vals)
	}
	for pod := range p.seen {
		if !present[pod] {
			p.record(pod, now, map[string]string{"gone": "true"})
		}
	}
}

func idOf(t *struct {
	ContainerID string `json:"containerID"`
}) string {
	if t == nil {
		return ""
	}
	return t.ContainerID
}

func (p *poller) record(pod string, now time.Time, vals map[string]string) {
	last := p.last[pod]
	if last == nil {
		last = map[string]string{}
		p.last[pod] = last
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if last[k] != vals[k] {
			last[k] = vals[k]
			p.changes[pod] = append(p.changes[pod], change{t: now, key: k, value: vals[k]})
		}
	}
}

// record is what one Pod's run observed and podlint predicted, written to
// its observation folder as record.json: the run can be checked again
// later, and the unit tests evaluate recorded runs.
type record struct {
	Scenario   string               `json:"scenario"`
	Run        int                  `json:"run"`
	Name       string               `json:"name"`
	Created    time.Time            `json:"created"`
	Deleted    time.Time            `json:"deleted"`
	Prediction map[string]any       `json:"prediction"`
	Obs        []recObs             `json:"obs"`
	Kubelet    []recKubelet         `json:"kubelet"`
	Exits      map[string][]recExit `json:"exits"`
	Starts     map[string][]recExit `json:"starts,omitempty"`
	Changes    []recChange          `json:"changes"`
}

type recObs struct {
	T         time.Time `json:"t"`
	Container string    `json:"container"`
	Event     string    `json:"event"`
}

type recKubelet struct {
	T         time.Time `json:"t"`
	Pod       string    `json:"pod"`
	Container string    `json:"container,omitempty"`
	Kind      string    `json:"kind"`
	Probe     string    `json:"probe,omitempty"`
	ID        string    `json:"id,omitempty"`
	Event     string    `json:"event,omitempty"`
}

type recExit struct {
	T      time.Time `json:"t"`
	ID     string    `json:"id"`
	Status int       `json:"status"`
}

type recChange struct {
	T     time.Time `json:"t"`
	Key   string    `json:"key"`
	Value string    `json:"value"`
}

func writeRecord(path string, p *pod) error {
	r := record{Scenario: p.sc.name, Run: p.run, Name: p.name, Created: p.created, Deleted: p.deleted,
		Prediction: p.pred.obj, Exits: recEvents(p.exits), Starts: recEvents(p.starts)}
	for _, l := range p.obs {
		r.Obs = append(r.Obs, recObs{l.t, l.container, l.event})
	}
	for _, l := range p.kubelet {
		r.Kubelet = append(r.Kubelet, recKubelet{l.t, l.pod, l.container, l.kind, l.probe, l.id, l.event})
	}
	for _, ch := range p.changes {
		r.Changes = append(r.Changes, recChange{ch.t, ch.key, ch.value})
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// readRecord loads a record.json back into a Pod of the named scenario.
func readRecord(path string, scs []*scenario) (*pod, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	p := &pod{run: r.Run, name: r.Name, created: r.Created, deleted: r.Deleted,
		pred: &prediction{obj: r.Prediction}, exits: events(r.Exits), starts: events(r.Starts)}
	for _, s := range scs {
		if s.name == r.Scenario {
			p.sc = s
		}
	}
	if p.sc == nil {
		return nil, fmt.Errorf("%s: no scenario %q", path, r.Scenario)
	}
	for _, l := range r.Obs {
		p.obs = append(p.obs, obsLine{l.T, l.Container, l.Event})
	}
	for _, l := range r.Kubelet {
		p.kubelet = append(p.kubelet, kubeletLine{l.T, l.Pod, l.Container, l.Kind, l.Probe, l.ID, l.Event})
	}
	for _, ch := range r.Changes {
		p.changes = append(p.changes, change{ch.T, ch.Key, ch.Value})
	}
	return p, nil
}

func recEvents(m map[string][]exitEvent) map[string][]recExit {
	out := map[string][]recExit{}
	for c, es := range m {
		for _, e := range es {
			out[c] = append(out[c], recExit{e.t, e.id, e.status})
		}
	}
	return out
}

func events(m map[string][]recExit) map[string][]exitEvent {
	out := map[string][]exitEvent{}
	for c, es := range m {
		for _, e := range es {
			out[c] = append(out[c], exitEvent{e.T, e.ID, e.Status})
		}
	}
	return out
}
