// Command podlint-observe reads a live cluster for podlint observe: podlint
// starts it from its own folder when no --from files are given, and it
// writes the recording back (internal/observe, ChildMain). It is a
// separate executable so that podlint itself does not link client-go,
// whose package initialization every podlint check would pay
// (docs/performance.md, "Start-up"). Run by hand it refuses: it only
// answers a podlint's request.
package main

import (
	"os"

	"github.com/podlint/podlint/internal/observe"
	"github.com/podlint/podlint/internal/observe/kubeconfig"
)

func main() {
	os.Exit(observe.ChildMain(os.Args, os.Stdout, os.Stderr, kubeconfig.Live))
}
