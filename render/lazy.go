package render

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use. Every podlint run links this
// package, and a package-level regexp.MustCompile would be compiled at
// start-up even by the runs that render nothing (a pre-commit hook on one
// plain file); see docs/performance.md.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
