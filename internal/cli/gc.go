package cli

import (
	"runtime"
	"runtime/debug"
)

// GC tuning. Measured on the generated benchmark corpus (10 000 workload
// documents, 2 cores; docs/performance.md): GOGC=200 cuts CPU time by about
// 15 % on a run whose live heap is small, and a run's live heap is small:
// findings are held packed (finding.Store) and the release view keeps few
// workload summaries (analyzer.summaryBudget), so it is about 7 MB at 1x and
// 15 MB at 8x. The peak RSS goal (64 MiB, of which the executable's own
// pages take about 28) leaves the heap about 30 MB, so the collector gets
// GOGC=200's headroom only while the heap is small: after every collection
// the percentage is set so that the heap may grow by gcHeadroom over the
// live heap, between gcMinPercent and 200. With a 48 MB headroom and a
// floor of 100 the 8x corpus peaked at 84 MiB; with 16 MB it peaks at
// 63 MiB for about 5 % more CPU. A heap that is mostly one large input (a
// 60 MB file, or standard input) is mostly bytes without pointers, which
// the collector does not scan, so collecting it often costs little: the
// floor of 20 keeps such a run within about 16 MB of its live heap
// (125 MiB peak for a 63 MB file, 150 with a floor of 50).
const (
	gcMaxPercent = 200
	gcMinPercent = 20
	gcHeadroom   = 16 << 20
)

// gcPercent is the GOGC for a live heap of live bytes.
func gcPercent(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(max(gcMinPercent, min(gcMaxPercent, gcHeadroom*100/live)))
}

// TuneGC adapts GOGC to the live heap for the rest of the process, unless
// the user set GOGC or GOMEMLIMIT (getenv reads the environment): their
// settings always win. cmd/podlint calls it; tests running Run do not.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcMaxPercent)
	// A finalizer runs once after each collection that finds its object
	// unreachable; re-arming it on a fresh object follows every cycle.
	var arm func()
	arm = func() {
		s := new([16]byte)
		runtime.SetFinalizer(s, func(*[16]byte) {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			debug.SetGCPercent(gcPercent(ms.HeapAlloc))
			arm()
		})
	}
	arm()
}
