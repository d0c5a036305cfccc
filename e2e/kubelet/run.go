package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

type config struct {
	state, podlint, kubelet, kubeletLog, events, kubeVersion, doc string
	runs                                                          int
	only                                                          *regexp.Regexp
	// healthy is when the kubelet first answered /healthz (zero: long ago).
	healthy time.Time
}

// namespace and node name give the static Pods their names:
// NAME-podlint-e2e in namespace podlint-e2e.
const (
	namespace = "podlint-e2e"
	nodeName  = "podlint-e2e"
)

// lib is sourced by every command the scenarios run: log EVENT appends
// "UPTIME CONTAINER EVENT" to the Pod's observation file.
const lib = `log() { read u _ </proc/uptime; echo "$u $C $*" >>/obs/log; }
`

// pod is one scenario instance on the kubelet.
type pod struct {
	sc       *scenario
	run      int
	name     string // static Pod name (with the node suffix)
	file     string // its manifest
	obsDir   string
	manifest []byte
	created  time.Time
	deleted  time.Time
	pred     *prediction

	obs     []obsLine
	kubelet []kubeletLine
	exits   map[string][]exitEvent // by container name
	starts  map[string][]exitEvent // by container name, the runtime's starts
	changes []change
}

func runAll(c config) error {
	if c.runs < 1 {
		c.runs = 1
	}
	offset, err := uptimeOffset()
	if err != nil {
		return err
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
	if wait := probeQuietWait(c.healthy, scs, time.Now()); wait > 0 {
		fmt.Fprintf(os.Stderr, "e2e-kubelet: waiting %s: probe workers created this soon after the kubelet's start sleep a random part of their period first\n", wait.Round(time.Millisecond))
		time.Sleep(wait)
	}
	// Every invocation names its Pods and observation folders apart, so
	// that a run on a stack kept with KEEP=1 reads none of an earlier run's
	// files or log lines.
	id := newRunID()
	var pods []*pod
	var took []time.Duration
	for r := 1; r <= c.runs; r++ {
		began := time.Now()
		ps, err := runOnce(c, scs, r, id, offset)
		if err != nil {
			return err
		}
		took = append(took, time.Since(began))
		pods = append(pods, ps...)
	}
	res := evaluate(pods)
	table := renderTable(c, res, took)
	if c.doc == "" {
		_, err = os.Stdout.WriteString(table)
	} else {
		err = writeDoc(c.doc, table)
	}
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range res {
		if r.verdict == "fail" || r.verdict == "error" {
			failed++
		}
	}
	fmt.Fprintf(os.Stderr, "e2e-kubelet: %d checks, %d outside the predicted interval or not observed; runs took %s\n", len(res), failed, durations(took))
	if failed > 0 {
		return fmt.Errorf("%d checks failed (see the table)", failed)
	}
	return nil
}

// runOnce starts every scenario's Pod at once, deletes each at its time,
// and collects what the sources saw.
func runOnce(c config, scs []*scenario, run int, id string, offset time.Duration) ([]*pod, error) {
	var pods []*pod
	for _, s := range scs {
		p := newPod(c.state, s, run, id)
		pred, err := predict(c.podlint, p.manifest)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.name, err)
		}
		p.pred = pred
		if err := os.MkdirAll(p.obsDir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(p.obsDir, "lib.sh"), []byte(lib), 0o644); err != nil {
			return nil, err
		}
		pods = append(pods, p)
	}
	pl := newPoller(c.kubelet)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			pl.poll()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	// One Pod at a time, each once the previous one's first container
	// has started: 23 sandboxes created at once kept containerd and the
	// kubelet busy for 8 s on a loaded 2-core machine (a sandbox every
	// 0.35 s, PLEG relists seconds late, exec probes taking 2 s), which
	// the first Pods' probes and restarts then measured. A node sees Pods
	// arrive one by one.
	var pwg sync.WaitGroup
	errs := make(chan error, len(pods))
	for _, p := range pods {
		// Written aside and renamed: the kubelet must never read half a
		// file, and it skips names that start with a dot.
		tmp := filepath.Join(filepath.Dir(p.file), "."+filepath.Base(p.file)+".tmp")
		if err := os.WriteFile(tmp, p.manifest, 0o644); err != nil {
			return nil, err
		}
		p.created = time.Now()
		if err := os.Rename(tmp, p.file); err != nil {
			return nil, err
		}
		// The delete counts from the Pod's first start, not from its
		// manifest: a slow sandbox must not eat the scenario's time.
		from := p.created
		if t, ok := waitStart(filepath.Join(p.obsDir, "log"), offset, startTimeout); ok {
			from = t
		} else {
			fmt.Fprintf(os.Stderr, "e2e-kubelet: %s: no container started within %s\n", p.name, startTimeout)
		}
		pwg.Add(1)
		go func(p *pod, from time.Time) {
			defer pwg.Done()
			time.Sleep(time.Until(from.Add(time.Duration(lifetime(p.sc, p.pred) * float64(time.Second)))))
			p.deleted = time.Now()
			if err := os.Remove(p.file); err != nil {
				errs <- err
				return
			}
			// /pods drops a static Pod as soon as its file is gone; its
			// containers stop after that, within the grace period and
			// the 2 s SIGKILL floor of every scenario here.
			time.Sleep(settleAfterDelete)
		}(p, from)
	}
	pwg.Wait()
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		return nil, err
	}
	klines, err := parseKubeletLog(c.kubeletLog, time.Now())
	if err != nil {
		return nil, err
	}
	exits, starts, err := parseEvents(c.events)
	if err != nil {
		return nil, err
	}
	for _, p := range pods {
		if p.obs, err = readObs(filepath.Join(p.obsDir, "log"), offset); err != nil {
			return nil, err
		}
		p.kubelet = linesOf(klines, p)
		p.exits = exitsOf(p, exits, pl.ids)
		p.starts = exitsOf(p, starts, pl.ids)
		p.changes = pl.changes[p.name]
		if err := writeRecord(filepath.Join(p.obsDir, "record.json"), p); err != nil {
			return nil, err
		}
	}
	if pl.errs > 0 {
		fmt.Fprintf(os.Stderr, "e2e-kubelet: %d polls of /pods failed\n", pl.errs)
	}
	return pods, nil
}

