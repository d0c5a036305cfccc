package timeline

import (
	"math"
	"testing"
	"time"
)

// TestFormatDuration holds the one duration style to Go's: every value
// parses back with time.ParseDuration to what was printed.
func TestFormatDuration(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0s"}, {0.5, "500ms"}, {0.0015, "2ms"}, {1, "1s"}, {1.5, "1.5s"}, {90, "90s"}, {78.5, "78.5s"},
		{119, "119s"}, {120, "2m"}, {302, "5m2s"}, {910, "15m10s"}, {3090.5, "51m30.5s"}, {3600, "1h"},
		{3605, "1h5s"}, {200000, "55h33m20s"}, {-30, "-30s"}, {math.Inf(1), "forever"},
	} {
		got := FormatDuration(c.s)
		if got != c.want {
			t.Errorf("FormatDuration(%g) = %q, want %q", c.s, got, c.want)
		}
		if math.IsInf(c.s, 0) {
			continue
		}
		d, err := time.ParseDuration(got)
		if err != nil {
			t.Errorf("FormatDuration(%g) = %q, which Go cannot parse: %v", c.s, got, err)
		} else if math.Abs(d.Seconds()-math.Round(c.s*1000)/1000) > 1e-9 {
			t.Errorf("FormatDuration(%g) = %q, which Go reads as %v", c.s, got, d)
		}
	}
	for _, c := range []struct {
		i    Interval
		want string
	}{{Between(34, 45), "34s–45s"}, {At(12), "12s"}, {From(270), "at least 4m30s"}, {Between(30, 32), "30s–32s"}} {
		if got := c.i.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.i, got, c.want)
		}
	}
}
