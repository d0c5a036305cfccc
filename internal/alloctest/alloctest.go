// Package alloctest measures what a function allocates, for tests that
// bound growth in bytes rather than in time: doubling the input of a
// linear step about doubles its allocation, of a quadratic one about
// quadruples it, whatever else the machine is doing.
package alloctest

import "runtime"

// Bytes returns the bytes f allocates.
func Bytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
