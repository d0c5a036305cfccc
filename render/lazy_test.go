package render

import (
	"regexp"
	"testing"
)

// TestLazyRegexpsCompile compiles every regexp that is compiled on first use,
// so that a bad pattern fails here rather than in a user's first render.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{yamlLine, remoteRef,
		tKey, tDash, tActions, condition, valuesRef, dotRef, blockOpen, endAction} {
		first, again := re(), re()
		if first == nil || first != again {
			t.Errorf("a lazy regexp is nil or compiled twice")
		}
	}
}
