// Package observe is `podlint observe`: it turns what a cluster reports of
// its Pods (their status, the kubelet's events, the ReplicaSets and Jobs
// that own them) into a profile of how long each workload's containers
// really take to start and to stop, and how they die, for `podlint check
// --observed`. It lives outside internal/cli so that podlint-render, which
// links internal/cli, never links it; internal/observecli installs it into
// podlint (cli.SetObserver). It links no cluster client: a live cluster is
// read by podlint-observe (child.go, internal/observe/kubeconfig).
//
// Like every package of podlint, it makes no API promise.
package observe

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// SchemaVersion is the profile format this podlint writes and reads.
const SchemaVersion = 1

// Mode says how a profile was recorded.
const (
	// ModeSnapshot is one list: the Pods that exist now and the events
	// the API server still keeps (an hour by default).
	ModeSnapshot = "snapshot"
	// ModeWatch is a recording made while podlint watched, merged with
	// whatever the profile held before.
	ModeWatch = "watch"
)

// maxSamples bounds each series of a profile: the most recent are kept, so
// a profile merged from many watches stays small.
const maxSamples = 200

// Profile is what `podlint observe` writes (docs/observe.md, "Schema").
// Every list is sorted, so two recordings of the same cluster state give
// the same bytes.
type Profile struct {
	// Version is SchemaVersion.
	Version int `yaml:"version"`
	// Context is the kubeconfig context observed, or "" for --from files.
	Context string `yaml:"context,omitempty"`
	// Mode is ModeSnapshot or ModeWatch (watch once any recording was a
	// watch).
	Mode string `yaml:"mode"`
	// Windows are the recordings merged into this profile, oldest first:
	// what the observations can cover.
	Windows []Window `yaml:"windows"`
	// Workloads, sorted by key.
	Workloads []*Workload `yaml:"workloads"`
}

// Window is one recording: a snapshot (From is the oldest event it saw,
// To when it was taken) or a watch (From and To are when it ran).
type Window struct {
	Mode string    `yaml:"mode"`
	From time.Time `yaml:"from"`
	To   time.Time `yaml:"to"`
}

// Workload is one controller (or bare Pod) and what its Pods showed.
type Workload struct {
	// Key is namespace/Kind/name, resolved through ownerReferences.
	Key string `yaml:"workload"`
	// Inferred says how Key was found when the owner was not in the list
	// (deleted, or not listed).
	Inferred string `yaml:"inferred,omitempty"`
	// Pods is the number of distinct Pods seen.
	Pods int `yaml:"pods"`
	// FailedPods counts Pods seen in phase Failed (a Job's failed Pods).
	FailedPods int `yaml:"failedPods,omitempty"`
	// PodStartup is set when the Pods run several regular containers: a
	// start-up is then the Pod's (latest container start to Pod Ready),
	// recorded on each container.
	PodStartup bool         `yaml:"podStartup,omitempty"`
	Containers []*Container `yaml:"containers"`
}

// Container is one container name of a workload.
type Container struct {
	Name string `yaml:"name"`
	// Init is set for an init container: Startup then holds its run times.
	Init bool `yaml:"init,omitempty"`
	// Startup: start to Ready (for an init container, start to finish).
	Startup *Series `yaml:"startup,omitempty"`
	// Censored are starts that never became Ready because a probe killed
	// the container first: each sample is how long it had run, a lower
	// bound of its start-up.
	Censored *Censored `yaml:"censored,omitempty"`
	// Restarts by cause, sorted by cause.
	Restarts []*Restart `yaml:"restarts,omitempty"`
	// Shutdowns: from the Pod's deletion to the container's finish.
	Shutdowns *Shutdowns `yaml:"shutdowns,omitempty"`
}

// Censored is the start-ups a probe cut short.
type Censored struct {
	// Kills is the number of probe kills before Ready, from the kubelet's
	// events (each event's count) or the container's last state.
	Kills int `yaml:"kills"`
	// NotReadyAfter holds the run lengths of the killed runs where the
	// Pod status tells them.
	NotReadyAfter *Series `yaml:"notReadyAfter,omitempty"`
}

// Restart is the restarts of one cause.
type Restart struct {
	// Cause is liveness-probe, startup-probe, OOMKilled or exit-code-N.
	Cause string `yaml:"cause"`
	Count int    `yaml:"count"`
	// Runs are the run lengths before the restart, where known.
	Runs *Series `yaml:"runs,omitempty"`
}

// Shutdowns is the deletions observed.
type Shutdowns struct {
	// Took holds deletion to the container's finish.
	Took *Series `yaml:"took"`
	// SIGKILL are those of Took that ended with exit code 137 (the grace
	// period ran out), not counting OOM kills.
	SIGKILL *Series `yaml:"sigkill,omitempty"`
}

