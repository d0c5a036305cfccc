package timeline

import "math"

// maxRestarts bounds CrashLoop's output so a caller's typo cannot allocate
// gigabytes.
const maxRestarts = 10000

// crashDelay is the nominal back-off before restart n (R-3, F-10): the
// first restart is immediate, then initial·2^(n−2) capped at max, and
// capped by the 600 s reset when the container ran r < 600 s; a run of
// 600 s or more expires the entry, so the restart is immediate.
func crashDelay(n int64, r float64, p Params) float64 {
	if n <= 1 || r >= CrashLoopResetAfter {
		return 0
	}
	d := p.CrashLoopInitial
	for i := int64(2); i < n && d < p.CrashLoopMax; i++ {
		d *= 2
	}
	return math.Min(math.Min(d, p.CrashLoopMax), CrashLoopResetAfter-r)
}

// crashOvershoot is how much later than its back-off a refused restart
// really happens: ≤ 1.34 the pod worker retries on a 10 s × U[1, 1.5]
// cadence (< 15 s late); since 1.35 it is re-queued at the expiry with
// jitter up to 0.5·min(B, 60 s).
func crashOvershoot(B float64, v Version) float64 {
	if B <= 0 {
		return 0
	}
	if v.RequeueAtBackoffExpiry() {
		return 0.5 * math.Min(B, 60)
	}
	return 15
}

// CrashLoop is the restart schedule of a container that exits `run` seconds
// after each start (F-10), restarts times. Lo edges are E-5's nominal
// values; Hi adds ε per exit and the requeue overshoot of this version.
func CrashLoop(run float64, restarts int, v Version, p Params) []Restart {
	v = v.orLatest()
	p = p.clean().crashCurve(v)
	if math.IsNaN(run) || run < 0 {
		run = 0
	}
	if restarts > maxRestarts {
		restarts = maxRestarts
	}
	out := make([]Restart, 0, max(restarts, 0))
	start := At(0)
	for n := 1; n <= restarts; n++ {
		exit := start.Shift(run).Add(Between(0, p.Epsilon))
		B := crashDelay(int64(n), run, p)
		delay := Between(B, B+crashOvershoot(B, v))
		start = exit.Add(delay)
		out = append(out, Restart{N: n, Exit: span(exit), Delay: delay, Start: span(start)})
	}
	return out
}

// series sums term(1..n) without looping n times (n can be 2^31−1): every
// back-off series here is non-decreasing and constant once capped, so when
// two consecutive terms (after the first) are equal the rest is multiplied.
func series(n int64, term func(k int64) float64) float64 {
	sum := 0.0
	for k := int64(1); k <= n; k++ {
		t := term(k)
		if k > 2 && t == term(k-1) || k > 4096 {
			return sum + float64(n-k+1)*t
		}
		sum += t
	}
	return sum
}

// jobBackoff is the controller's delay before re-creating a pod after the
// k-th consecutive failure: min(10·2^(k−1), cap).
func jobBackoff(k int64, cap float64) float64 {
	d := float64(JobInitialBackoff)
	for i := int64(1); i < k && d < cap; i++ {
		d *= 2
	}
	return math.Min(d, cap)
}
