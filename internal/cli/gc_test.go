package cli

import (
	"runtime/debug"
	"testing"
)

// TestGCPercent pins the GC policy: GOGC=200 while the live heap is small,
// falling as it grows, so the extra heap stays within gcHeadroom, down to
// 20 for a heap that is mostly one large input.
func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 200}, {4 << 20, 200}, {8 << 20, 200}, {16 << 20, 100}, {20 << 20, 80}, {32 << 20, 50}, {80 << 20, 20}, {500 << 20, 20}} {
		if got := gcPercent(c.live); got != c.want {
			t.Errorf("live %d MiB: GOGC %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// TestTuneGCRespectsEnvironment: with GOGC or GOMEMLIMIT set, podlint
// leaves the collector alone.
func TestTuneGCRespectsEnvironment(t *testing.T) {
	old := debug.SetGCPercent(123)
	defer debug.SetGCPercent(old)
	for _, env := range []map[string]string{{"GOGC": "50"}, {"GOMEMLIMIT": "1GiB"}} {
		TuneGC(func(k string) string { return env[k] })
		if got := debug.SetGCPercent(123); got != 123 {
			t.Errorf("%v: GOGC changed to %d", env, got)
		}
	}
}
