package cli

import (
	"runtime"
	"runtime/debug"
)

// GC tuning. Measured on the generated benchmark corpus (10 000 workload
// documents, 2 cores; docs/performance.md): GOGC=200 cuts CPU time by about
// 15 % on a run whose live heap is small (25 MB at 1x), but podlint still
// keeps every finding and the release view until the end of a run, so the
// live heap grows with the input (155 MB at 8x, 105 MB for one 60 MB file),
// and there GOGC=200 added 100-240 MB of peak RSS for 5-8 % of CPU. So the
// collector gets GOGC=200's headroom only while it is small: after every
// collection the percentage is set so that the heap may grow by at most
// gcHeadroom over the live heap, between 100 (Go's default) and 200.
const (
	gcMaxPercent = 200
	gcHeadroom   = 48 << 20
)

// gcPercent is the GOGC for a live heap of live bytes.
func gcPercent(live uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	return int(max(100, min(gcMaxPercent, gcHeadroom*100/live)))
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
