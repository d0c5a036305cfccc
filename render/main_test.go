package render

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the render child: os.Executable
// is the test binary in `go test`.
func TestMain(m *testing.M) {
	if code, ok := runProbe(); ok {
		os.Exit(code)
	}
	if IsChild() {
		os.Exit(ChildMain(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
