package rules

import (
	"math"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

var PreStopExceedsGrace = &Rule{
	ID: "PL201", Name: "prestop-exceeds-grace", Title: "preStop hook uses up the grace period",
	Severity: finding.Error,
	Check: func(p *Pass) {
		g := p.GracePeriod()
		for _, h := range p.Hooks() {
			checkHookGrace(p, h, g)
		}
	},
}

func checkHookGrace(p *Pass, h HookRef, g Grace) {
	name := h.Container.C.Name
	report := func(path workload.Path, format string, args ...any) {
		p.Report(Diagnostic{Path: path, Container: name, Message: sprintf(format, args...),
			Related: []Related{g.Related()}})
	}
	switch {
	case h.H.Sleep != nil:
		if !p.Version.SleepAction() {
			return // the hook is dropped or rejected: PL207
		}
		s := h.H.Sleep.Seconds
		path := h.Field("sleep.seconds")
		if s > g.Seconds {
			if h.Kind == "preStop" {
				report(path, "preStop of %q sleeps %ds, longer than %s: the API server rejects the Pod (sleep.seconds may not exceed terminationGracePeriodSeconds); set terminationGracePeriodSeconds to %ds plus the time the app needs after SIGTERM, or shorten the sleep",
					name, s, g.Describe(), s)
			} else {
				report(path, "postStart of %q sleeps %ds, longer than %s: the API server rejects the Pod (a sleep action may not exceed terminationGracePeriodSeconds, in postStart too); shorten the sleep or set terminationGracePeriodSeconds to at least %ds",
					name, s, g.Describe(), s)
			}
			return
		}
		if h.Kind != "preStop" || s <= 0 {
			return
		}
		if msg := graceLeft(float64(s), g, true); msg != "" {
			report(path, "preStop of %q sleeps %ds %s; set terminationGracePeriodSeconds to %ds plus the time the app needs after SIGTERM, or shorten the sleep%s",
				name, s, msg, s, outliveHint(p, h, float64(s), g))
		}
	case h.H.Exec != nil && h.Kind == "preStop":
		s, text, ok := timeline.StatedSleep(h.H.Exec.Command)
		if !ok || s <= 0 || g.Seconds == 0 {
			return // G = 0 is PL203's finding
		}
		msg := graceLeft(s, g, false)
		if msg == "" {
			return
		}
		path := h.Field("exec.command")
		if math.IsInf(s, 1) {
			report(path, "preStop of %q runs %q, which never ends, %s; sleep for a bounded time shorter than the grace period%s", name, text, msg, outliveHint(p, h, s, g))
			return
		}
		report(path, "preStop of %q runs %q, at least %s %s; set terminationGracePeriodSeconds to %.0fs plus the time the app needs after SIGTERM, or shorten the sleep%s",
			name, text, formatSeconds(s), msg, math.Ceil(s), outliveHint(p, h, s, g))
	}
}

// outliveHint is added when a regular container of a multi-container Pod
// sleeps through the whole grace period: the usual intent is to keep a
// helper (a database or mesh proxy) alive until the others are gone, which
// a native sidecar does without the sleep.
func outliveHint(p *Pass, h HookRef, s float64, g Grace) string {
	if h.Container.Type != Regular || len(p.Spec.Containers) < 2 || s < float64(g.Seconds) {
		return ""
	}
	return sprintf("; if %q only has to outlive the other containers, make it a native sidecar (an init container with restartPolicy: Always, Kubernetes 1.29 and later): the kubelet then stops it after them without a sleep", h.Container.C.Name)
}

// graceLeft describes what a preStop of s seconds leaves of the grace
// period, or returns "" when the application still gets more than the
// kubelet's 2 s minimum between SIGTERM and SIGKILL. exact is false when s
// is only a lower bound (an exec hook). Grace periods of 2 s or less are
// left alone: there the hook costs the application nothing.
func graceLeft(s float64, g Grace, exact bool) string {
	G := float64(g.Seconds)
	if G <= minStopGrace {
		return ""
	}
	stop := math.Min(s, G)
	left := afterStop(stop, g.Seconds)
	if left > minStopGrace {
		return ""
	}
	switch {
	case s > G:
		return sprintf("and so outlasts %s: the kubelet cuts the hook off at %ds, sends SIGTERM then and SIGKILLs the container %.0fs later (its minimum), so the app gets only %.0fs to shut down",
			g.Describe(), g.Seconds, left, left)
	case s == G && exact:
		return sprintf("and so uses up all of %s: SIGTERM comes at %ds and SIGKILL %.0fs later (the kubelet's minimum), so the app gets only %.0fs to shut down",
			g.Describe(), g.Seconds, left, left)
	case exact:
		return sprintf("of %s: SIGTERM comes after %s and SIGKILL at %s, so the app gets only %.0fs to shut down",
			g.Describe(), formatSeconds(stop), formatSeconds(stop+left), left)
	}
	return sprintf("of %s: SIGTERM comes no earlier than %s and SIGKILL %.0fs after it at most, so the app gets at most %.0fs to shut down",
		g.Describe(), formatSeconds(stop), left, left)
}
