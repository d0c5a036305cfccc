package alloctest

import "testing"

var sink []byte

func TestBytesCountsWhatFAllocates(t *testing.T) {
	if n := Bytes(func() { sink = make([]byte, 1<<20) }); n < 1<<20 {
		t.Errorf("Bytes = %d for a 1 MiB allocation; want at least 1 MiB", n)
	}
}

// TestMinIgnoresAStrayRun: one run that allocates more (as when another
// goroutine allocates during it) does not raise the measurement.
func TestMinIgnoresAStrayRun(t *testing.T) {
	calls := 0
	n := Min(func() {
		calls++
		size := 4 << 10
		if calls == 1 {
			size = 4 << 20
		}
		sink = make([]byte, size)
	})
	if calls != repeats {
		t.Errorf("Min ran f %d times; want %d", calls, repeats)
	}
	if n >= 1<<20 {
		t.Errorf("Min = %d; want the small runs' count, not the stray run's 4 MiB", n)
	}
}

func TestExceeds(t *testing.T) {
	for _, tc := range []struct {
		small, large uint64
		want         bool
	}{
		{160, 320, false},            // linear
		{160, 320 + 8<<10, false},    // a few stray KiB on a tiny function
		{160, Floor, false},          // growth within the floor
		{1 << 20, 2 << 20, false},    // linear at scale
		{1 << 20, 4 << 20, true},     // quadratic at scale
		{100 << 10, 400 << 10, true}, // quadratic just above the floor
	} {
		if got := Exceeds(tc.small, tc.large, 2.5); got != tc.want {
			t.Errorf("Exceeds(%d, %d, 2.5) = %v; want %v", tc.small, tc.large, got, tc.want)
		}
	}
}
