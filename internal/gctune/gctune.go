// Package gctune paces podlint's garbage collector to its heap: GOGC set
// after every collection for the heap to grow to a fixed target, so that
// a small run collects rarely and a large one stays within its memory
// goal. The collector's settings are the process's, so only the podlint
// executable's entry (internal/cli.Main) starts it, never a test or the
// editor server's callers.
//
// Like every package of podlint, it makes no API promise.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// GC tuning, measured on the generated benchmark corpus (10 000 workload
// documents, 2 cores; docs/performance.md). A run's live heap is small:
// findings are held packed (finding.Store) and the cross-object view keeps few
// workload summaries, so it is about 6 MB at 1x and 15 MB at 8x. The peak
// RSS goal (64 MiB, of which the executable's own pages take about 28 and
// the runtime about 6) leaves the heap about 28 MB. So after every
// collection GOGC is set for the heap to grow to gcTarget before the next
// one, or by gcMinHeadroom when the live heap is already close to that,
// within gcMinPercent and gcMaxPercent: a small run collects rarely (GOGC
// about 300 at 1x: 49 collections, where a fixed GOGC 200 made 107) and a
// large one stays near gcTarget (GOGC about 60 at 8x); peak RSS is then
// 57 MiB at 1x and 61 MiB at 8x. With a target of 22 MB, 8x took 8 % more
// CPU for 3 MiB less; with 26 MB it peaked at 63 MiB. A heap that is
// mostly one large input (a 60 MB file, or standard input) is mostly bytes
// without pointers, which the collector does not scan, so collecting it
// often costs little: GOGC 20 keeps such a run about 14 MB above its live
// heap (a 63 MB file peaks at about 124 MiB, and at 147 MiB with GOGC 50).
const (
	gcTarget      = 24 << 20
	gcMinHeadroom = 8 << 20
	gcMaxPercent  = 400
	gcMinPercent  = 20
)

// gcPercent is the GOGC for a live heap of live bytes, input of which are
// large inputs read whole (analyzer.Options.InputBytes): the target is on top of
// them, so that linting one 20 MB file collects as often as linting the
// same documents in many files (it collected twice as often, and took 15 %
// longer, with a target that counted the file).
func gcPercent(live, input uint64) int {
	if live == 0 {
		return gcMaxPercent
	}
	goal := max(gcTarget+input, live+gcMinHeadroom)
	return int(max(gcMinPercent, min(gcMaxPercent, (goal-live)*100/live)))
}

// Start adapts GOGC to the live heap for the rest of the process, unless
// the user set GOGC or GOMEMLIMIT (getenv reads the environment): their
// settings always win. held reports the bytes of large inputs the
// process's run holds at the moment (analyzer.Options.InputBytes). It
// reports whether it started.
func Start(getenv func(string) string, held func() int64) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(gcMaxPercent)
	// A finalizer runs once after each collection that finds its object
	// unreachable; re-arming it on a fresh object follows every cycle.
	// The live heap is what the collection marked (runtime.ReadMemStats
	// would stop the world every cycle, and its HeapAlloc counts what was
	// allocated since).
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		s := new([16]byte)
		runtime.SetFinalizer(s, func(*[16]byte) {
			metrics.Read(live)
			if live[0].Value.Kind() == metrics.KindUint64 {
				debug.SetGCPercent(gcPercent(live[0].Value.Uint64(), uint64(max(held(), 0))))
			}
			arm()
		})
	}
	arm()
	return true
}
