package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/podlint/podlint/timeline"
)

// Arithmetic in details. Every number a detail shows must be one a reader
// can re-derive from what the detail says; a term the model adds (a
// kubelet latency, the probe's timeout, the ticker's phase) is shown as a
// named term or the number leaves it out. Durations are printed in the one
// style of timeline.FormatDuration (Go's: "90s", "5m2s", "500ms"). A
// detail may use these forms, and TestDetailArithmeticAddsUp
// (internal/cli) reads every sentence of the example, sample, corpus and
// report goldens in them:
//
//   - Equation: TERM + TERM + … = DURATION, where each TERM is a duration
//     with words naming it ("initialDelaySeconds 90s", "the kubelet's 1s
//     latency (initialDelaySeconds is 0s)", "10s"), or a product
//     "failureThreshold 120 × periodSeconds 10s", its factor possibly one
//     less than the field ("(failureThreshold 10 − 1) × periodSeconds
//     10s"). The terms must add up to DURATION, printed with dur, to the
//     second it is rounded to. Write it with equation.
//   - Result: a duration equal to the result of an equation of the same
//     finding, such as the headline's "20m2s" or "raise it above 20m2s".
//   - Range: LO–HI, each end the result of an equation of the finding,
//     usually "LO–HI (EQUATION at the earliest, EQUATION at the latest)";
//     write it with span or hangWindow.
//   - Stated value: a value the manifest (or a default) states, right
//     after its field name: "periodSeconds 10s", "timeoutSeconds of 15s",
//     "the default grace period of 30s", "every 10s", "runs 15s".
//
// A sentence with any other duration fails the test, unless the test's
// list `unexplained` names its form with a reason (a constant of the
// kubelet, a duration the detail describes in words).

// term is one addend of an equation: its text and its value in seconds.
type term struct {
	text string
	v    float64
}

// equation joins the terms with " + " and ends with " = " and their sum.
func equation(terms ...term) string {
	texts := make([]string, len(terms))
	sum := 0.0
	for i, t := range terms {
		texts[i] = t.text
		sum += t.v
	}
	// A sub-second term shows in the sum, to the tenth, so that it adds up.
	return strings.Join(texts, " + ") + " = " + durTenth(sum)
}

// firstProbeTerm names when a probe first runs, v seconds after start,
// against its initialDelaySeconds d: the delay itself, the delay less
// the up to 1 s the kubelet loses by counting it from a start time kept
// in whole seconds (docs/semantics.md P-11), or the kubelet's latency
// when that is longer than the delay.
func firstProbeTerm(d, v float64) term {
	switch {
	case v < d-1e-9:
		return term{fmt.Sprintf("%s of initialDelaySeconds %s (the kubelet counts it from a start time truncated to whole seconds)", secs(v), secs(d)), v}
	case v > d+1e-9:
		return term{fmt.Sprintf("the kubelet's %s latency (initialDelaySeconds is %s)", secs(v), secs(d)), v}
	}
	return term{"initialDelaySeconds " + secs(d), d}
}

// guaranteedBudget is the start-up a probe allows for certain:
// initialDelaySeconds + (failureThreshold − 1) × periodSeconds, the
// earliest kill decision (the ticker's phase can make the first failure
// come one period early). delay is the initial delay as the kubelet may
// apply it: up to 1 s short of d (firstProbeTerm).
func guaranteedBudget(d, delay float64, ft int, p float64) string {
	return equation(firstProbeTerm(d, math.Min(delay, d)), term{fmt.Sprintf("(failureThreshold %d − 1) × periodSeconds %s", ft, secs(p)), float64(ft-1) * p})
}

// latestEquation is the start-up a probe tolerates at most, as an
// equation: max(initialDelaySeconds, the kubelet's latency) +
// failureThreshold × periodSeconds, latest the kill decision of a
// container that never answers; at is that value as the timeline
// computed it, from which the first term is recovered.
func latestEquation(d, ft, p, at float64) string {
	return equation(firstProbeTerm(d, math.Max(at-ft*p, d)), term{fmt.Sprintf("failureThreshold %s × periodSeconds %s", number(ft), secs(p)), ft * p})
}

