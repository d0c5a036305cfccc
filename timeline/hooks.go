package timeline

import (
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// sleepRE finds "sleep N" (N with an optional s/m/h suffix, or "infinity")
// as a command word inside a shell string.
var sleepRE = regexp.MustCompile(`(?:^|[\s;&|(])sleep\s+([0-9]+(?:\.[0-9]+)?[smh]?|infinity)(?:$|[\s;&|)])`)

// execSleep returns the longest "sleep N" an exec command runs, as a lower
// bound of its duration (other work may follow; a background sleep is the
// exception this heuristic accepts).
func execSleep(cmd []string) (float64, bool) {
	if len(cmd) == 0 {
		return 0, false
	}
	words := append([]string{path.Base(cmd[0])}, cmd[1:]...)
	text := strings.Join(words, " ")
	best, found := 0.0, false
	for _, m := range sleepRE.FindAllStringSubmatch(text, -1) {
		arg := m[1]
		var sec float64
		if arg == "infinity" {
			sec = math.Inf(1)
		} else {
			mult := 1.0
			switch arg[len(arg)-1] {
			case 's':
				arg = arg[:len(arg)-1]
			case 'm':
				arg, mult = arg[:len(arg)-1], 60
			case 'h':
				arg, mult = arg[:len(arg)-1], 3600
			}
			f, err := strconv.ParseFloat(arg, 64)
			if err != nil {
				continue
			}
			sec = f * mult
		}
		if !found || sec > best {
			best, found = sec, true
		}
	}
	return best, found
}

// preStopHook models a preStop handler under grace G (T-2, T-5): it runs
// only if G > 0, is cut at G, and a sleep action needs ≥ 1.30.
func preStopHook(h *corev1.LifecycleHandler, p string, G float64, v Version) *Hook {
	if h == nil {
		return nil
	}
	hk := &Hook{Path: p, Kind: lifecycleKind(*h)}
	bounded := func(lo float64) Span {
		lo = math.Min(lo, G)
		return span(Between(lo, G), p)
	}
	switch {
	case h.Sleep != nil:
		hk.Path = Join(p, "sleep.seconds")
		if !v.SleepAction() {
			hk.Skipped = "the sleep action is not enabled before Kubernetes 1.30; the hook is dropped"
			hk.Duration = span(At(0), hk.Path)
			return hk
		}
		hk.Exact = true
		hk.Duration = span(At(math.Min(math.Max(float64(h.Sleep.Seconds), 0), G)), hk.Path)
	case h.Exec != nil:
		if s, ok := execSleep(h.Exec.Command); ok {
			hk.Duration = bounded(s)
		} else {
			hk.Duration = bounded(0)
		}
		hk.Path = Join(p, "exec.command")
	case h.TCPSocket != nil:
		hk.Skipped = "tcpSocket lifecycle handlers fail at runtime"
		hk.Duration = span(At(0), p)
	default:
		hk.Duration = bounded(0)
	}
	if G <= 0 && hk.Skipped == "" {
		hk.Skipped = "the grace period is 0, so the kubelet skips preStop"
		hk.Duration = span(At(0), p)
		hk.Exact = false
	}
	return hk
}

// postStartHook models a postStart handler (T-6): nothing bounds it except
// a sleep action (validated ≤ TGPS); unknown durations are symbolic.
func postStartHook(h *corev1.LifecycleHandler, p, container string, v Version) *Hook {
	if h == nil {
		return nil
	}
	hk := &Hook{Path: p, Kind: lifecycleKind(*h)}
	unknown := "postStart of " + container
	switch {
	case h.Sleep != nil:
		hk.Path = Join(p, "sleep.seconds")
		if !v.SleepAction() {
			hk.Skipped = "the sleep action is not enabled before Kubernetes 1.30; the hook is dropped"
			hk.Duration = span(At(0), hk.Path)
			return hk
		}
		hk.Exact = true
		hk.Duration = span(At(math.Max(float64(h.Sleep.Seconds), 0)), hk.Path)
	case h.Exec != nil:
		hk.Path = Join(p, "exec.command")
		s, ok := execSleep(h.Exec.Command)
		if ok && math.IsInf(s, 1) {
			hk.Duration = span(From(0), hk.Path)
			break
		}
		hk.Duration = Span{Interval: At(s), Plus: []string{unknown}, Paths: []string{hk.Path}}
	case h.TCPSocket != nil:
		hk.Skipped = "tcpSocket lifecycle handlers fail at runtime: the container is killed and restarted"
		hk.Duration = span(At(0), p)
	default:
		hk.Duration = Span{Interval: At(0), Plus: []string{unknown}, Paths: []string{p}}
	}
	return hk
}

func lifecycleKind(h corev1.LifecycleHandler) string {
	switch {
	case h.Sleep != nil:
		return "sleep"
	case h.Exec != nil:
		return "exec"
	case h.HTTPGet != nil:
		return "httpGet"
	case h.TCPSocket != nil:
		return "tcpSocket"
	}
	return ""
}
