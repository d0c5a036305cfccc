package plot

import "testing"

// Large values print in full, never in %g's exponent form.
func TestLargeNumbersPrintInFull(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{tickLabel(3e9, 1e9), "50000000m"},
		{secs(2147483647), "596523h14m7s"},
		{number(2147483647) + " replicas", "2147483647 replicas"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
