package policy

import (
	"regexp"
	"strings"
	"testing"
)

// validName accepts exactly what its documented pattern does.
func TestValidNameIsThePattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$`)
	names := []string{"", "a", "Z", "0", "prod-startup", "a.b_c-d", "-a", ".a", "_a", "a b", "a/b", "é", "aé", "a\x00",
		strings.Repeat("a", 39), strings.Repeat("a", 40), strings.Repeat("a", 41), "a" + strings.Repeat("-", 39), "a" + strings.Repeat("-", 40)}
	for c := 0; c < 256; c++ {
		names = append(names, string([]byte{byte(c)}), "a"+string([]byte{byte(c)}))
	}
	for _, n := range names {
		if got, want := validName(n), pattern.MatchString(n); got != want {
			t.Errorf("validName(%q) = %v; the pattern says %v", n, got, want)
		}
	}
}
