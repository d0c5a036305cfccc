package gctune

import (
	"runtime/debug"
	"testing"
)

// TestGCPercent pins the GC policy: the heap may grow to gcTarget, or by
// gcMinHeadroom past it, with GOGC between 20 and 400.
func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 400}, {2 << 20, 400}, {6 << 20, 300}, {12 << 20, 100}, {16 << 20, 50}, {32 << 20, 25}, {80 << 20, 20}, {500 << 20, 20}} {
		if got := gcPercent(c.live, 0); got != c.want {
			t.Errorf("live %d MiB: GOGC %d, want %d", c.live>>20, got, c.want)
		}
	}
	// A 21 MB input on top of 5 MB: the target is past the input.
	if got := gcPercent(26<<20, 21<<20); got != 73 {
		t.Errorf("with a 21 MB input: GOGC %d, want 73", got)
	}
}

// TestStartRespectsEnvironment: with GOGC or GOMEMLIMIT set, podlint
// leaves the collector alone.
func TestStartRespectsEnvironment(t *testing.T) {
	old := debug.SetGCPercent(123)
	defer debug.SetGCPercent(old)
	for _, env := range []map[string]string{{"GOGC": "50"}, {"GOMEMLIMIT": "1GiB"}} {
		started := Start(func(k string) string { return env[k] }, func() int64 { return 0 })
		if got := debug.SetGCPercent(123); got != 123 || started {
			t.Errorf("%v: GOGC changed to %d", env, got)
		}
	}
}
