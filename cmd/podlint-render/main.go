// Command podlint-render renders one Helm chart or kustomization for
// podlint: podlint starts it from its own folder for each chart and
// kustomization it lints, bounded and confined (SECURITY.md, "Rendering").
// It is a separate executable so that podlint itself does not link Helm
// and kustomize, whose package initialization was most of podlint's
// start-up on plain YAML (docs/performance.md). Run by hand it refuses:
// it only answers a podlint's request.
package main

import (
	"fmt"
	"os"

	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/render/engine"
)

func main() {
	if !render.IsChild() {
		fmt.Fprintf(os.Stderr, "%s renders charts and kustomizations for podlint, which starts it; run podlint check instead\n", render.RenderCommand)
		os.Exit(2)
	}
	// No collector pacing of podlint's (internal/gctune, a heap
	// target of 24 MB for linting): a kustomization of multi-MB CRDs
	// keeps hundreds of MB live, which that pacing collected at GOGC 20,
	// doubling the render's CPU time (docs/performance.md, "Rendering at
	// the speed of kustomize"). The render libraries get Go's default, as
	// in kustomize and helm themselves; the memory limit bounds the heap.
	engine.Link()
	os.Exit(render.ChildMain(os.Stdin, os.Stdout, os.Stderr))
}
