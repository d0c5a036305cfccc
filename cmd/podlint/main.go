// Command podlint lints Kubernetes manifests for Pod lifecycle settings that
// fail at runtime. Everything but wiring standard I/O lives in internal/cli.
package main

import (
	"os"

	"github.com/podlint/podlint/internal/cli"
)

func main() {
	stop := startCPUProfile()
	code := cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
