package render

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the render child: os.Executable
// is the test binary in `go test`.
func TestMain(m *testing.M) {
	if IsChild() {
		os.Exit(ChildMain(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
