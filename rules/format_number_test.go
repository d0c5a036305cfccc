package rules

import "testing"

// TestNumberAndDays: counts print in full, and long durations in hours
// (Go's style has no days: time.ParseDuration reads every one).
func TestNumberAndDays(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{number(2147483647), "2147483647"},
		{number(1.5), "1.5"},
		{number(3), "3"},
		{dur(86399), "23h59m59s"},
		{dur(86400), "24h"},
		{dur(200000), "55h33m20s"},
		{dur(90061), "25h1m1s"},
		{dur(0.2), "200ms"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
