package rules

import "testing"

func TestNumberAndDays(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{number(2147483647), "2147483647"},
		{number(1.5), "1.5"},
		{number(3), "3"},
		{dur(86399), "23h59m59s"},
		{dur(86400), "1d"},
		{dur(200000), "2d7h33m20s"},
		{dur(90061), "1d1h1m1s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
