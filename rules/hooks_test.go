package rules

import (
	"testing"
)

func TestAfterStop(t *testing.T) {
	for _, tc := range []struct {
		stop float64
		g    int64
		want float64
	}{
		{0, 30, 30},   // no preStop: the whole grace
		{15, 30, 15},  // SIGKILL at 30
		{28, 30, 2},   // at the floor
		{29.5, 30, 2}, // floor: 30 − 29 = 1 → 2
		{30, 30, 2},
		{0, 0, 2},   // TGPS 0 still gets 2 s
		{40, 45, 5}, // E-6
	} {
		if got := afterStop(tc.stop, tc.g); got != tc.want {
			t.Errorf("afterStop(%v, %d) = %v, want %v", tc.stop, tc.g, got, tc.want)
		}
	}
}
