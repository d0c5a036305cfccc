package lsp

import (
	"os"
	"testing"

	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/render/engine"
)

// TestMain lets the test binary serve as the render child, as the podlint
// binary does: os.Executable is the test binary in `go test`.
func TestMain(m *testing.M) {
	engine.Link()
	if render.IsChild() {
		os.Exit(render.ChildMain(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
