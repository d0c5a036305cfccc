package render

import (
	"strings"
	"testing"
)

// TestCappedKeepsTheFatalError: the runtime prints "fatal error:" first
// and then a traceback of every goroutine; a child with many goroutines
// writes more than the cap after it, and the parent must still see that it
// ran out of memory (seen when the merged logging added goroutines).
func TestCappedKeepsTheFatalError(t *testing.T) {
	c := capped{max: 1 << 10}
	c.Write([]byte("fatal error: runtime: cannot allocate memory\n"))
	for range 100 {
		c.Write([]byte(strings.Repeat("goroutine 1 [running]:\n", 10)))
	}
	c.Write([]byte("last line\n"))
	s := c.String()
	if !outOfMemory(s) {
		t.Errorf("the fatal error was dropped: %.80q…", s)
	}
	if !strings.HasSuffix(s, "last line\n") {
		t.Errorf("the tail was dropped: …%q", s[len(s)-40:])
	}
	if !outOfMemory("runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\n") {
		t.Error("a cgo build's failure to start a thread under the data limit is not taken for the memory limit")
	}
	if len(s) > 4*c.max {
		t.Errorf("kept %d bytes, cap %d", len(s), c.max)
	}
}
