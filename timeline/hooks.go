package timeline

import (
	"math"

	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

// preStopHook models a preStop handler under grace G (T-2, T-5): it runs
// only if G > 0, is cut at G, and a sleep action needs ≥ 1.30.
func preStopHook(h *corev1.LifecycleHandler, p workload.Path, G float64, v Version, ctr *corev1.Container) *Hook {
	if h == nil {
		return nil
	}
	hk := &Hook{Path: p, Kind: lifecycleKind(*h)}
	bounded := func(lo, hi float64) Span {
		hi = math.Min(hi, G)
		lo = math.Min(lo, hi)
		return span(Between(lo, hi), p)
	}
	switch {
	case h.Sleep != nil:
		if !sleepHook(hk, h.Sleep, p, v, G) {
			return hk
		}
	case h.Exec != nil:
		// A stated sleep is a lower bound; timeout(1) around the
		// command an upper one.
		s := ExecSleep(h.Exec.Command, ctr)
		hk.Duration = bounded(s.Min, s.Max)
		hk.Path = p.Join("exec.command")
	case h.TCPSocket != nil:
		hk.Skipped = "tcpSocket lifecycle handlers fail at runtime"
		hk.Duration = span(At(0), p)
	default:
		hk.Duration = bounded(0, G)
	}
	if G <= 0 && hk.Skipped == "" {
		hk.Skipped = "the grace period of this kill is 0, so the kubelet skips preStop"
		hk.Duration = span(At(0), p)
		hk.Exact = false
	}
	return hk
}

// postStartHook models a postStart handler (T-6): nothing bounds it except
// a sleep action (validated ≤ TGPS); unknown durations are symbolic.
func postStartHook(h *corev1.LifecycleHandler, p workload.Path, ctr *corev1.Container, v Version) *Hook {
	if h == nil {
		return nil
	}
	hk := &Hook{Path: p, Kind: lifecycleKind(*h)}
	unknown := "postStart of " + ctr.Name
	switch {
	case h.Sleep != nil:
		if !sleepHook(hk, h.Sleep, p, v, math.Inf(1)) {
			return hk
		}
	case h.Exec != nil:
		hk.Path = p.Join("exec.command")
		s := ExecSleep(h.Exec.Command, ctr)
		if s.OK && math.IsInf(s.Min, 1) {
			hk.Duration = span(From(0), hk.Path)
			break
		}
		hk.Duration = Span{Interval: At(s.Min), Plus: []string{unknown}, Paths: []workload.Path{hk.Path}}
	case h.TCPSocket != nil:
		hk.Skipped = "tcpSocket lifecycle handlers fail at runtime: the container is killed and restarted"
		hk.Duration = span(At(0), p)
	default:
		hk.Duration = Span{Interval: At(0), Plus: []string{unknown}, Paths: []workload.Path{p}}
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

// sleepHook fills in a sleep action: its exact seconds, at most limit (a
// preStop is cut at the grace period). It reports false when the action does
// not run on this version, with the reason in hk.Skipped.
func sleepHook(hk *Hook, sl *corev1.SleepAction, p workload.Path, v Version, limit float64) bool {
	hk.Path = p.Join("sleep.seconds")
	if !v.SleepAction() {
		hk.Skipped = sleepUnsupported(v)
		hk.Duration = span(At(0), hk.Path)
		return false
	}
	hk.Exact = true
	hk.Duration = span(At(math.Min(math.Max(float64(sl.Seconds), 0), limit)), hk.Path)
	return true
}

// sleepUnsupported says what happens to a sleep hook before 1.30: 1.29 has
// the field behind an alpha gate and drops it; older API servers reject it.
func sleepUnsupported(v Version) string {
	if v.PodLifecycleSleepAction() == Off {
		return "the sleep action is behind an alpha gate on Kubernetes 1.29; the hook is dropped"
	}
	return "the sleep action does not exist before Kubernetes 1.29; the API server rejects the Pod"
}