// Series is a list of durations with its summary. The summary is derived
// from Samples whenever a profile is written; a reader trusts Samples.
type Series struct {
	Count  int     `yaml:"count"`
	Min    Seconds `yaml:"min"`
	Median Seconds `yaml:"median"`
	P95    Seconds `yaml:"p95"`
	Max    Seconds `yaml:"max"`
	// Samples are the observations, by time: each has an id (a hash of
	// the Pod, container and start, so that merging a recording twice
	// counts it once), when it ended and its length.
	Samples []Sample `yaml:"samples"`
}

// Sample is one observation.
type Sample struct {
	ID      string
	At      time.Time
	Seconds float64
}

// Seconds is a duration in seconds, written as Go writes durations (52.1s).
type Seconds float64

func (s Seconds) String() string {
	return time.Duration(math.Round(float64(s)*10) * float64(time.Second/10)).String()
}

// MarshalYAML writes 52.1s.
func (s Seconds) MarshalYAML() (any, error) { return s.String(), nil }

// UnmarshalYAML reads what MarshalYAML writes, or plain seconds.
func (s *Seconds) UnmarshalYAML(n *yaml.Node) error {
	v, err := parseSeconds(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*s = Seconds(v)
	return nil
}

func parseSeconds(text string) (float64, error) {
	d, err := time.ParseDuration(text)
	if err != nil {
		var f float64
		if _, ferr := fmt.Sscan(text, &f); ferr != nil {
			return 0, fmt.Errorf("%q is not a duration such as 52.1s", text)
		}
		d = time.Duration(f * float64(time.Second))
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative", text)
	}
	return d.Seconds(), nil
}

// MarshalYAML writes a sample on one line: [id, time, 52.1s].
func (s Sample) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range []string{s.ID, s.At.UTC().Format(time.RFC3339), Seconds(s.Seconds).String()} {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: v})
	}
	return n, nil
}

// UnmarshalYAML reads [id, time, duration].
func (s *Sample) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode || len(n.Content) != 3 {
		return fmt.Errorf("line %d: a sample is [id, time, duration]", n.Line)
	}
	at, err := time.Parse(time.RFC3339, n.Content[1].Value)
	if err != nil {
		return fmt.Errorf("line %d: sample time %q: want RFC 3339 (2026-12-01T10:00:00Z)", n.Line, n.Content[1].Value)
	}
	sec, err := parseSeconds(n.Content[2].Value)
	if err != nil {
		return fmt.Errorf("line %d: sample: %v", n.Line, err)
	}
	*s = Sample{ID: n.Content[0].Value, At: at.UTC(), Seconds: sec}
	return nil
}

// add records a sample unless one with its id is there.
func (s *Series) add(x Sample) {
	for _, y := range s.Samples {
		if y.ID == x.ID {
			return
		}
	}
	s.Samples = append(s.Samples, x)
}

// finish sorts the samples by time (then id), keeps the most recent
// maxSamples and computes the summary.
func (s *Series) finish() {
	slices.SortFunc(s.Samples, func(a, b Sample) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ID, b.ID))
	})
	if len(s.Samples) > maxSamples {
		s.Samples = slices.Clone(s.Samples[len(s.Samples)-maxSamples:])
	}
	v := make([]float64, len(s.Samples))
	for i, x := range s.Samples {
		v[i] = x.Seconds
	}
	slices.Sort(v)
	s.Count = len(v)
	if len(v) == 0 {
		s.Min, s.Median, s.P95, s.Max = 0, 0, 0, 0
		return
	}
	s.Min, s.Max = Seconds(v[0]), Seconds(v[len(v)-1])
	s.Median, s.P95 = Seconds(quantile(v, 0.5)), Seconds(quantile(v, 0.95))
}

