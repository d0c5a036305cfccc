package render

import (
	"path/filepath"
	"slices"
	"sort"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/manifest"
)

// Plan drops the kustomizations that are bases (or components) of another
// kustomization of the same run: they are rendered through the overlays
// that use them, which is what gets deployed, and on their own only when no
// overlay of the run uses them. Named files of a dropped base move to its
// overlays, and each overlay lists the bases it stands for. Plain files
// that a kustomization of the run applies as patches are never linted as
// whole objects (DropPatches).
//
// Its cost is linear in the kustomizations of the run plus what the kept
// overlays list: each kustomization is read once for all roots (a chain of
// a thousand overlays is not read a thousand times), and a folder reached
// again through a symbolic link (a -> .) is the same kustomization.
func Plan(srcs []manifest.Source) []manifest.Source {
	cache := map[string]*kust{}
	return dropPatches(planBases(srcs, cache), cache)
}

// DropPatches leaves out the plain files that a kustomization of the run
// applies as patches (patches, patchesStrategicMerge, patchesJson6902 with
// a path): a patch is a fragment, so linted whole it would be a Deployment
// without a selector. The kustomizations are the roots to render and, with
// --render=never, the kustomization files linted one by one. A patch file
// named on the command line stands for the kustomization that renders it,
// reporting the findings it holds.
func DropPatches(srcs []manifest.Source) []manifest.Source {
	return dropPatches(srcs, map[string]*kust{})
}

// dropPatches is DropPatches reading through cache, which Plan shares with
// planBases: each kustomization of the run is read once, and each is
// visited once for all the sources that reach it (the first one, in order,
// stands for its patches).
func dropPatches(srcs []manifest.Source, cache map[string]*kust) []manifest.Source {
	patchedBy := map[string]int{} // absolute patch file → index of its kustomization in srcs
	visited := map[*kust]bool{}
	var collect func(k *kust, i int)
	collect = func(k *kust, i int) {
		if visited[k] {
			return
		}
		visited[k] = true
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
		for _, c := range k.children {
			collect(c, i)
		}
	}
	for i, s := range srcs {
		dir := s.Path
		switch {
		case s.Render == manifest.RenderKustomize:
		case s.Render == "" && s.Data == nil && isKustomizationName(filepath.Base(s.Path)):
			dir = filepath.Dir(s.Path)
		default:
			continue
		}
		root, err := safefile.Open(s.Root, dir)
		if err != nil {
			continue // rendering or linting it reports why
		}
		collect(loadKust(dir, cache, root), i)
		root.Close()
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

func planBases(srcs []manifest.Source, cache map[string]*kust) []manifest.Source {
	// What Plan reads stays inside the repository of the path given, as
	// rendering does; the roots stay open while the shared cache is built.
	var confined []*safefile.Root
	defer func() {
		for _, r := range confined {
			r.Close()
		}
	}()
	roots := map[int]*kust{}
	rootOf := map[*kust]int{}
	for i, s := range srcs {
		if s.Render != manifest.RenderKustomize {
			continue
		}
		r, err := safefile.Open(s.Root, s.Path)
		if err != nil {
			continue // rendering it reports why
		}
		confined = append(confined, r)
		k := loadKust(s.Path, cache, r)
		roots[i] = k
		if _, dup := rootOf[k]; !dup {
			rootOf[k] = i
		}
	}
	reached := reachedFrom(roots)
	dropped := map[int]bool{}
	for i, k := range roots {
		if by, ok := reached[k]; ok && by != i {
			dropped[i] = true
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
			var bases []int
			o.walk(func(n *kust) {
				if j, ok := rootOf[n]; ok && n != o && dropped[j] {
					bases = append(bases, j)
				}
			})
			sort.Ints(bases)
			for _, j := range bases {
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

// usedByMany marks a kustomization reached from two roots or more.
const usedByMany = -1

// reachedFrom maps each kustomization that some root uses (through one
// step or more) to that root's index, or to usedByMany. Each kustomization
// is visited at most twice, so the cost is linear in the tree.
func reachedFrom(roots map[int]*kust) map[*kust]int {
	reached := map[*kust]int{}
	var queue []*kust
	mark := func(n *kust, by int) {
		cur, ok := reached[n]
		switch {
		case !ok:
			reached[n] = by
		case cur != by && cur != usedByMany:
			reached[n] = usedByMany
		default:
			return
		}
		queue = append(queue, n)
	}
	// Roots in index order, so that the result does not depend on map
	// order (it does not, but the queue's work then is the same each run).
	order := make([]int, 0, len(roots))
	for i := range roots {
		order = append(order, i)
	}
	sort.Ints(order)
	for _, i := range order {
		for _, c := range roots[i].children {
			mark(c, i)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, c := range n.children {
			mark(c, reached[n])
		}
	}
	return reached
}

// realDir is the key of a folder for loadKust: its path with symbolic
// links resolved, so that a folder holding links to itself (a -> ., b -> .)
// is read once instead of once per path through the links.
func realDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	abs, _ := filepath.Abs(dir)
	return abs
}

func isKustomizationName(n string) bool {
	return slices.Contains(manifest.KustomizationFiles, n)
}
