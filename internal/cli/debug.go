package cli

import (
	"strings"

	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/manifest"
	ucli "github.com/urfave/cli/v2"
)

func debugFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "debug", Usage: "trace on standard error which files are read or skipped and why, what each chart or kustomization renders, and where each finding's field maps to in the template or patch"}
}

// tracePlan says what the run lints after discovery and planning: each
// source, and the ones planning dropped (kustomize bases rendered through
// their overlays, patch files).
func tracePlan(s *settings.Settings, before, after []manifest.Source) {
	if s.Trace == nil {
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
			s.Trace("plan %s: not rendered on its own: a base of a kustomization of the run, rendered through it", src.Path)
		default:
			s.Trace("plan %s: not linted on its own: a patch that a kustomization of the run applies", src.Path)
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
		s.Trace("source %s: %s", src.Path, what)
	}
}
