package timeline

import (
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/podlint/podlint/workload"
)

// Annotation keys users write to state what the model cannot read from a
// manifest.
const (
	AnnotationExpectedStartup  = "podlint.dev/expected-startup"
	AnnotationExpectedShutdown = "podlint.dev/expected-shutdown"
)

// Duration is a runtime duration that may be unknown. Unknown durations are
// kept symbolic: they end up in Span.Plus (for runtime terms such as pulls)
// or make an upper edge unbounded (where nothing in the spec limits them).
type Duration struct {
	Seconds float64
	Known   bool
}

// Seconds is a known duration. +Inf is allowed for a shutdown time and means
// "ignores SIGTERM".
func Seconds(s float64) Duration { return Duration{Seconds: s, Known: true} }

// ContainerParams overrides Params for one container name.
type ContainerParams struct {
	ImagePull Duration
	// Start is the time from container start until the application is
	// healthy (answers its probes).
	Start Duration
	// Shutdown is the time from the stop signal until the process exits.
	Shutdown Duration
	// Run is how long a regular init container runs, or how long a
	// crash-looping container runs before it exits.
	Run Duration
}

// Expectation is one "container-name glob → seconds" entry, as written in
// the configuration file or in an annotation.
type Expectation struct {
	// Pattern is a path.Match glob on the container name; "*" matches all.
	Pattern string
	Seconds float64
	// Text is the duration as the user wrote it ("5m", "90"), for messages.
	Text string
}

// Params are the inputs the manifest does not contain. Use DefaultParams and
// change what you know; the zero Params means ε = λ = 0 (the nominal view
// of E-5, docs/semantics.md#e-5) and unknown runtimes.
type Params struct {
	// Epsilon (ε) is the kubelet's observation latency (PLEG relist + sync):
	// it only widens upper edges, because observation can be immediate.
	Epsilon float64
	// Lambda (λ) is the latency from a probe verdict to the pod sync that
	// acts on it; a PLEG event takes the same path to the sync that writes
	// the Pod's status.
	Lambda float64
	// StopLatency (X) is the container runtime's share of a stop call
	// (CRI StopContainer) past what the kubelet asks: SIGKILL lands up to
	// X after the timeout the kubelet passes, and the call returns up to X
	// after the container exited (containerd handles the exit, task
	// delete, before it answers), which is when the kubelet lets the next
	// sidecar stop (T-4, docs/semantics.md#t-9). It only widens upper
	// edges, once per hand-over.
	StopLatency float64

	// Scheduling is pod creation → kubelet starts the sandbox (binding,
	// sandbox creation). Unknown by default.
	Scheduling Duration
	// ImagePull is the pull time of one image. Unknown by default.
	ImagePull Duration
	// AppStart is container start → application healthy. Unknown by
	// default: lower edges assume 0, upper edges use the latest start the
	// probes tolerate, or are unbounded when no probe limits it.
	AppStart Duration
	// AppShutdown is stop signal → process exit. Unknown by default: exit
	// lies anywhere between the signal and SIGKILL.
	AppShutdown Duration
	// InitRun is the run time of a regular init container.
	InitRun Duration
	// CrashRun is how long a crash-looping container runs before it exits
	// (r in F-10). Unknown → the restart schedule counts runs as 0.
	CrashRun Duration
	// JobRun is how long one Job pod runs before it fails (F-12).
	JobRun Duration

	// Nodes is the number of nodes a workload's Pods can be scheduled on
	// (--nodes); 0 when unknown. Rollout and drain estimates that depend on
	// it state their assumption when it is unknown.
	Nodes int

	// CrashLoopInitial and CrashLoopMax are the node's crash-loop back-off
	// (10 s and 300 s unless the kubelet's maxContainerRestartPeriod or the
	// ReduceDefaultCrashLoopBackOffDecay gate changes them).
	CrashLoopInitial float64
	CrashLoopMax     float64

	// Containers overrides the durations above per container name.
	Containers map[string]ContainerParams

	// ExpectedStartup and ExpectedShutdown come from the configuration file;
	// the first matching pattern wins, and annotations win over them.
	ExpectedStartup  []Expectation
	ExpectedShutdown []Expectation

	// Observed is the profile of check --observed, or nil.
	Observed *Observed
}