const settleAfterDelete = 16 * time.Second

// lifetime is how long after its first start the Pod of scenario sc is
// deleted: its deleteAfter, or longer when podlint lets a restart the
// scenario checks start later (its start's upper edge, plus the
// tolerance and 2 s to see it). liveness-exec-kill's fifth restart may
// start 157 s after the first start, and in two runs of three it had not
// within the scenario's 135 s.
func lifetime(sc *scenario, pred *prediction) float64 {
	life := sc.deleteAfter
	for _, ck := range sc.checks {
		list, ok := strings.CutSuffix(ck.field, ".delay")
		if !ok {
			continue
		}
		if iv, err := pred.iv(list + ".start"); err == nil && !math.IsInf(iv.hi, 1) && iv.hi+restartTol+2 > life {
			life = iv.hi + restartTol + 2
		}
	}
	return life
}

// startTimeout is how long a Pod may take to start its first container
// before the next Pod is created anyway.
const startTimeout = 30 * time.Second

// waitStart waits until the observation file at path has a "start" line
// and returns its time, or gives up after timeout.
func waitStart(path string, offset, timeout time.Duration) (time.Time, bool) {
	deadline := time.Now().Add(timeout)
	for {
		if t, ok := firstStart(path, offset); ok {
			return t, true
		}
		if time.Now().After(deadline) {
			return time.Time{}, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func firstStart(path string, offset time.Duration) (time.Time, bool) {
	ls, err := readObs(path, offset)
	if err != nil {
		return time.Time{}, false
	}
	for _, l := range ls {
		if l.event == "start" {
			return l.t, true
		}
	}
	return time.Time{}, false
}

// exitsOf picks Pod p's container exits (or starts), by container name. A container
// is named by the kubelet's "Added Container" line for its ID, else by
// what /pods showed (ids: ID -> pod/container): /pods alone missed the
// containers that exited before a loaded kubelet wrote a running status.
func exitsOf(p *pod, exits []exitEvent, ids map[string]string) map[string][]exitEvent {
	names := map[string]string{}
	for id, who := range ids {
		if name, ok := strings.CutPrefix(who, p.name+"/"); ok {
			names[id] = name
		}
	}
	for _, l := range p.kubelet {
		if l.kind == "added" && l.id != "" {
			names[l.id] = l.container
		}
	}
	out := map[string][]exitEvent{}
	for _, e := range exits {
		if name, ok := names[e.id]; ok {
			out[name] = append(out[name], e)
		}
	}
	return out
}

// newPod names one scenario's Pod of run `run` of invocation id: the
// static Pod NAME-rRUN-ID-<node>, its manifest, and its observation folder
// obs/ID/NAME-rRUN.
func newPod(state string, s *scenario, run int, id string) *pod {
	base := fmt.Sprintf("%s-r%d-%s", s.name, run, id)
	p := &pod{sc: s, run: run, name: base + "-" + nodeName, file: filepath.Join(state, "manifests", base+".yaml"),
		obsDir: filepath.Join(state, "obs", id, fmt.Sprintf("%s-r%d", s.name, run))}
	p.manifest = s.render(base, newUID(), p.obsDir)
	return p
}

// render is the scenario's manifest for a Pod named name with that uid and
// observation folder.
func (s *scenario) render(name, uid, obs string) []byte {
	return []byte(strings.NewReplacer("@NAME@", name, "@UID@", uid, "@OBS@", obs, "@NS@", namespace).Replace(s.manifest))
}

func newRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x", b)
}

// probeQuietWait is how long to wait before the scenarios' Pods are
// created. A probe worker created less than one probe period after the
// kubelet's prober manager started first sleeps a random part of that
// period (pkg/kubelet/prober/worker.go, run: "If kubelet restarted the
// probes could be started in rapid succession"), which would shift every
// first probe by up to a period: the committed table's firstProbeTypical
// failed so (7.34 s against 0). The manager starts before /healthz
// answers, so waiting the longest period of the scenarios (10 s when a
// probe states none) plus a second after `healthy` is enough.
func probeQuietWait(healthy time.Time, scs []*scenario, now time.Time) time.Duration {
	if healthy.IsZero() {
		return 0
	}
	return healthy.Add(maxProbePeriod(scs) + time.Second).Sub(now)
}

var periodSeconds = regexp.MustCompile(`periodSeconds:\s*(\d+)`)

// maxProbePeriod is the longest probe period of the scenarios' manifests.
func maxProbePeriod(scs []*scenario) time.Duration {
	longest := 0
	for _, s := range scs {
		if strings.Contains(s.manifest, "Probe:") && longest < 10 {
			longest = 10 // the default periodSeconds
		}
		for _, m := range periodSeconds.FindAllStringSubmatch(s.manifest, -1) {
			var n int
			if _, err := fmt.Sscan(m[1], &n); err == nil && n > longest {
				longest = n
			}
		}
	}
	return time.Duration(longest) * time.Second
}

// newUID is a fresh metadata.uid: the kubelet keeps a container's back-off
// for 10 minutes by Pod UID, so a second run must not inherit the first's.
func newUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// prediction is podlint's timeline of one Pod (`podlint timeline -f json`).
type prediction struct {
	obj map[string]any
}

func predict(podlint string, manifest []byte) (*prediction, error) {
	cmd := exec.Command(podlint, "timeline", "-f", "json", "--no-config", "-")
	cmd.Stdin = bytes.NewReader(manifest)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("podlint timeline: %v: %s", err, stderr.String())
	}
	var doc struct {
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, err
	}
	if len(doc.Objects) != 1 {
		return nil, fmt.Errorf("podlint timeline gave %d objects, want 1", len(doc.Objects))
	}
	return &prediction{obj: doc.Objects[0]}, nil
}

// get walks a dotted path; "containers.app" picks the container named app,
// a number picks an array element.
func (p *prediction) get(path string) (any, error) {
	var cur any = p.obj
	parts := strings.Split(path, ".")
	for i := 0; i < len(parts); i++ {
		k := parts[i]
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[k]
			if !ok {
				return nil, fmt.Errorf("podlint's JSON has no %s", strings.Join(parts[:i+1], "."))
			}
			if k == "containers" && i+1 < len(parts) {
				i++
				found := false
				for _, c := range next.([]any) {
					if c.(map[string]any)["name"] == parts[i] {
						next, found = c, true
					}
				}
				if !found {
					return nil, fmt.Errorf("podlint's JSON has no container %s", parts[i])
				}
			}
			cur = next
		case []any:
			var n int
			if _, err := fmt.Sscan(k, &n); err != nil || n < 0 || n >= len(v) {
				return nil, fmt.Errorf("podlint's JSON has no %s", strings.Join(parts[:i+1], "."))
			}
			cur = v[n]
		default:
			return nil, fmt.Errorf("podlint's JSON has no %s", strings.Join(parts[:i+1], "."))
		}
	}
	return cur, nil
}

