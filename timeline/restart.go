package timeline

import "math"

// maxRestarts bounds CrashLoop's output so a caller's typo cannot allocate
// gigabytes.
const maxRestarts = 10000

// CrashBackoff replays the kubelet's crash-loop back-off entry for one
// container that exits `run` seconds after each start (R-3, F-10). The
// entry is what flowcontrol.Backoff stores for the container: none before
// the first restart, then the delay the next restart has to wait.
//
//   - No entry: the restart is immediate and Next creates the entry at the
//     initial delay.
//   - A run longer than the reset window (HasExpiredFunc, 600 s) expires the
//     entry: immediate restart, entry re-created at the initial delay.
//   - Otherwise the restart waits the entry's delay B and the entry doubles
//     (capped). But housekeeping garbage-collects an entry 600 s after it was
//     last updated (at the previous restart), that is 600 − run after this
//     exit: when B is longer than that, the restart comes at the GC, on the
//     next pod sync, and the entry starts again at the initial delay. Runs of
//     300–600 s therefore cycle 10, 20, 40 … instead of settling at the cap.
type CrashBackoff struct {
	run   float64
	v     Version
	p     Params
	entry float64 // 0: no entry
}

// NewCrashBackoff starts the back-off of a container that runs `run`
// seconds before each exit (negative or NaN counts as 0).
func NewCrashBackoff(run float64, v Version, p Params) *CrashBackoff {
	if math.IsNaN(run) || run < 0 {
		run = 0
	}
	v = v.orLatest()
	return &CrashBackoff{run: run, v: v, p: p.clean().crashCurve(v)}
}

