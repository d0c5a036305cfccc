package rules

import (
	"fmt"
	"math"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

var PreStopExceedsGrace = &Rule{
	ID: "PL201", Name: "prestop-exceeds-grace", Title: "preStop hook uses up the grace period",
	Severity: finding.Error,
	Fix: &FixDoc{Safety: finding.Unsafe, Text: "Raises terminationGracePeriodSeconds to the longest preStop sleep of the Pod plus the grace period it has now, " +
		"so the app keeps the time after SIGTERM it had without the hook (unsafe: Pods take longer to stop). " +
		"A hook that never ends gets no fix."},
	Check: func(p *Pass) {
		g := p.GracePeriod()
		for _, h := range p.Hooks() {
			checkHookGrace(p, h, g)
		}
	},
}

func checkHookGrace(p *Pass, h HookRef, g Grace) {
	name := h.Container.Name()
	var fixes []Fix
	report := func(path workload.Path, headline, format string, args ...any) {
		p.Report(Diagnostic{Path: path, Container: name.Name, Message: headline, Detail: fmt.Sprintf(format, args...),
			Related: []Related{g.Related()},
			Fixes:   fixes})
	}
	switch {
	case h.H.Sleep != nil:
		if !p.Version.SleepAction() {
			return // the hook is dropped or rejected: PL207
		}
		s := h.H.Sleep.Seconds
		path := h.Field("sleep.seconds")
		if h.Kind == "preStop" {
			fixes = graceFixes(p, float64(s), g)
		}
		if s > g.Seconds {
			if h.Kind == "preStop" {
				report(path, fmt.Sprintf("preStop of %q sleeps %ds, longer than %s", name, s, g.Describe()),
					"The API server rejects the Pod (sleep.seconds may not exceed terminationGracePeriodSeconds). Set terminationGracePeriodSeconds to %ds plus the time the app needs after SIGTERM, or shorten the sleep.",
					s)
			} else {
				report(path, fmt.Sprintf("postStart of %q sleeps %ds, longer than %s", name, s, g.Describe()),
					"The API server rejects the Pod (a sleep action may not exceed terminationGracePeriodSeconds, in postStart too). Shorten the sleep or set terminationGracePeriodSeconds to at least %ds.",
					s)
			}
			return
		}
		if h.Kind != "preStop" || s <= 0 {
			return
		}
		if msg, left := graceLeft(float64(s), g, true); msg != "" {
			report(path, fmt.Sprintf("preStop of %q leaves the app only %.0fs to shut down before SIGKILL", name, left),
				"The hook sleeps %ds %s. Set terminationGracePeriodSeconds to %ds plus the time the app needs after SIGTERM, or shorten the sleep.%s",
				s, msg, s, outliveHint(p, h, float64(s), g))
		}
	case h.H.Exec != nil && h.Kind == "preStop":
		stated := timeline.ExecSleep(h.H.Exec.Command, h.Container.C)
		s, text, ok := stated.Min, stated.Text, stated.OK
		if !ok || s <= 0 || g.Seconds == 0 {
			return // G = 0 is PL203's finding
		}
		msg, left := graceLeft(s, g, false)
		if msg == "" {
			return
		}
		path := h.Field("exec.command")
		fixes = graceFixes(p, s, g)
		if math.IsInf(s, 1) {
			report(path, fmt.Sprintf("preStop of %q never ends, so the app gets only %.0fs after SIGTERM", name, left),
				"It runs %q, which never ends, %s. Sleep for a bounded time shorter than the grace period.%s", text, msg, outliveHint(p, h, s, g))
			return
		}
		report(path, fmt.Sprintf("preStop of %q leaves the app at most %.0fs to shut down before SIGKILL", name, left),
			"It runs %q, at least %s %s. Set terminationGracePeriodSeconds to %.0fs plus the time the app needs after SIGTERM, or shorten the sleep.%s",
			text, secs(s), msg, math.Ceil(s), outliveHint(p, h, s, g))
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
	return fmt.Sprintf(" If %q only has to outlive the other containers, make it a native sidecar (an init container with restartPolicy: Always, Kubernetes 1.29 and later): the kubelet then stops it after them without a sleep.", h.Container.Name())
}

// graceLeft describes what a preStop of s seconds leaves of the grace
// period, and the seconds left after SIGTERM, or returns "" when the application still gets more than the
// kubelet's 2 s minimum between SIGTERM and SIGKILL. exact is false when s
// is only a lower bound (an exec hook). Grace periods of 2 s or less are
// left alone: there the hook costs the application nothing.
func graceLeft(s float64, g Grace, exact bool) (text string, left float64) {
	G := float64(g.Seconds)
	if G <= minStopGrace {
		return "", 0
	}
	stop := math.Min(s, G)
	left = afterStop(stop, g.Seconds)
	if left > minStopGrace {
		return "", left
	}
	switch {
	case s > G:
		return fmt.Sprintf("and so outlasts %s: the kubelet cuts the hook off at %ds, sends SIGTERM then and SIGKILLs the container %.0fs later (its minimum), so the app gets only %.0fs to shut down",
			g.Describe(), g.Seconds, left, left), left
	case s == G && exact:
		return fmt.Sprintf("and so uses up all of %s: SIGTERM comes at %ds and SIGKILL %.0fs later (the kubelet's minimum), so the app gets only %.0fs to shut down",
			g.Describe(), g.Seconds, left, left), left
	case exact:
		return fmt.Sprintf("of %s: SIGTERM comes after %s and SIGKILL at %s, so the app gets only %.0fs to shut down",
			g.Describe(), secs(stop), secs(stop+left), left), left
	}
	return fmt.Sprintf("of %s: SIGTERM comes no earlier than %s and SIGKILL %.0fs after it at most, so the app gets at most %.0fs to shut down",
		g.Describe(), secs(stop), left, left), left
}

// graceFixes raise the grace period to the longest preStop sleep of the
// Pod plus the grace period it has now: the app keeps the time after SIGTERM its author
// gave it. The Pods then take longer to stop, so the fix is unsafe. A hook
// that never ends gets none.
func graceFixes(p *Pass, sleep float64, g Grace) []Fix {
	if math.IsInf(sleep, 0) || math.IsNaN(sleep) || sleep <= 0 {
		return nil
	}
	// Every preStop of the Pod counts: one grace period covers them all,
	// so fixing one hook at a time must not raise it twice.
	for _, h := range p.Hooks() {
		if h.Kind != "preStop" {
			continue
		}
		switch {
		case h.H.Sleep != nil:
			sleep = math.Max(sleep, float64(h.H.Sleep.Seconds))
		case h.H.Exec != nil:
			if st := timeline.ExecSleep(h.H.Exec.Command, h.Container.C); st.OK && !math.IsInf(st.Min, 0) {
				sleep = math.Max(sleep, st.Min)
			}
		}
	}
	grace := int64(math.Ceil(sleep)) + g.Seconds
	return []Fix{{Title: fmt.Sprintf("Raise terminationGracePeriodSeconds to %d", grace), Safety: finding.Unsafe,
		Ops: []manifest.Op{p.setOrInsert(g.Path, fmt.Sprint(grace))}}}
}