// span is a range whose ends two equations derive: "34s–45s (EQ at the
// earliest, EQ at the latest)", or "45s (EQ)" when both ends round to
// the same second.
func span(lo, hi string, loV, hiV float64) string {
	if dur(loV) == dur(hiV) {
		return dur(hiV) + " (" + hi + ")"
	}
	return dur(loV) + "–" + dur(hiV) + " (" + lo + " at the earliest, " + hi + " at the latest)"
}

// killWindow is when a probe that fails from the start decides to kill,
// kill as the timeline computed it, with the equation of each end: the
// first probe (firstProbeTerm) plus failureThreshold − 1 periods at the
// earliest, the first probe a whole period later at the latest.
func killWindow(d, ft, p float64, kill timeline.Interval) string {
	lo := equation(firstProbeTerm(d, kill.Lo-(ft-1)*p), term{fmt.Sprintf("(failureThreshold %s − 1) × periodSeconds %s", number(ft), secs(p)), (ft - 1) * p})
	return span(lo, latestEquation(d, ft, p, kill.Hi), kill.Lo, kill.Hi)
}

// hangWindow is how long after its target starts hanging a probe counts
// its failureThreshold-th failure, [(FT−1)·S + T, FT·S + T) (F-7): the
// failing probes start S apart (spacing: periodSeconds, or the timeout
// when that is longer) and the last waits out its timeout T; one period
// more when the hang begins just after a probe started.
func hangWindow(ft float64, spacing term, t float64) string {
	timeout := term{"timeoutSeconds " + secs(t), t}
	lo := equation(term{fmt.Sprintf("(failureThreshold %s − 1) × %s", number(ft), spacing.text), (ft - 1) * spacing.v}, timeout)
	hi := equation(term{fmt.Sprintf("failureThreshold %s × %s", number(ft), spacing.text), ft * spacing.v}, timeout)
	if dur((ft-1)*spacing.v+t) == dur(ft*spacing.v+t) {
		return span(lo, hi, (ft-1)*spacing.v+t, ft*spacing.v+t)
	}
	return dur((ft-1)*spacing.v+t) + "–" + dur(ft*spacing.v+t) + " (" + lo + " when the failure begins just before a probe, " + hi + " when just after one)"
}

// spacingTerm names the time between the starts of two failing probes:
// periodSeconds, or timeoutSeconds when the probe runs longer than its
// period.
func spacingTerm(p, t, spacing float64) term {
	if spacing > p+1e-9 && math.Abs(spacing-t) < 1e-9 {
		return term{"timeoutSeconds " + secs(t), t}
	}
	return term{"periodSeconds " + secs(p), p}
}

// hangText is hangWindow for a probe's values (F-7).
func (v probeValues) hangText() string {
	return hangWindow(v.FT, spacingTerm(v.P, v.T, v.spacing()), v.T)
}

// startHangWindow is when a probe kills a container that hangs from its
// start (its target never answers, each probe waits out its timeout), k
// as the timeline computed it: the first probe (firstProbeTerm), one
// period later at the latest for the ticker's phase, then
// failureThreshold − 1 spacings and the last probe's timeout.
func startHangWindow(v probeValues, k timeline.Interval) string {
	sp := spacingTerm(v.P, v.T, v.spacing())
	fails := term{fmt.Sprintf("(failureThreshold %s − 1) × %s", number(v.FT), sp.text), (v.FT - 1) * sp.v}
	timeout := term{"timeoutSeconds " + secs(v.T), v.T}
	lo := equation(firstProbeTerm(v.D, k.Lo-fails.v-v.T), fails, timeout)
	hi := equation(firstProbeTerm(v.D, k.Hi-v.P-fails.v-v.T), term{"periodSeconds " + secs(v.P) + " for the ticker's phase", v.P}, fails, timeout)
	return span(lo, hi, k.Lo, k.Hi)
}
