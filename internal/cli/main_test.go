package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/render/engine"
)

// TestMain lets the test binary serve as the render child, as the podlint
// binary does through Run: os.Executable is the test binary in `go test`.
func TestMain(m *testing.M) {
	engine.Link()
	if render.IsChild() {
		os.Exit(Run([]string{"podlint"}, os.Stdin, os.Stdout, os.Stderr))
	}
	if as := os.Getenv(asPodlint); as != "" {
		// The test binary is podlint, maybe stopped before its first
		// rename.
		if as == stopBeforeRename {
			beforeRename = func(tmp string) {
				os.Stderr.WriteString("ready " + filepath.Base(tmp) + "\n")
				select {}
			}
		}
		os.Exit(Run(os.Args, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
