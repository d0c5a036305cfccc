// Command podlint lints Kubernetes manifests for Pod lifecycle settings that
// fail at runtime. Everything but wiring standard I/O and podlint observe
// (internal/observe, which podlint-render must not link) lives in
// internal/cli.
package main

import (
	"os"

	"github.com/podlint/podlint/internal/cli"
)

func main() {
	cli.TuneGC(os.Getenv)
	cli.SetObserver(observer{})
	stop := startCPUProfile()
	code := cli.Run(os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
