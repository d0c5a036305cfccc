// Command podlint lints Kubernetes manifests for Pod lifecycle settings that
// fail at runtime. Everything but wiring standard I/O and installing
// podlint observe (internal/observecli; podlint-render must not link it)
// lives in internal/cli.
package main

import (
	"os"

	"github.com/podlint/podlint/internal/cli"
	"github.com/podlint/podlint/internal/observecli"
)

func main() {
	observecli.Install()
	stop := startCPUProfile()
	code := cli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