// interval is [lo, hi]; hi is +Inf when podlint gives no bound.
type interval struct{ lo, hi float64 }

func (p *prediction) iv(path string) (interval, error) {
	v, err := p.get(path)
	if err != nil {
		return interval{}, err
	}
	switch x := v.(type) {
	case float64:
		return interval{x, x}, nil
	case []any:
		if len(x) == 2 {
			lo, ok := x[0].(float64)
			if !ok {
				break
			}
			if x[1] == nil {
				return interval{lo, math.Inf(1)}, nil
			}
			if hi, ok := x[1].(float64); ok {
				return interval{lo, hi}, nil
			}
		}
	}
	return interval{}, fmt.Errorf("%s is not an interval: %v", path, v)
}

func (a interval) add(b interval) interval { return interval{a.lo + b.lo, a.hi + b.hi} }

func (a interval) String() string {
	if a.lo == a.hi {
		return num(a.lo)
	}
	if math.IsInf(a.hi, 1) {
		return "[" + num(a.lo) + ", ∞)"
	}
	return "[" + num(a.lo) + ", " + num(a.hi) + "]"
}

func num(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

// Observation helpers. Times are seconds between two instants.

func secs(a, b time.Time) float64 { return a.Sub(b).Seconds() }

// obsN is the n-th (0-based) line of container c with event ev.
func (p *pod) obsN(c, ev string, n int) (time.Time, error) {
	i := 0
	for _, l := range p.obs {
		if l.container == c && l.event == ev {
			if i == n {
				return l.t, nil
			}
			i++
		}
	}
	return time.Time{}, fmt.Errorf("%s did not log %q %d times", c, ev, n+1)
}

// probeN is the n-th (0-based) probe result of a kind (failed, succeeded,
// "" for either) in the kubelet's log.
func (p *pod) probeN(c, typ, result string, n int) (time.Time, error) {
	i := 0
	for _, l := range p.kubelet {
		if l.container == c && l.probe == typ && strings.HasPrefix(l.kind, "probe-") && (result == "" || l.kind == "probe-"+result) {
			if i == n {
				return l.t, nil
			}
			i++
		}
	}
	return time.Time{}, fmt.Errorf("the kubelet logged fewer than %d %s %s probe results of %s", n+1, typ, result, c)
}

// probeRunN is when the kubelet ran container c's exec probe that logs
// event for the n-th (0-based) time.
func (p *pod) probeRunN(c, event string, n int) (time.Time, error) {
	i := 0
	for _, l := range p.kubelet {
		if l.kind == "probe-run" && l.container == c && l.event == event {
			if i == n {
				return l.t, nil
			}
			i++
		}
	}
	return time.Time{}, fmt.Errorf("the kubelet ran %s's %s probe fewer than %d times", c, event, n+1)
}

// createdN is when the kubelet started creating instance n (0-based) of
// container c.
func (p *pod) createdN(c string, n int) (time.Time, error) {
	i := 0
	for _, l := range p.kubelet {
		if l.kind == "create" && l.container == c {
			if i == n {
				return l.t, nil
			}
			i++
		}
	}
	return time.Time{}, fmt.Errorf("the kubelet started %s fewer than %d times", c, n+1)
}

// exitN is the n-th exit of container c.
func (p *pod) exitN(c string, n int) (exitEvent, error) {
	if n < len(p.exits[c]) {
		return p.exits[c][n], nil
	}
	return exitEvent{}, fmt.Errorf("ctr events saw %d exits of %s, not %d", len(p.exits[c]), c, n+1)
}

// taskStartN is the runtime's n-th start of container c.
func (p *pod) taskStartN(c string, n int) (time.Time, error) {
	if n < len(p.starts[c]) {
		return p.starts[c][n].t, nil
	}
	return time.Time{}, fmt.Errorf("ctr events saw %d starts of %s, not %d", len(p.starts[c]), c, n+1)
}

// changed is when /pods first showed key = value after `after`.
func (p *pod) changed(key, value string, after time.Time) (time.Time, error) {
	for _, ch := range p.changes {
		if ch.key == key && ch.value == value && !ch.t.Before(after) {
			return ch.t, nil
		}
	}
	return time.Time{}, fmt.Errorf("/pods never showed %s=%s", key, value)
}

// result is one row of the table.
type result struct {
	scenario, quantity, field string
	run                       int
	pred                      interval
	obs                       float64
	tol                       float64
	verdict                   string // pass | fail | error
	why                       string
	note                      string
}

func evaluate(pods []*pod) []result {
	var out []result
	for _, p := range pods {
		for _, ck := range p.sc.checks {
			r := result{scenario: p.sc.name, quantity: ck.quantity, field: ck.field, run: p.run, tol: ck.tol, note: ck.note}
			if r.tol == 0 {
				r.tol = defaultTolerance
			}
			var err error
			if ck.predict != nil {
				r.pred, err = ck.predict(p.pred)
			} else {
				r.pred, err = p.pred.iv(ck.field)
			}
			if err == nil {
				r.obs, err = ck.observe(p)
			}
			switch {
			case err != nil:
				r.verdict, r.why = "error", err.Error()
			case r.obs >= r.pred.lo-r.tol && r.obs <= r.pred.hi+r.tol:
				r.verdict = "pass"
			default:
				r.verdict = "fail"
			}
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].run < out[j].run })
	return out
}

// defaultTolerance covers the observation jitter: sources agree within
// 25 ms, /pods is polled every 100 ms, and a container logs its first line
// a few ms after the runtime's start.
const defaultTolerance = 0.15

func printPredictions(podlint string) error {
	for _, s := range scenarios() {
		pr, err := predict(podlint, s.render(s.name, newUID(), "/tmp/obs"))
		if err != nil {
			return fmt.Errorf("%s: %v", s.name, err)
		}
		for _, ck := range s.checks {
			var iv interval
			if ck.predict != nil {
				iv, err = ck.predict(pr)
			} else {
				iv, err = pr.iv(ck.field)
			}
			if err != nil {
				fmt.Printf("%-22s %-60s error: %v\n", s.name, ck.quantity, err)
				continue
			}
			fmt.Printf("%-22s %-60s %s\n", s.name, ck.quantity, iv)
		}
	}
	return nil
}

// linesOf picks the kubelet's log lines about Pod p.
func linesOf(ls []kubeletLine, p *pod) []kubeletLine {
	var out []kubeletLine
	for _, l := range ls {
		if l.pod == namespace+"/"+p.name {
			out = append(out, l)
		}
	}
	return out
}
