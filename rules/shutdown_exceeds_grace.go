package rules

import (
	"math"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var ShutdownExceedsGrace = &Rule{
	ID: "PL202", Name: "shutdown-exceeds-grace", Title: "the declared shutdown time does not fit in the grace period",
	Severity: finding.Warning,
	Doc: `Tell podlint how long a container needs after its stop signal to finish in-flight work, with the
annotation ` + "`podlint.dev/expected-shutdown`" + ` on the workload or its pod template (` + "`\"40s\"`" + ` for every
container, ` + "`\"app=40s,proxy=5s\"`" + ` per container) or ` + "`expected-shutdown`" + ` in ` + "`.podlint.yaml`" + `. This rule
checks that the time fits between SIGTERM and SIGKILL.

On deletion the grace period ` + "`G`" + ` (` + "`terminationGracePeriodSeconds`" + `, 30 s by default) starts before
the ` + "`preStop`" + ` hook; the stop signal goes out when the hook ends, at ` + "`p`" + `, and the runtime SIGKILLs
the container ` + "`max(G − ⌊p⌋, 2)`" + ` seconds later. A sidecar (an init container with
` + "`restartPolicy: Always`" + `) gets its stop signal even later: after its own preStop, after every regular
container has exited and after the sidecar declared after it has exited, but no later than the end
of the grace period. A container that needs ` + "`X`" + ` seconds after the stop signal is therefore
SIGKILLed mid-shutdown when

    X > max(G − ⌊stop⌋, 2)

and whatever it was doing is lost: open requests fail, queues are not drained, files and
transactions are left half written. podlint uses the earliest possible stop signal (the stated
preStop sleep, the declared shutdown times of the containers a sidecar waits for), so a finding
means the kill is certain, not merely possible.

Example: ` + "`preStop: {sleep: {seconds: 15}}`" + `, ` + "`podlint.dev/expected-shutdown: \"20s\"`" + `, default grace
30 s: SIGTERM at 15 s, SIGKILL at 30 s; the application is killed 15 s into its 20 s shutdown.

**Fix:** set ` + "`terminationGracePeriodSeconds`" + ` to at least the preStop time plus the shutdown time
(35 s in the example), or make the shutdown faster.`,
	Check: func(p *Pass) {
		tl := p.Timeline()
		if tl == nil || tl.Pod == nil {
			return
		}
		for _, c := range tl.Containers {
			checkShutdownFits(p, c)
		}
	},
}

func checkShutdownFits(p *Pass, c *timeline.Container) {
	t := c.Termination
	if c.Type == timeline.Init || t == nil || !c.ExpectedShutdown.OK {
		return
	}
	G := t.GracePeriod.V
	if G <= 0 {
		return // no graceful stop at all: PL203
	}
	X := c.ExpectedShutdown.Seconds
	stop := t.StopSignal.Lo
	left := math.Max(G-math.Floor(stop), minStopGrace)
	if X <= left {
		return
	}
	g := p.GracePeriod()
	src := "podlint.dev/expected-shutdown"
	if c.ExpectedShutdown.Source == timeline.FromConfig {
		src = "expected-shutdown in the configuration"
	}
	hasPreStop := t.PreStop != nil && t.PreStop.Skipped == ""
	who := sprintf("%q", c.Name)
	if c.Type == timeline.Sidecar {
		who = "sidecar " + who
	}
	var why string
	switch {
	case c.Type == timeline.Sidecar && stop > 0 && !(hasPreStop && t.PreStop.Duration.Lo >= stop):
		why = sprintf("it gets SIGTERM only after the containers it waits for (%s) have exited, no earlier than %s into %s", joinQuoted(t.WaitsFor), formatSeconds(stop), g.Describe())
	case stop > 0:
		why = sprintf("its preStop takes at least %s of %s", formatSeconds(stop), g.Describe())
	default:
		why = sprintf("%s is all it gets", g.Describe())
	}
	gap := formatSeconds(left)
	if !t.StopSignal.Exact() {
		gap = "at most " + gap
	}
	fix := ""
	if hasPreStop && stop > 0 {
		fix = ", or shorten the preStop"
	}
	path := g.Path
	if !g.Set {
		path = c.Path
	}
	rel := []Related{g.Related()}
	if c.ExpectedShutdown.Path != "" {
		rel = append(rel, Related{Path: c.ExpectedShutdown.Path, Message: sprintf("expected shutdown of %q: %s", c.Name, formatSeconds(X))})
	}
	if hasPreStop && stop > 0 {
		rel = append(rel, Related{Path: t.PreStop.Path, Message: sprintf("preStop of %q", c.Name)})
	}
	p.Report(Diagnostic{Path: path, Container: c.Name, Related: rel,
		Message: sprintf("%s needs %s to shut down (%s), but %s: SIGKILL comes %s after SIGTERM, in the middle of the shutdown, and in-flight requests and unwritten data are lost; set terminationGracePeriodSeconds to at least %.0fs%s",
			who, formatSeconds(X), src, why, gap, math.Ceil(stop+X), fix)})
}

// joinQuoted is `"a", "b" and "c"`.
func joinQuoted(names []string) string {
	var b []byte
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			b = append(b, " and "...)
		default:
			b = append(b, ", "...)
		}
		b = append(b, sprintf("%q", n)...)
	}
	return string(b)
}
