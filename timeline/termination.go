package timeline

import (
	"math"

	"github.com/podlint/podlint/workload"
)

// killAfter is the latest SIGKILL for a container whose stop signal goes out
// `stop` seconds into a kill with grace G: the kubelet subtracts the whole
// seconds already spent (preStop, sidecar wait) from G and never hands the
// runtime less than 2 s (T-2 steps 2–4). Sub-second truncation is ignored.
func killAfter(stop, G float64) float64 {
	if math.IsInf(stop, 1) {
		return stop
	}
	return stop + math.Max(G-math.Floor(stop), MinimumStopGrace)
}

// killRange maps an interval of stop instants to SIGKILL instants.
// killAfter is not monotonic inside one second (floor), so both edges are
// evaluated and ordered.
func killRange(stop Interval, G float64) Interval {
	a, b := killAfter(stop.Lo, G), killAfter(stop.Hi, G)
	r := Between(math.Min(a, b), math.Max(a, b))
	r.HiUnbounded = stop.HiUnbounded
	return r.norm()
}

// exitOf is when a container is gone: shutdown seconds after the stop
// signal, but no later than SIGKILL. Unknown shutdown: anywhere between.
func exitOf(stop, kill Interval, shutdown Duration) Interval {
	if shutdown.usable() {
		return Earlier(stop.Shift(shutdown.Seconds), kill)
	}
	r := Interval{Lo: stop.Lo, Hi: kill.Hi, HiUnbounded: kill.HiUnbounded}
	return r.norm()
}

// graceAfterPreStop is a deleted Pod's container kill on 1.22 to 1.27
// (Version.PreStopInGrace): the pod worker passed the grace period to
// killContainer as an override, which replaced the grace the preStop hook
// had left, so SIGKILL comes G after the stop signal (plus the runtime's
// stop call, x).
func graceAfterPreStop(t *Termination, shutdown Duration, x float64) {
	kill := t.StopSignal.Interval.Shift(t.GracePeriod.V).Add(Between(0, x))
	t.SIGKILL = span(closedHi(kill), t.SIGKILL.Paths...)
	t.Exit = span(closedHi(exitOf(t.StopSignal.Interval, kill, shutdown)), t.Exit.Paths...)
}

// terminate models one container kill that starts up to `lag` seconds
// after the trigger (λ for probe kills: the verdict reaches the pod worker
// at once on a quiet node, 0 for deletes): preStop, stop signal, SIGKILL
// with the 2 s floor, exit. x is the runtime's stop call (T-9): containerd
// SIGKILLs up to x after the timeout the kubelet hands it. Probe kills pass
// 0: there λ, which delays the SIGKILL as much as the stop signal, holds
// the SIGKILLs a real kubelet showed (0.10–0.14 s after the grace).
func terminate(reason string, G Value, pre *Hook, lag float64, shutdown Duration, x float64) *Termination {
	p := At(0)
	if pre != nil && pre.Skipped == "" {
		p = pre.Duration.Interval
	}
	paths := []workload.Path{G.Path}
	if pre != nil {
		paths = append(paths, pre.Path)
	}
	delay := Between(0, lag)
	stop := p.Add(delay)
	kill := killRange(p, G.V).Add(delay).Add(Between(0, x))
	return &Termination{
		Reason:      reason,
		GracePeriod: G,
		PreStop:     pre,
		StopSignal:  span(closedHi(stop), paths...),
		SIGKILL:     span(closedHi(kill), paths...),
		Exit:        span(closedHi(exitOf(stop, kill, shutdown)), paths...),
	}
}
