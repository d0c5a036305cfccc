package render

import (
	"path/filepath"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/manifest"
)

// Plan drops the kustomizations that are bases (or components) of another
// kustomization of the same run: they are rendered through the overlays
// that use them, which is what gets deployed, and on their own only when no
// overlay of the run uses them. Named files of a dropped base move to its
// overlays, and each overlay lists the bases it stands for.
func Plan(srcs []manifest.Source) []manifest.Source {
	type root struct {
		abs  string
		uses map[string]bool
	}
	roots := map[int]*root{}
	for i, s := range srcs {
		if s.Render != manifest.RenderKustomize {
			continue
		}
		abs, err := filepath.Abs(s.Path)
		if err != nil {
			continue
		}
		r := &root{abs: abs, uses: map[string]bool{}}
		confined, err := safefile.Open(s.Root, s.Path)
		if err != nil {
			continue // rendering it reports why
		}
		loadKust(s.Path, map[string]*kust{}, confined).walk(func(k *kust) {
			if a, err := filepath.Abs(k.dir); err == nil && a != abs {
				r.uses[a] = true
			}
		})
		confined.Close()
		roots[i] = r
	}
	dropped := map[int]bool{}
	for i, r := range roots {
		for j, o := range roots {
			if i != j && o.uses[r.abs] {
				dropped[i] = true
			}
		}
	}
	if len(dropped) == 0 {
		return srcs
	}
	out := make([]manifest.Source, 0, len(srcs))
	for i, s := range srcs {
		if dropped[i] {
			continue
		}
		if o := roots[i]; o != nil {
			for j := range srcs {
				if !dropped[j] || !o.uses[roots[j].abs] {
					continue
				}
				s.Through = append(s.Through, srcs[j].Path)
				// A base named whole is linted whole through its overlay.
				if srcs[j].Named == nil {
					s.Named = nil
				} else if s.Named != nil {
					s.Named = append(s.Named, srcs[j].Named...)
				}
			}
		}
		out = append(out, s)
	}
	return out
}
