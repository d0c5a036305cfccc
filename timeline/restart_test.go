package timeline

import (
	"math"
	"testing"
)

// TestCrashLoopReset: the kubelet's back-off entry is garbage-collected
// 600 s after the restart that last updated it (flowcontrol.Backoff GC,
// R-3), so a container that runs r ∈ (300, 600) s before each crash is
// restarted 600 − r after the exit once the pending delay exceeds that, and
// the next restart starts again at 10 s instead of staying at the cap.
func TestCrashLoopReset(t *testing.T) {
	tests := []struct {
		name   string
		run    float64
		v      Version
		lo     []float64 // nominal waits before restarts 1, 2, …
		resets []int     // restarts that come at the GC or an expired entry
		hi     map[int]float64
	}{
		{name: "short runs reach the cap", run: 5, v: Latest,
			lo: []float64{0, 10, 20, 40, 80, 160, 300, 300, 300}},
		{name: "run 300: 300 ≤ 600 − 300, no GC", run: 300, v: Latest,
			lo: []float64{0, 10, 20, 40, 80, 160, 300, 300}},
		{name: "run 400 cycles after the GC at 200 s", run: 400, v: Latest,
			lo:     []float64{0, 10, 20, 40, 80, 160, 200, 10, 20, 40, 80, 160, 200, 10},
			resets: []int{7, 13},
			// 1.35+: GC at 200 (+2 s housekeeping), the retry was queued
			// ≤ 1.5·min(300 − 200, 60) ahead.
			hi: map[int]float64{7: 292, 8: 15}},
		{name: "run 500 cycles after the GC at 100 s", run: 500, v: Latest,
			lo:     []float64{0, 10, 20, 40, 80, 100, 10, 20, 40, 80, 100},
			resets: []int{6, 11},
			// Never later than the expiry itself (160 + 0.5·60).
			hi: map[int]float64{6: 190}},
		{name: "run 500 on 1.34: GC + 2 s + the 10–15 s retry cadence", run: 500, v: Version{1, 34},
			lo:     []float64{0, 10, 20, 40, 80, 100, 10},
			resets: []int{6},
			hi:     map[int]float64{6: 117, 7: 25}},
		{name: "run 590: every delay beyond 10 s is cut by the GC", run: 590, v: Latest,
			lo:     []float64{0, 10, 10, 10, 10},
			resets: []int{3, 5}},
		{name: "run 600 or more: the entry has expired, immediate restarts", run: 700, v: Latest,
			lo:     []float64{0, 0, 0, 0},
			resets: []int{2, 3, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := CrashLoop(tc.run, len(tc.lo), tc.v, nominal())
			isReset := map[int]bool{}
			for _, n := range tc.resets {
				isReset[n] = true
			}
			for i, r := range rs {
				if r.Delay.Lo != tc.lo[i] {
					t.Errorf("restart %d waits %v, want %v", r.N, r.Delay, tc.lo[i])
				}
				if r.Reset != isReset[r.N] {
					t.Errorf("restart %d: reset %v, want %v", r.N, r.Reset, isReset[r.N])
				}
				if hi, ok := tc.hi[r.N]; ok && r.Delay.Hi != hi {
					t.Errorf("restart %d waits %v, want upper edge %v", r.N, r.Delay, hi)
				}
				if r.Delay.Hi < r.Delay.Lo || r.Delay.HiUnbounded {
					t.Errorf("restart %d: bad interval %v", r.N, r.Delay)
				}
			}
		})
	}
}

// TestCrashSeries checks the closed-form sum the Job model uses against the
// step-by-step schedule, and that it stays finite for 2^31−1 restarts.
func TestCrashSeries(t *testing.T) {
	for _, run := range []float64{0, 5, 250, 300, 350, 400, 500, 599, 600, 900} {
		for _, v := range []Version{{1, 34}, Latest} {
			rs := CrashLoop(run, 200, v, nominal())
			lo, extra := 0.0, 0.0
			for n := 1; n <= len(rs); n++ {
				lo += rs[n-1].Delay.Lo
				extra += rs[n-1].Delay.Hi - rs[n-1].Delay.Lo
				gotLo, gotExtra := crashSeries(int64(n), run, v, nominal())
				if math.Abs(gotLo-lo) > 1e-6 || math.Abs(gotExtra-extra) > 1e-6 {
					t.Fatalf("run %v on %v, %d restarts: series (%v, %v), schedule (%v, %v)", run, v, n, gotLo, gotExtra, lo, extra)
				}
			}
		}
	}
	lo, extra := crashSeries(math.MaxInt32, 400, Latest, nominal())
	// Period: 10+20+40+80+160+200 = 510 s over 6 restarts after the first.
	if want := 510 * math.Floor(float64(math.MaxInt32-1)/6); lo < want || lo > want+510 || math.IsInf(extra, 0) {
		t.Errorf("2^31−1 restarts of a 400 s run: %v (+%v), want about %v", lo, extra, want)
	}
}
