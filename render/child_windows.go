package render

import (
	"os"
	"syscall"
	"time"
)

// applyLimits has no kernel limit to set on Windows: the child watches its
// own memory, and the parent stops it at the CPU-time limit from its beats
// (watch), at the wall-clock limit when it waits, and at the output limit
// (SECURITY.md).
func applyLimits(lim Limits) error {
	boundStack(lim)
	return nil
}

// cpuExhausted: Windows has no CPU-time limit for the kernel to end the
// child at; the parent kills it when its beats pass the limit.
func cpuExhausted(*os.ProcessState, time.Duration) bool { return false }

// selfCPU is the CPU time this process used, all threads.
func selfCPU() time.Duration {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	var c, e, k, u syscall.Filetime
	if syscall.GetProcessTimes(h, &c, &e, &k, &u) != nil {
		return 0
	}
	// Filetime counts 100 ns intervals; Nanoseconds would read it as a
	// date since 1601.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(k) + ticks(u)) * 100)
}
