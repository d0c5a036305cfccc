package render_test

import (
	"os"
	"testing"

	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/render/engine"
)

// TestMain lets the test binary serve as the render child: it links the
// engine, so os.Executable (the test binary in `go test`) is what each
// root is rendered by, and the tests of package render that render in
// process use the same engine. An external test package, since
// render/engine imports render.
func TestMain(m *testing.M) {
	if code, ok := render.RunProbe(); ok {
		os.Exit(code)
	}
	engine.Link()
	if render.IsChild() {
		os.Exit(render.ChildMain(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
