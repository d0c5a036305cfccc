package render

import (
	"path/filepath"
	"slices"

	"github.com/podlint/podlint/manifest"
)

// Plan drops the kustomizations that are bases (or components) of another
// kustomization of the same run: they are rendered through the overlays
// that use them, which is what gets deployed, and on their own only when no
// overlay of the run uses them. Named files of a dropped base move to its
// overlays, and each overlay lists the bases it stands for. Plain files
// that a kustomization of the run applies as patches are never linted as
// whole objects (DropPatches).
func Plan(srcs []manifest.Source) []manifest.Source {
	return DropPatches(planBases(srcs))
}

// DropPatches leaves out the plain files that a kustomization of the run
// applies as patches (patches, patchesStrategicMerge, patchesJson6902 with
// a path): a patch is a fragment, so linted whole it would be a Deployment
// without a selector. The kustomizations are the roots to render and, with
// --render=never, the kustomization files linted one by one. A patch file
// named on the command line stands for the kustomization that renders it,
// reporting the findings it holds.
func DropPatches(srcs []manifest.Source) []manifest.Source {
	patchedBy := map[string]int{} // absolute patch file → index of its kustomization in srcs
	for i, s := range srcs {
		dir := s.Path
		switch {
		case s.Render == manifest.RenderKustomize:
		case s.Render == "" && s.Data == nil && isKustomizationName(filepath.Base(s.Path)):
			dir = filepath.Dir(s.Path)
		default:
			continue
		}
		loadKust(dir, map[string]*kust{}).walk(func(k *kust) {
			for _, p := range k.patches {
				if p.file == k.file {
					continue // inline
				}
				if abs, err := filepath.Abs(p.file); err == nil {
					if _, seen := patchedBy[abs]; !seen {
						patchedBy[abs] = i
					}
				}
			}
		})
	}
	if len(patchedBy) == 0 {
		return srcs
	}
	out := slices.Clone(srcs)
	drop := make([]bool, len(srcs))
	for j, s := range srcs {
		if s.Render != "" || s.Data != nil {
			continue
		}
		abs, err := filepath.Abs(s.Path)
		if err != nil {
			continue
		}
		if i, ok := patchedBy[abs]; ok {
			drop[j] = true
			if s.Explicit && out[i].Render != "" && out[i].Named != nil {
				out[i].Named = append(slices.Clip(out[i].Named), s.Path)
			}
		}
	}
	kept := out[:0]
	for j, s := range out {
		if !drop[j] {
			kept = append(kept, s)
		}
	}
	return kept
}

func planBases(srcs []manifest.Source) []manifest.Source {
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
		loadKust(s.Path, map[string]*kust{}).walk(func(k *kust) {
			if a, err := filepath.Abs(k.dir); err == nil && a != abs {
				r.uses[a] = true
			}
		})
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

func isKustomizationName(n string) bool {
	return n == "kustomization.yaml" || n == "kustomization.yml" || n == "Kustomization"
}