// DefaultParams are the documented defaults: ε 1 s, λ 0.5 s, X 1 s,
// crash-loop back-off 10 s → 300 s, every runtime duration unknown.
func DefaultParams() Params {
	return Params{Epsilon: 1, Lambda: 0.5, StopLatency: DefaultStopLatency, CrashLoopInitial: 10, CrashLoopMax: 300}
}

// DefaultStopLatency is X when nothing sets it: above every hand-over a
// real kubelet v1.37.2 with containerd 1.6 showed (0.15–0.72 s, idle and
// at load 12–23, docs/validation.md) and every SIGKILL's lateness
// (0.10–0.33 s). No constant in the kubelet or containerd bounds it: it is
// the runtime's exit handling (the shim's runc delete) and a gRPC answer.
const DefaultStopLatency = 1.0

// clean replaces values that would poison the arithmetic (negative, NaN)
// by their defaults, so that Compute never has to check again.
func (p Params) clean() Params {
	bad := func(x float64) bool { return math.IsNaN(x) || x < 0 || math.IsInf(x, 0) }
	if bad(p.Epsilon) {
		p.Epsilon = 1
	}
	if bad(p.Lambda) {
		p.Lambda = 0.5
	}
	if bad(p.StopLatency) {
		p.StopLatency = DefaultStopLatency
	}
	if bad(p.CrashLoopInitial) || p.CrashLoopInitial == 0 {
		p.CrashLoopInitial = 10
	}
	if bad(p.CrashLoopMax) || p.CrashLoopMax == 0 {
		p.CrashLoopMax = 300
	}
	if p.CrashLoopInitial > p.CrashLoopMax {
		// The kubelet lowers the initial delay to the configured maximum.
		p.CrashLoopInitial = p.CrashLoopMax
	}
	return p
}

// crashCurve is the crash-loop back-off a node of version v runs with these
// params: 10 s doubling to 300 s, or 1 s to 60 s with
// ReduceDefaultCrashLoopBackOffDecay. The node's maxContainerRestartPeriod
// (CrashLoopMax, and CrashLoopInitial lowered to it) counts only where
// KubeletCrashLoopBackOffMax is on; before, the kubelet ignores it.
func (p Params) crashCurve(v Version) Params {
	initial, maxB := float64(CrashLoopInitial), float64(CrashLoopMax)
	if v.ReducedCrashLoopBackOff() {
		initial, maxB = ReducedCrashLoopInitial, ReducedCrashLoopMax
	}
	if !v.KubeletCrashLoopBackOffMax() {
		p.CrashLoopInitial, p.CrashLoopMax = initial, maxB
	}
	return p
}

func (d Duration) usable() bool {
	return d.Known && !math.IsNaN(d.Seconds) && d.Seconds >= 0
}

// pick returns the first usable duration.
func pick(ds ...Duration) Duration {
	for _, d := range ds {
		if d.usable() {
			return d
		}
	}
	return Duration{}
}

// ExpectSource says where an expectation came from.
type ExpectSource string

const (
	FromAnnotation ExpectSource = "annotation"
	FromConfig     ExpectSource = "config"
	// FromObserved is a profile of podlint observe; Key then describes
	// the observation (Observed.StartupNote).
	FromObserved ExpectSource = "observed"
)

// Expected is a container's user-stated startup or shutdown time.
type Expected struct {
	Seconds float64
	// Text is the duration as written ("5m"); messages print it.
	Text   string
	OK     bool
	Source ExpectSource
	// Key is the annotation key, or the matching configuration pattern.
	Key string
	// Path is the field path of the annotation (object metadata; the
	// loader merges template annotations into the same map) or "" for
	// configuration.
	Path workload.Path
}

// AnnotationError is a malformed podlint.dev/expected-* annotation. It is
// returned, never panicked, so the caller can report it at Path.
type AnnotationError struct {
	Key, Value string
	Path       workload.Path
	Err        error
}

func (e *AnnotationError) Error() string {
	return fmt.Sprintf("annotation %s: %q: %v", e.Key, e.Value, e.Err)
}

func (e *AnnotationError) Unwrap() error { return e.Err }

// ExpectedStartup returns what the workload's annotation or the config says
// about the start-up time of the named container (annotation first).
func ExpectedStartup(w *workload.Workload, p Params, container string) (Expected, error) {
	e, err := expected(w, AnnotationExpectedStartup, p.ExpectedStartup, container)
	return observedOver(e, p, w, container, true), err
}

