package cli

import (
	"regexp"
	"testing"
)

// TestLazyRegexpsCompile compiles every regexp of the package that is
// compiled on first use (to keep it out of every run's start-up), so that a
// bad pattern fails here rather than in a user's run.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{inlineDefault, unsafeFileChars} {
		first, again := re(), re()
		if first == nil || first != again {
			t.Errorf("a lazy regexp is nil or compiled twice")
		}
	}
}
