package cli

import (
	"fmt"
	"strings"
	"sync"

	"github.com/podlint/podlint/internal/textsafe"
	"github.com/podlint/podlint/manifest"
	ucli "github.com/urfave/cli/v2"
)

func debugFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "debug", Usage: "trace on standard error which files are read or skipped and why, what each chart or kustomization renders, and where each finding's field maps to in the template or patch"}
}

// debugSetup turns on --debug: each step of discovery, rendering and
// position mapping writes one "podlint debug: " line to standard error,
// escaped like every message (textsafe), so a file name cannot start a
// workflow command or move the cursor. Sources are then linted by one
// worker, in order, so that the trace reads the same on every run.
func (s *settings) debugSetup(c *ucli.Context, env *runEnv) {
	if !c.Bool("debug") {
		return
	}
	var mu sync.Mutex
	s.trace = func(format string, args ...any) {
		line := textsafe.Escape(fmt.Sprintf(format, args...))
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(env.stderr, "podlint debug: %s\n", line)
	}
	s.sched.Workers = 1
}

// tracePlan says what the run lints after discovery and planning: each
// source, and the ones planning dropped (kustomize bases rendered through
// their overlays, patch files).
func (s *settings) tracePlan(before, after []manifest.Source) {
	if s.trace == nil {
		return
	}
	kept := map[string]bool{}
	for _, src := range after {
		kept[src.Path] = true
	}
	for _, src := range before {
		switch {
		case kept[src.Path]:
		case src.Render != "":
			s.trace("plan %s: not rendered on its own: a base of a kustomization of the run, rendered through it", src.Path)
		default:
			s.trace("plan %s: not linted on its own: a patch that a kustomization of the run applies", src.Path)
		}
	}
	for _, src := range after {
		what := "plain file"
		switch src.Render {
		case manifest.RenderHelm:
			what = "helm chart, rendered"
		case manifest.RenderKustomize:
			what = "kustomization, rendered"
		}
		if len(src.Through) > 0 {
			what += ", also rendering " + strings.Join(src.Through, ", ")
		}
		if len(src.Named) > 0 {
			what += "; reporting only " + strings.Join(src.Named, ", ")
		}
		s.trace("source %s: %s", src.Path, what)
	}
}
