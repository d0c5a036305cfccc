package timeline

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/podlint/podlint/workload"
)

// Interval is a set of possible instants or durations [Lo, Hi) in seconds.
// The kubelet's probe tickers run on a grid whose phase relative to the
// container start cannot be known statically (φ in
// docs/semantics.md#notation), so every computed time is a range: Lo is
// inclusive, Hi exclusive. Lo == Hi means an exact value. HiUnbounded means the spec allows no upper bound (Hi is then
// meaningless and kept at Lo). HiClosed marks an upper edge that is
// reached: termination times end on timers that fire exactly at their
// edge (the grace period, a sidecar's wait for its turn), so they are
// [Lo, Hi].
type Interval struct {
	Lo, Hi      float64
	HiUnbounded bool
	HiClosed    bool
}

// At is the exact instant t.
func At(t float64) Interval { return Interval{Lo: t, Hi: t} }

// Between is [lo, hi); the edges are swapped if given in the wrong order so
// that the invariant Lo ≤ Hi always holds.
func Between(lo, hi float64) Interval {
	if hi < lo {
		lo, hi = hi, lo
	}
	return Interval{Lo: lo, Hi: hi}
}

// From is [lo, ∞).
func From(lo float64) Interval { return Interval{Lo: lo, Hi: lo, HiUnbounded: true} }

// Exact reports whether the interval is a single known value.
func (a Interval) Exact() bool { return !a.HiUnbounded && a.Lo == a.Hi }

// Width is Hi − Lo, +Inf when unbounded.
func (a Interval) Width() float64 {
	if a.HiUnbounded {
		return math.Inf(1)
	}
	return a.Hi - a.Lo
}

// Max is the upper edge as a number: +Inf when unbounded.
func (a Interval) Max() float64 {
	if a.HiUnbounded {
		return math.Inf(1)
	}
	return a.Hi
}

// Add is the interval of x+y for x in a and y in b.
func (a Interval) Add(b Interval) Interval {
	r := Interval{Lo: a.Lo + b.Lo, Hi: a.Hi + b.Hi, HiUnbounded: a.HiUnbounded || b.HiUnbounded,
		HiClosed: a.reachesHi() && b.reachesHi()}
	return r.norm()
}

// reachesHi reports whether the upper edge is a possible value.
func (a Interval) reachesHi() bool { return a.HiClosed || a.Exact() }

// closedHi marks a bounded, non-exact interval as reaching its upper edge.
func closedHi(a Interval) Interval {
	a.HiClosed = !a.HiUnbounded && a.Hi > a.Lo
	return a
}

// Shift adds the constant d to both edges.
func (a Interval) Shift(d float64) Interval {
	return Interval{Lo: a.Lo + d, Hi: a.Hi + d, HiUnbounded: a.HiUnbounded, HiClosed: a.HiClosed}.norm()
}

// Later is the interval of max(x, y): the instant by which both events have
// happened.
func Later(a, b Interval) Interval {
	closed := a.reachesHi() && a.Hi >= b.Hi || b.reachesHi() && b.Hi >= a.Hi
	return Interval{Lo: math.Max(a.Lo, b.Lo), Hi: math.Max(a.Hi, b.Hi), HiUnbounded: a.HiUnbounded || b.HiUnbounded, HiClosed: closed}.norm()
}

// Earlier is the interval of min(x, y): the instant the first of two events
// happens.
func Earlier(a, b Interval) Interval {
	r := Interval{Lo: math.Min(a.Lo, b.Lo)}
	switch {
	case a.HiUnbounded && b.HiUnbounded:
		r.HiUnbounded = true
	case a.HiUnbounded:
		r.Hi = b.Hi
	case b.HiUnbounded:
		r.Hi = a.Hi
	default:
		r.Hi = math.Min(a.Hi, b.Hi)
	}
	r.HiClosed = !a.HiUnbounded && a.Hi == r.Hi && a.reachesHi() || !b.HiUnbounded && b.Hi == r.Hi && b.reachesHi()
	return r.norm()
}

// norm keeps the invariants after arithmetic: Lo ≤ Hi and an unbounded
// interval carries Hi = Lo so that equality comparisons stay meaningful.
func (a Interval) norm() Interval {
	if a.HiUnbounded {
		a.Hi = a.Lo
	} else if a.Hi < a.Lo {
		a.Hi = a.Lo
	}
	if a.HiUnbounded || a.Hi == a.Lo {
		a.HiClosed = false
	}
	return a
}

// String renders the interval for people, in the one duration style
// (FormatDuration): "25s–35s", "12s" for exact values, "at least 5s"
// without an upper bound. Whether the upper edge is reached is in the
// JSON and the charts, not in the words.
func (a Interval) String() string {
	return FormatRange(a.Lo, a.Hi, a.HiUnbounded)
}

// FormatSeconds prints seconds in the one duration style; it is
// FormatDuration, with "∞" for +Inf.
func FormatSeconds(s float64) string {
	if math.IsInf(s, 1) {
		return "∞"
	}
	return FormatDuration(s)
}

