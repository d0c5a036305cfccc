package rules

import (
	"fmt"
	"strings"
)

// Arithmetic in details. A detail that states how a duration comes about
// writes it as an equation a reader can redo, in one of these forms:
//
//	TERM + TERM + … = DURATION
//
// where each TERM is a duration the manifest states or a named latency
// ("initialDelaySeconds 90s", "the kubelet's 1s latency"), or a product
// "failureThreshold 120 × periodSeconds 10s", its factor possibly one less
// than the field ("(failureThreshold 10 − 1) × periodSeconds 10s"). No term
// is hidden: the kubelet latencies the model adds are terms of their own.
// DURATION is printed with dur. TestDetailArithmeticAddsUp (internal/cli)
// parses every equation of the example and corpus goldens in these forms
// and checks that it adds up.

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
	return strings.Join(texts, " + ") + " = " + dur(sum)
}

// guaranteedBudget is the start-up a probe allows for certain:
// initialDelaySeconds + (failureThreshold − 1) × periodSeconds, the
// earliest kill decision (the ticker's phase can make the first failure
// come one period early). delay is the initial delay as the kubelet may
// apply it: up to 1 s short of d, because it counts from a start time
// kept in whole seconds (docs/semantics.md P-11); the shortfall is then
// named in the first term, whose value is delay.
func guaranteedBudget(d, delay float64, ft int, p float64) string {
	first := term{"initialDelaySeconds " + secs(d), d}
	if delay < d-1e-9 {
		first = term{fmt.Sprintf("%s of initialDelaySeconds %s (the kubelet counts it from a start time truncated to whole seconds)", secs(delay), secs(d)), delay}
	}
	return equation(first, term{fmt.Sprintf("(failureThreshold %d − 1) × periodSeconds %s", ft, secs(p)), float64(ft-1) * p})
}

// latestDecision is the start-up a probe tolerates at most:
// max(initialDelaySeconds, the kubelet's latency) + failureThreshold ×
// periodSeconds, latest the kill decision of a container that never
// answers; at is that value as the timeline computed it, from which the
// first term is recovered. It reads "DURATION: EQUATION".
func latestDecision(d, ft, p, at float64) string {
	first := term{"initialDelaySeconds " + secs(d), d}
	if start := at - ft*p; start > d+1e-9 {
		// The first probe waits for the kubelet to see the container
		// started, which takes longer than the delay.
		first = term{fmt.Sprintf("the kubelet's %s latency (initialDelaySeconds is %s)", secs(start), secs(d)), start}
	}
	return dur(at) + ": " + equation(first, term{fmt.Sprintf("failureThreshold %s × periodSeconds %s", number(ft), secs(p)), ft * p})
}