// ExpectedShutdown is ExpectedStartup for podlint.dev/expected-shutdown.
func ExpectedShutdown(w *workload.Workload, p Params, container string) (Expected, error) {
	e, err := expected(w, AnnotationExpectedShutdown, p.ExpectedShutdown, container)
	return observedOver(e, p, w, container, false), err
}

func expected(w *workload.Workload, key string, config []Expectation, container string) (Expected, error) {
	var annErr error
	if w != nil {
		if raw, ok := w.Annotations[key]; ok {
			apath := annotationPath(w, key)
			list, err := ParseExpectations(raw)
			if err != nil {
				// A broken annotation must not silently fall back to the
				// config value without telling: report and still use config.
				annErr = &AnnotationError{Key: key, Value: raw, Path: apath, Err: err}
			} else if e, ok := matchEntry(list, container, true); ok {
				return Expected{Seconds: e.Seconds, Text: e.Text, OK: true, Source: FromAnnotation, Key: key, Path: apath}, nil
			}
		}
	}
	for _, e := range config {
		if ok, _ := path.Match(e.Pattern, container); ok && e.Seconds >= 0 && !math.IsNaN(e.Seconds) {
			return Expected{Seconds: e.Seconds, Text: e.Text, OK: true, Source: FromConfig, Key: e.Pattern}, annErr
		}
	}
	return Expected{}, annErr
}

func annotationPath(w *workload.Workload, key string) workload.Path {
	if p, ok := w.AnnotationPaths[key]; ok {
		return p
	}
	return w.Path.Join("metadata.annotations")
}

// ParseExpectations parses "90s" (every container), "app=90s,proxy=5s",
// globs "side-*=10" and mixes such as "30s,proxy=5s" (unnamed = default).
// Durations are Go durations ("1m30s") or plain seconds ("90", "1.5").
func ParseExpectations(s string) ([]Expectation, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty value")
	}
	var out []Expectation
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, errors.New("empty entry between commas")
		}
		pattern, val := "*", part
		if i := strings.IndexByte(part, '='); i >= 0 {
			pattern, val = strings.TrimSpace(part[:i]), strings.TrimSpace(part[i+1:])
			if pattern == "" {
				return nil, fmt.Errorf("entry %q has no container name", part)
			}
			if _, err := path.Match(pattern, ""); err != nil {
				return nil, fmt.Errorf("entry %q: bad pattern: %v", part, err)
			}
		}
		if seen[pattern] {
			return nil, fmt.Errorf("container %q given twice", pattern)
		}
		seen[pattern] = true
		sec, err := ParseSeconds(val)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %v", part, err)
		}
		out = append(out, Expectation{Pattern: pattern, Seconds: sec, Text: val})
	}
	return out, nil
}

// MaxStatedSeconds is the largest duration ParseSeconds accepts: the
// largest value of an int32 seconds field such as
// terminationGracePeriodSeconds. Anything longer is a typo ("1e100").
const MaxStatedSeconds = math.MaxInt32

// ParseSeconds reads "90", "1.5", "90s", "1m30s".
func ParseSeconds(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing duration")
	}
	var sec float64
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		sec = f
	} else {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("want a duration such as 90s or 1m30s, or plain seconds")
		}
		sec = d.Seconds()
	}
	if math.IsNaN(sec) || math.IsInf(sec, 0) {
		return 0, errors.New("want a finite duration")
	}
	if sec < 0 {
		return 0, errors.New("duration must not be negative")
	}
	if sec > MaxStatedSeconds {
		return 0, fmt.Errorf("duration is longer than %d seconds, the largest a Kubernetes duration field holds", int64(MaxStatedSeconds))
	}
	return sec, nil
}

// matchEntry finds the entry for a container name. With exactFirst
// (annotation semantics) an exact name beats a glob, which beats the
// unnamed default; otherwise the first matching entry wins.
func matchEntry(list []Expectation, name string, exactFirst bool) (Expectation, bool) {
	if !exactFirst {
		for _, e := range list {
			if ok, _ := path.Match(e.Pattern, name); ok {
				return e, true
			}
		}
		return Expectation{}, false
	}
	for _, e := range list {
		if e.Pattern == name {
			return e, true
		}
	}
	for _, e := range list {
		if e.Pattern == "*" {
			continue
		}
		if ok, _ := path.Match(e.Pattern, name); ok {
			return e, true
		}
	}
	for _, e := range list {
		if e.Pattern == "*" {
			return e, true
		}
	}
	return Expectation{}, false
}