// quantile is the nearest-rank quantile of sorted values: an observed
// value, never an interpolation between two.
func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Encode writes p as YAML, after putting every list in its order and
// recomputing every summary.
func (p *Profile) Encode() ([]byte, error) {
	p.normalize()
	var b bytes.Buffer
	b.WriteString("# podlint observe profile (docs/observe.md). It holds no Secrets, ConfigMaps,\n")
	b.WriteString("# environment values, IPs, node names or UIDs.\n")
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(p); err != nil {
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (p *Profile) normalize() {
	p.Version = SchemaVersion
	slices.SortFunc(p.Windows, func(a, b Window) int {
		return cmp.Or(a.From.Compare(b.From), a.To.Compare(b.To), cmp.Compare(a.Mode, b.Mode))
	})
	p.Windows = slices.Compact(p.Windows)
	p.Mode = ModeSnapshot
	for _, w := range p.Windows {
		if w.Mode == ModeWatch {
			p.Mode = ModeWatch
		}
	}
	slices.SortFunc(p.Workloads, func(a, b *Workload) int { return cmp.Compare(a.Key, b.Key) })
	for _, w := range p.Workloads {
		slices.SortFunc(w.Containers, func(a, b *Container) int {
			return cmp.Or(-boolCmp(a.Init, b.Init), cmp.Compare(a.Name, b.Name))
		})
		for _, c := range w.Containers {
			for _, s := range c.series() {
				if s != nil {
					s.finish()
				}
			}
			slices.SortFunc(c.Restarts, func(a, b *Restart) int { return cmp.Compare(a.Cause, b.Cause) })
			for _, r := range c.Restarts {
				if r.Runs != nil {
					r.Runs.finish()
					if len(r.Runs.Samples) == 0 {
						r.Runs = nil
					}
				}
			}
		}
	}
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// series lists the container's series that are not restarts'.
func (c *Container) series() []*Series {
	out := []*Series{c.Startup}
	if c.Censored != nil {
		out = append(out, c.Censored.NotReadyAfter)
	}
	if c.Shutdowns != nil {
		out = append(out, c.Shutdowns.Took, c.Shutdowns.SIGKILL)
	}
	return out
}

// MaxProfileSize is the largest profile podlint reads: at maxSamples per
// series, thousands of workloads fit.
const MaxProfileSize = 16 << 20

// Decode reads a profile. name is the file's name for messages.
func Decode(data []byte, name string) (*Profile, error) {
	if len(data) > MaxProfileSize {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a profile may have", name, len(data), MaxProfileSize)
	}
	var p Profile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not a podlint observe profile: %v", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if p.Version != SchemaVersion {
		return nil, fmt.Errorf("%s: profile version %d; this podlint reads version %d (run podlint observe again)", name, p.Version, SchemaVersion)
	}
	for _, w := range p.Workloads {
		if w == nil || strings.Count(w.Key, "/") != 2 {
			return nil, fmt.Errorf("%s: a workload key is namespace/Kind/name", name)
		}
		for _, c := range w.Containers {
			if c == nil {
				return nil, fmt.Errorf("%s: %s: empty container entry", name, w.Key)
			}
		}
	}
	p.normalize()
	return &p, nil
}

// Merge adds q's recordings to p: windows are the union, samples are
// merged by id, counts that have no samples (probe kills from events,
// restarts) take the larger of the two, since both recordings may have
// seen the same events.
func (p *Profile) Merge(q *Profile) {
	if p.Context == "" {
		p.Context = q.Context
	}
	p.Windows = append(p.Windows, q.Windows...)
	byKey := map[string]*Workload{}
	for _, w := range p.Workloads {
		byKey[w.Key] = w
	}
	for _, qw := range q.Workloads {
		w := byKey[qw.Key]
		if w == nil {
			p.Workloads = append(p.Workloads, qw)
			byKey[qw.Key] = qw
			continue
		}
		w.Pods = max(w.Pods, qw.Pods)
		w.FailedPods = max(w.FailedPods, qw.FailedPods)
		w.PodStartup = w.PodStartup || qw.PodStartup
		if w.Inferred == "" {
			w.Inferred = qw.Inferred
		}
		for _, qc := range qw.Containers {
			w.container(qc.Name, qc.Init).merge(qc)
		}
	}
	p.normalize()
}

func (w *Workload) container(name string, init bool) *Container {
	for _, c := range w.Containers {
		if c.Name == name && c.Init == init {
			return c
		}
	}
	c := &Container{Name: name, Init: init}
	w.Containers = append(w.Containers, c)
	return c
}

func mergeSeries(a, b *Series) *Series {
	if b == nil {
		return a
	}
	if a == nil {
		a = &Series{}
	}
	for _, x := range b.Samples {
		a.add(x)
	}
	return a
}

func (c *Container) merge(q *Container) {
	c.Startup = mergeSeries(c.Startup, q.Startup)
	if q.Censored != nil {
		if c.Censored == nil {
			c.Censored = &Censored{}
		}
		c.Censored.Kills = max(c.Censored.Kills, q.Censored.Kills)
		c.Censored.NotReadyAfter = mergeSeries(c.Censored.NotReadyAfter, q.Censored.NotReadyAfter)
	}
	for _, qr := range q.Restarts {
		r := c.restart(qr.Cause)
		r.Count = max(r.Count, qr.Count)
		r.Runs = mergeSeries(r.Runs, qr.Runs)
	}
	if q.Shutdowns != nil {
		if c.Shutdowns == nil {
			c.Shutdowns = &Shutdowns{}
		}
		c.Shutdowns.Took = mergeSeries(c.Shutdowns.Took, q.Shutdowns.Took)
		c.Shutdowns.SIGKILL = mergeSeries(c.Shutdowns.SIGKILL, q.Shutdowns.SIGKILL)
	}
}

func (c *Container) restart(cause string) *Restart {
	for _, r := range c.Restarts {
		if r.Cause == cause {
			return r
		}
	}
	r := &Restart{Cause: cause}
	c.Restarts = append(c.Restarts, r)
	return r
}
