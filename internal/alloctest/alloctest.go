// Package alloctest measures what a function allocates, for tests that
// bound growth in bytes rather than in time: doubling the input of a
// linear step about doubles its allocation, of a quadratic one about
// quadruples it, whatever else the machine is doing.
//
// The counters it reads are the process's, so anything else the process
// allocates meanwhile (the runtime, a goroutine an earlier test left
// running) is counted too. That only ever adds bytes: Min keeps the
// smallest of several runs, and Exceeds ignores growth below Floor, so a
// few stray kilobytes cannot fail a test about a function that allocates a
// few hundred bytes. Tests that use it must not call t.Parallel, or the
// other tests of their package would be counted as theirs.
package alloctest

import "runtime"

// Floor is the growth, in bytes, that Exceeds never judges: more than the
// runtime and a stray goroutine allocate during one measurement, far less
// than any quadratic step the cost tests look for shows at their sizes.
const Floor = 64 << 10

// repeats is how many runs Min takes the smallest of.
const repeats = 3

// Bytes returns the bytes f allocates in one run. It is for bounds far
// above what the rest of the process could add (megabytes); a ratio of two
// measurements uses Min and Exceeds.
func Bytes(f func()) uint64 {
	var before, after runtime.MemStats
	// Two collections empty every sync.Pool (the first moves its objects
	// to the victim cache, the second drops them), so that f allocates
	// what it pools itself, not more or less depending on what an earlier
	// run left in a pool and on when the collector ran since.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Min returns the fewest bytes f allocates in three runs, so f must do the
// same work each time it is called.
func Min(f func()) uint64 {
	least := Bytes(f)
	for range repeats - 1 {
		least = min(least, Bytes(f))
	}
	return least
}

// Exceeds reports whether large, the bytes allocated for the bigger of two
// inputs, is more than ratio times small, the bytes for the smaller one,
// plus Floor: with twice the input and a ratio of 2.5, a step that is
// worse than linear.
func Exceeds(small, large uint64, ratio float64) bool {
	return float64(large) > ratio*float64(small)+Floor
}