// MarshalJSON writes [lo, hi] with null for an unbounded upper edge.
func (a Interval) MarshalJSON() ([]byte, error) {
	lo, err := json.Marshal(round(a.Lo))
	if err != nil {
		return nil, err
	}
	if a.HiUnbounded {
		return []byte("[" + string(lo) + ",null]"), nil
	}
	hi, err := json.Marshal(round(a.Hi))
	if err != nil {
		return nil, err
	}
	return []byte("[" + string(lo) + "," + string(hi) + "]"), nil
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (a *Interval) UnmarshalJSON(b []byte) error {
	var v []*float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if len(v) != 2 || v[0] == nil {
		return fmt.Errorf("interval must be [lo, hi] with a numeric lo, got %s", b)
	}
	if v[1] == nil {
		*a = From(*v[0])
		return nil
	}
	*a = Between(*v[0], *v[1])
	return nil
}

// round removes float noise (0.1+0.2) from output without hiding real
// sub-second values such as λ = 0.5.
func round(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) > 1e12 {
		return x
	}
	return math.Round(x*1e6) / 1e6
}

// Span is an Interval that also says what it depends on.
//
// Plus lists runtime terms podlint cannot know (image pulls, init container
// run times, scheduling) and that were counted as 0 in both edges: the real
// instant is the interval shifted by the (non-negative) sum of those terms.
// Paths are the full field paths of the manifest fields that determine the
// span, so that findings can point at them. Both are sorted and hold at
// most 32 entries, the last being Elided when there were more.
type Span struct {
	Interval
	Plus  []string
	Paths []workload.Path
	// Never marks an event the model knows never happens, such as the
	// Ready of a container that liveness kills before its stated start-up
	// on every start: Interval is then when it would happen otherwise.
	// Sums and LaterSpan of a Never span are Never.
	Never bool
}

// Add sums two spans and merges what they depend on.
func (s Span) Add(o Span) Span {
	return Span{Interval: s.Interval.Add(o.Interval), Plus: merge(s.Plus, o.Plus), Paths: merge(s.Paths, o.Paths), Never: s.Never || o.Never}
}

// Shift adds a constant.
func (s Span) Shift(d float64) Span {
	s.Interval = s.Interval.Shift(d)
	return s
}

// With returns a copy depending additionally on paths.
func (s Span) With(paths ...workload.Path) Span {
	s.Paths = merge(s.Paths, paths)
	return s
}

// LaterSpan is Later for spans.
func LaterSpan(a, b Span) Span {
	return Span{Interval: Later(a.Interval, b.Interval), Plus: merge(a.Plus, b.Plus), Paths: merge(a.Paths, b.Paths), Never: a.Never || b.Never}
}

// MarshalJSON writes {"interval": [lo, hi], "plus": [...], "paths": [...]};
// without it the promoted Interval.MarshalJSON would silently drop the
// dependencies.
func (s Span) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Interval Interval        `json:"interval"`
		Plus     []string        `json:"plus,omitempty"`
		Paths    []workload.Path `json:"paths,omitempty"`
		Never    bool            `json:"never,omitempty"`
	}{s.Interval, s.Plus, s.Paths, s.Never})
}

// String renders the interval followed by the unknown terms.
func (s Span) String() string {
	if len(s.Plus) == 0 {
		return s.Interval.String()
	}
	return s.Interval.String() + " + " + strings.Join(s.Plus, " + ")
}

func span(i Interval, paths ...workload.Path) Span {
	return Span{Interval: i, Paths: merge(nil, paths)}
}

// maxTerms bounds Span.Plus and Span.Paths. The start of the last of
// thousands of containers depends on all of them; copying those lists at
// every step of the start chain made the model quadratic in the number of
// containers (2 800 containers took 13 s). Past the bound a list keeps its
// first maxTerms-1 entries in sorted order and ends with Elided.
const maxTerms = 32

// Elided ends a Plus or Paths list that was cut at its bound.
const Elided = "…"

// merge returns the sorted union of two string lists without empty entries,
// cut to maxTerms entries.
func merge[S ~string](a, b []S) []S {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := make([]S, 0, len(a)+len(b))
	cut := false
	for _, l := range [][]S{a, b} {
		for _, s := range l {
			switch s {
			case "":
			case Elided:
				cut = true
			default:
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if cut || len(out) > maxTerms {
		out = append(out[:min(len(out), maxTerms-1)], Elided)
	}
	if len(out) == 0 {
		return nil
	}
	return slices.Clip(out)
}

// Value is one number read from (or defaulted for) a manifest field.
type Value struct {
	// V is the value after API-server defaulting.
	V float64
	// Path is the full field path where the value is (or would be) written.
	Path workload.Path
	// Set is true when the manifest gives a non-default-triggering value.
	// Typed decoding cannot tell an omitted field from an explicit 0, so an
	// explicit 0 that the API server replaces by the default reads as false.
	Set bool
}

// Note is a remark the model made while computing: an ignored field on this
// Kubernetes version, a coerced value, an assumption it had to take.
type Note struct {
	Path workload.Path
	Text string
}

// Scale multiplies both edges by n ≥ 0 (n sequential repetitions).
func (a Interval) Scale(n float64) Interval {
	if n <= 0 || math.IsNaN(n) {
		return At(0)
	}
	return Interval{Lo: a.Lo * n, Hi: a.Hi * n, HiUnbounded: a.HiUnbounded}.norm()
}
