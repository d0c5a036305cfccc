package rules

import (
	"fmt"
	"math"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var ShutdownExceedsGrace = &Rule{
	ID: "PL202", Name: "shutdown-exceeds-grace", Title: "the declared shutdown time does not fit in the grace period",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		g := p.GracePeriod()
		if g.Seconds <= 0 {
			return // no graceful stop at all: PL203
		}
		for _, st := range earliestStops(p, g) {
			checkShutdownFits(p, g, st)
		}
	},
}

// stopInfo is what podlint knows for certain about one container's stop on
// deletion.
type stopInfo struct {
	c        ContainerRef
	preStop  float64 // stated preStop duration (lower bound), capped at G
	stop     float64 // earliest stop signal after the delete request
	exact    bool    // stop is known exactly (no exec hook, no waiting)
	waitsFor []containerName
	expected timeline.Expected
}

// earliestStops computes the earliest stop signal of every regular
// container and sidecar after a delete request (T-2, T-4): regular containers
// right after their preStop; a sidecar after its preStop, after every regular
// container has exited and after the sidecar declared after it has exited,
// but no later than the end of the grace period. Only what the manifest
// states counts: the sleep of a preStop hook (statedSleep for exec hooks, so
// that conditional sleeps do not inflate it) and the declared shutdown
// times; everything else is taken as instantaneous, so the stops are lower
// bounds and a finding is certain.
func earliestStops(p *Pass, g Grace) []*stopInfo {
	G := float64(g.Seconds)
	var regular, sidecars []*stopInfo
	for _, c := range p.Containers() {
		if c.Type == Init {
			continue
		}
		st := &stopInfo{c: c, exact: true}
		st.expected, _ = timeline.ExpectedShutdown(p.Workload, p.Params, c.C.Name)
		if lc := c.C.Lifecycle; lc != nil && lc.PreStop != nil {
			h := lc.PreStop
			switch {
			case h.Sleep != nil:
				if p.Version.SleepAction() {
					st.preStop = math.Min(math.Max(float64(h.Sleep.Seconds), 0), G)
				}
			case h.Exec != nil:
				st.exact = false
				if s := timeline.ExecSleep(h.Exec.Command, c.C); s.OK {
					st.preStop = math.Min(s.Min, G)
				}
			case h.HTTPGet != nil:
				st.exact = false
			}
		}
		st.stop = st.preStop
		if c.Type == Sidecar {
			sidecars = append(sidecars, st)
		} else {
			regular = append(regular, st)
		}
	}
	// exit is the earliest instant a container is gone: its declared
	// shutdown after the stop signal, cut by SIGKILL; at once if unknown.
	exit := func(st *stopInfo) float64 {
		if !st.expected.OK {
			return st.stop
		}
		return st.stop + math.Min(st.expected.Seconds, afterStop(st.stop, g.Seconds))
	}
	// exitExact: the exit instant is known, not only its lower bound.
	exitExact := func(st *stopInfo) bool { return st.exact && st.expected.OK }
	mainGone, mainExact := 0.0, true
	var names []containerName
	for _, st := range regular {
		mainGone = math.Max(mainGone, exit(st))
		mainExact = mainExact && exitExact(st)
		names = append(names, st.c.Name())
	}
	next, nextExact, nextName := 0.0, true, containerName{}
	for i := len(sidecars) - 1; i >= 0; i-- {
		st := sidecars[i]
		st.waitsFor = append([]containerName(nil), names...)
		if nextName != (containerName{}) {
			st.waitsFor = append(st.waitsFor, nextName)
		}
		wait := math.Max(mainGone, next)
		// The wait is bounded by what is left of the grace period; it is
		// known exactly when it runs out, or when every exit it waits for
		// is known.
		if wait < G && !(mainExact && nextExact) {
			st.exact = false
		}
		st.stop = math.Max(st.preStop, math.Min(wait, G))
		next, nextExact, nextName = exit(st), exitExact(st), st.c.Name()
	}
	return append(regular, sidecars...)
}

func checkShutdownFits(p *Pass, g Grace, st *stopInfo) {
	c := st.c
	if !st.expected.OK {
		return
	}
	X := st.expected.Seconds
	stop := st.stop
	left := afterStop(stop, g.Seconds)
	if X <= left {
		return
	}
	src := "podlint.dev/expected-shutdown"
	switch st.expected.Source {
	case timeline.FromConfig:
		src = "expected-shutdown in the configuration"
	case timeline.FromObserved:
		src = st.expected.Key
	}
	hasPreStop := st.preStop > 0
	who := fmt.Sprintf("%q", c.Name())
	if c.Type == Sidecar {
		who = "sidecar " + who
	}
	var why string
	switch {
	case c.Type == Sidecar && stop > st.preStop:
		why = fmt.Sprintf("it gets SIGTERM only after the containers it waits for (%s) have exited, no earlier than %s into %s", quoted(st.waitsFor, 0), secs(stop), g.Describe())
	case stop > 0:
		why = fmt.Sprintf("its preStop takes at least %s of %s", secs(stop), g.Describe())
	default:
		why = fmt.Sprintf("%s is all it gets", g.Describe())
	}
	gap := secs(left)
	if !st.exact {
		gap = "at most " + gap
	}
	fix := ""
	if hasPreStop {
		fix = ", or shorten the preStop"
	}
	path := g.Path
	if !g.Set {
		path = c.Path
	}
	rel := []Related{g.Related()}
	if st.expected.Path != "" {
		rel = append(rel, Related{Path: st.expected.Path, Message: fmt.Sprintf("expected shutdown of %q: %s", c.Name(), expectedText(st.expected))})
	}
	if hasPreStop {
		rel = append(rel, Related{Path: c.Field("lifecycle.preStop"), Message: fmt.Sprintf("preStop of %q", c.Name())})
	}
	p.Report(Diagnostic{Path: path, Container: c.C.Name, Related: rel,
		Message: fmt.Sprintf("%s is SIGKILLed in the middle of its %s shutdown", who, expectedText(st.expected)),
		Detail: fmt.Sprintf("%s needs %s to shut down (%s), but %s: SIGKILL comes %s after SIGTERM, and in-flight requests and unwritten data are lost. Set terminationGracePeriodSeconds to at least %.0fs%s.",
			capitalize(who), expectedText(st.expected), src, why, gap, math.Ceil(stop+X), fix)})
}
