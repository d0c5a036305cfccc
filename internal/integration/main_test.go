package integration

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/podlint/podlint/internal/cli"
	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/render/engine"
)

// TestMain lets the test binary serve as the render child of the podlint
// runs made in process (runCLI): os.Executable is the test binary.
func TestMain(m *testing.M) {
	engine.Link()
	if render.IsChild() {
		os.Exit(cli.Run([]string{"podlint"}, os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	// The executables the tests built (podlintBinary, keepBuild) stay
	// for the next run, unless they had to go to a temporary folder.
	if binTemp {
		os.RemoveAll(filepath.Dir(binPath))
	}
	if builds.temporary {
		os.RemoveAll(builds.dir)
	}
	os.Exit(code)
}
