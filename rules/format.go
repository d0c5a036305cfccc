package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

// This file is the one place rules turn numbers and names into message
// text. Two kinds of durations appear in messages:
//
//   - values the user wrote (a *Seconds field, an expected-startup
//     annotation) print as written: secs(30) is "30s", an annotation "5m"
//     stays "5m" (expectedText);
//   - values the model computed print rounded to whole seconds, with
//     minutes past two minutes: dur(3090.5) is "51m31s". The kubelet's
//     modelled sub-second latencies are noise in a message; the exact
//     numbers stay in `podlint timeline -f json`.

// secs prints seconds the manifest states: "30s", "1.5s", "forever".
func secs(s float64) string {
	if math.IsInf(s, 1) {
		return "forever"
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + "s"
}

// dur prints a computed duration rounded to whole seconds in the one
// duration style (timeline.FormatDuration, Go's): "45s", "2m", "10m30s",
// "1h5m". A positive value under half a second stays exact ("200ms")
// rather than reading as zero.
func dur(s float64) string {
	switch {
	case math.IsInf(s, 1) || s > 1e12:
		return "forever"
	case s > 0 && s < 0.5:
		return timeline.FormatDuration(s)
	}
	return timeline.FormatDuration(math.Round(s))
}

// durTenth is dur to a tenth of a second where the value is not whole:
// a sum with a sub-second kubelet latency as a term ("20m1.5s") reads as
// its equation adds up.
func durTenth(s float64) string {
	if t := math.Round(s*10) / 10; t != math.Round(s) && !math.IsInf(s, 0) && s <= 1e12 {
		return timeline.FormatDuration(t)
	}
	return dur(s)
}

// number prints a count as written in the manifest: 2147483647, never
// 2.147483647e+09 as %g would.
func number(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// interval prints a computed interval rounded outwards to whole seconds:
// "35s–45s", "2m–2m20s", "30s" when both ends agree, "at least 5s" when it
// has no upper end.
func interval(i timeline.Interval) string {
	if i.HiUnbounded {
		return "at least " + dur(i.Lo)
	}
	lo, hi := math.Floor(i.Lo+1e-9), math.Ceil(i.Hi-1e-9)
	if i.Exact() || lo >= hi {
		return dur(i.Lo)
	}
	return dur(lo) + "–" + dur(hi)
}

// expectedText is a stated expectation as the user wrote it: "90s", "5m".
// A bare number of seconds ("90") gets its unit.
func expectedText(e timeline.Expected) string {
	t := strings.TrimSpace(e.Text)
	if t == "" {
		return dur(e.Seconds)
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return t + "s"
	}
	return t
}

// containerName is how a message names a container (workload.ContainerName):
// `"api"` with %q, or `#1 (helloworld-go:1)` when the container has no
// name.
type containerName = workload.ContainerName

// quoted quotes names and joins them: `"a"`, `"a" and "b"`,
// `"a", "b" and "c"`; past limit names (limit ≤ 0: no limit) it ends with
// "and N more". Names are strings or containerNames.
func quoted[T string | containerName](names []T, limit int) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if limit > 0 && len(q) > limit {
		q = append(q[:limit-1], fmt.Sprintf("%d more", len(q)-limit+1))
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// isAre agrees a verb with a count.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// plural picks the singular or plural form for n.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// capitalize starts a sentence: "with …" becomes "With …".
func capitalize(s string) string { return finding.Capitalize(s) }