// Next is the wait from an exit to the next restart; it advances the entry.
// Reset is true when the entry was expired or garbage-collected first.
func (b *CrashBackoff) Next() (wait Interval, reset bool) {
	initial, maxB := b.p.CrashLoopInitial, b.p.CrashLoopMax
	switch {
	case b.entry == 0:
		b.entry = initial
		return At(0), false
	case b.run >= CrashLoopResetAfter:
		b.entry = initial
		return At(0), true
	}
	B := b.entry
	gc := CrashLoopResetAfter - b.run
	if B <= gc {
		b.entry = math.Min(2*B, maxB)
		return Between(B, B+crashOvershoot(B, b.v)), false
	}
	b.entry = initial
	return Between(gc, math.Min(gc+gcOvershoot(B, gc, b.v), B+crashOvershoot(B, b.v))), true
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

// gcOvershoot bounds how long after the GC instant (gc seconds after the
// exit) the restart happens: the GC runs in housekeeping every 2 s and
// nothing re-queues the Pod for it, so the restart waits for the pod
// worker's next retry. ≤ 1.34 that is the 10 s × U[1, 1.5] cadence; since
// 1.35 the retry was scheduled towards the expiry B, at most min(B − now,
// 60 s) × 1.5 ahead (completeWork).
func gcOvershoot(B, gc float64, v Version) float64 {
	if v.RequeueAtBackoffExpiry() {
		return CrashLoopGCPeriod + 1.5*math.Min(B-gc, 60)
	}
	return CrashLoopGCPeriod + 15
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
	b := NewCrashBackoff(run, v, p)
	start := At(0)
	for n := 1; n <= restarts; n++ {
		exit := start.Shift(run).Add(Between(0, p.Epsilon))
		delay, reset := b.Next()
		start = exit.Add(delay)
		out = append(out, Restart{N: n, Exit: span(exit), Delay: delay, Start: span(start), Reset: reset})
	}
	return out
}

// crashSeries sums the waits before the first n restarts (Lo edges, and the
// Hi − Lo overshoots) without stepping n times (n can be 2^31−1): the
// back-off entry takes few distinct values, so the sequence is periodic
// once an entry value repeats.
func crashSeries(n int64, run float64, v Version, p Params) (lo, extra float64) {
	b := NewCrashBackoff(run, v, p)
	seen := map[float64]int64{}
	los, extras := []float64{0}, []float64{0} // prefix sums
	for k := int64(0); k < n; k++ {
		if j, ok := seen[b.entry]; ok && b.entry != 0 {
			period := k - j
			cycles := (n - k) / period
			rest := (n - k) % period
			lo = los[k] + float64(cycles)*(los[k]-los[j]) + (los[j+rest] - los[j])
			extra = extras[k] + float64(cycles)*(extras[k]-extras[j]) + (extras[j+rest] - extras[j])
			return lo, extra
		}
		seen[b.entry] = k
		w, _ := b.Next()
		los = append(los, los[k]+w.Lo)
		extras = append(extras, extras[k]+w.Hi-w.Lo)
	}
	return los[n], extras[n]
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

// ProbeKillRestartRule says why the waits of a probe-killed container rise
// and fall (0s, 80s–110s, 0s–3m10s), in the words the timeline and the
// rules share.
const ProbeKillRestartRule = "a restart is immediate when the time since the previous kill, a run plus any wait, is at least the crash-loop back-off, else it waits for the back-off to run out"

// probeKillRestarts is the restart schedule of a container that a probe
// kills `cycle` seconds after each start (start → exit; R-3 liveness kills,
// relative to the first start). The sync that kills the container also
// starts its replacement, from a status taken before the kill, so
// doBackOff looks at the instance that exited before the killed one:
//
//   - restart 1: no exited instance yet, so no check and no entry;
//   - restart n ≥ 2: if an entry exists and the killed instance's exit
//     came less than the entry's delay B after the previous exit, the
//     start is refused and later syncs, now seeing the new exit, wait B
//     from it (plus the re-queue overshoot) and advance the entry;
//     otherwise the restart is immediate and Next advances the entry from
//     the previous exit (created at the initial delay, then doubled).
//
// Each run has its own length within cycle (the probe ticker keeps its
// phase across restarts), so a long run can make a restart immediate that
// a short one would have delayed: runs of mixed lengths restart sooner
// than any one length repeated (a fifth restart at 90.15 s observed where
// every constant cycle gives at least 102.5 s). While no back-off can
// reach the 600 s expiry the entry takes the same values on every path,
// and killPaths follows the two ways each restart can go (refused or
// immediate) as intervals; near the expiry the schedule is the hull of the
// constant-cycle runs at the cycle's edges.
func probeKillRestarts(cycle Interval, n int, v Version, p Params) []Restart {
	if cycle.HiUnbounded || n <= 0 {
		return nil
	}
	v = v.orLatest()
	p = p.clean().crashCurve(v)
	if cycle.Hi+p.CrashLoopMax+crashOvershoot(p.CrashLoopMax, v) < CrashLoopResetAfter {
		return killPaths(cycle, n, v, p)
	}
	var out []Restart
	for _, c := range []float64{cycle.Lo, cycle.Hi} {
		for _, late := range []bool{false, true} {
			run := killLoop(c, late, n, v, p)
			for i, r := range run {
				if len(out) <= i {
					out = append(out, r)
					continue
				}
				o := &out[i]
				o.Exit.Interval = hull(o.Exit.Interval, r.Exit.Interval)
				o.Delay = hull(o.Delay, r.Delay)
				o.Start.Interval = hull(o.Start.Interval, r.Start.Interval)
				o.Reset = o.Reset || r.Reset
			}
		}
	}
	return out
}

// healthUnknownRestarts is probeKillRestarts for runs of unknown length,
// at least cycle.Lo (the earliest kill) each: a container that may be
// healthy for any while before the probe kills it. Restarts 1 and 2 are
// immediate as always (no exited instance, then no entry); from restart 3
// a run at least as long as the entry makes the restart immediate, and a
// shorter one waits the entry, which is at most the initial delay doubled
// n − 3 times (runs past the 600 s expiry only make it smaller), plus the
// re-queue slack. Exits and starts are later by the runs: no upper edge.
// Their lower edges are killPaths' over runs up to the maximum back-off
// (a longer run decides nothing a run of the entry's length would not,
// later), and never above the 600 s before which no entry can expire.
func healthUnknownRestarts(cycle Interval, n int, v Version, p Params) []Restart {
	if n <= 0 {
		return nil
	}
	v = v.orLatest()
	p = p.clean().crashCurve(v)
	out := killPaths(Interval{Lo: cycle.Lo, Hi: math.Max(cycle.Lo, p.CrashLoopMax)}, n, v, p)
	entry := 0.0 // the largest entry any run lengths leave before restart i
	for i := range out {
		r := &out[i]
		if entry > 0 {
			r.Delay = Between(0, entry+crashOvershoot(entry, v))
		}
		r.Exit = span(From(math.Min(r.Exit.Lo, CrashLoopResetAfter)))
		r.Start = span(From(math.Min(r.Start.Lo, CrashLoopResetAfter)))
		switch {
		case r.N == 2:
			entry = p.CrashLoopInitial
		case r.N > 2:
			entry = math.Min(2*entry, p.CrashLoopMax)
		}
	}
	return out
}

// killPath is the set of instants one way through probeKillRestarts can
// be at after a restart: when the previous instance exited (as the
// back-off sees it) and how long the restart waited after that (0 when
// immediate), so that the running instance started at exit + wait.
type killPath struct {
	exit, wait Interval
}

// killPaths follows probeKillRestarts for runs of any length in cycle,
// each restart either refused or immediate, as intervals (a hull: it may
// hold instants no sequence of runs reaches, never miss one that does).
// Whether a restart is refused depends on the wait before the run plus
// the run (the time between the two exits), so the two are bounded
// together. With no expiry in reach, the entry before restart n is the
// same on every path: none for n ≤ 2, then the initial delay doubled
// n − 3 times.
func killPaths(cycle Interval, n int, v Version, p Params) []Restart {
	out := make([]Restart, 0, n)
	paths := []killPath{{exit: At(0), wait: At(0)}}
	entry := 0.0
	for i := 1; i <= n; i++ {
		r := Restart{N: i}
		var next []killPath
		add := func(exit, wait Interval) {
			start := Interval{Lo: exit.Lo + wait.Lo, Hi: exit.Hi + wait.Hi}
			if len(next) == 0 {
				r.Exit.Interval, r.Delay, r.Start.Interval = exit, wait, start
			} else {
				r.Exit.Interval, r.Delay, r.Start.Interval = hull(r.Exit.Interval, exit), hull(r.Delay, wait), hull(r.Start.Interval, start)
			}
			next = append(next, killPath{exit: exit, wait: wait})
		}
		for _, k := range paths {
			// gap: from the previous exit to this one (wait + run).
			gap := Interval{Lo: k.wait.Lo + cycle.Lo, Hi: k.wait.Hi + cycle.Hi}
			if i <= 2 {
				add(Interval{Lo: k.exit.Lo + gap.Lo, Hi: k.exit.Hi + gap.Hi}, At(0))
				continue
			}
			if gap.Lo < entry {
				add(Interval{Lo: k.exit.Lo + gap.Lo, Hi: k.exit.Hi + math.Min(gap.Hi, entry)}, Between(entry, entry+crashOvershoot(entry, v)))
			}
			if gap.Hi >= entry {
				add(Interval{Lo: k.exit.Lo + math.Max(gap.Lo, entry), Hi: k.exit.Hi + gap.Hi}, At(0))
			}
		}
		paths = mergeKillPaths(next)
		switch {
		case i == 2:
			entry = p.CrashLoopInitial
		case i > 2:
			entry = math.Min(2*entry, p.CrashLoopMax)
		}
		out = append(out, r)
	}
	return out
}

// mergeKillPaths keeps one path per kind of wait (immediate, or each
// back-off), so that the paths do not double with every restart.
func mergeKillPaths(ps []killPath) []killPath {
	var out []killPath
	for _, k := range ps {
		merged := false
		for j := range out {
			if out[j].wait == k.wait {
				out[j].exit = hull(out[j].exit, k.exit)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, k)
		}
	}
	return out
}

// killLoop replays probeKillRestarts for one cycle length; late takes the
// full re-queue overshoot after each refused restart, else none.
func killLoop(cycle float64, late bool, n int, v Version, p Params) []Restart {
	out := make([]Restart, 0, n)
	entry, updated := 0.0, 0.0 // entry 0: none
	prevExit, start := 0.0, 0.0
	for i := 1; i <= n; i++ {
		exit := start + cycle
		// wait is the path taken; a refused restart's delay is reported
		// with its whole re-queue slack whichever path is taken.
		wait, slack, reset := 0.0, 0.0, false
		if i > 1 {
			refused := entry != 0 && prevExit-updated <= CrashLoopResetAfter && exit-prevExit < entry
			switch {
			case refused && exit-updated > CrashLoopResetAfter:
				// The later syncs check the new exit, and the entry has
				// expired for it: immediate after all.
				entry, updated, reset = p.CrashLoopInitial, exit, true
			case refused:
				wait, slack = entry, crashOvershoot(entry, v)
				if late {
					wait += slack
				}
				entry = math.Min(2*entry, p.CrashLoopMax)
				updated = exit + wait
			case entry == 0 || prevExit-updated > CrashLoopResetAfter:
				reset = entry != 0
				entry, updated = p.CrashLoopInitial, exit
			default:
				entry = math.Min(2*entry, p.CrashLoopMax)
				updated = exit
			}
		}
		prevExit = exit
		start = exit + wait
		delay := Between(wait, wait+slack)
		if late {
			delay = Between(wait-slack, wait)
		}
		out = append(out, Restart{N: i, Exit: span(At(exit)), Delay: delay, Start: span(At(start)), Reset: reset})
	}
	return out
}

// hull is the smallest interval holding a and b.
func hull(a, b Interval) Interval {
	r := Interval{Lo: math.Min(a.Lo, b.Lo), HiUnbounded: a.HiUnbounded || b.HiUnbounded}
	r.Hi = math.Max(a.Hi, b.Hi)
	return r.norm()
}
