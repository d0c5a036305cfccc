package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Kinds of render roots (Source.Render).
const (
	RenderHelm      = "helm"
	RenderKustomize = "kustomize"
)

// RootKind says whether dir is a Helm chart (it holds Chart.yaml) or a
// kustomization (kustomization.yaml, .yml or Kustomization), or neither ("").
func RootKind(dir string) string {
	if isFile(filepath.Join(dir, "Chart.yaml")) {
		return RenderHelm
	}
	for _, k := range KustomizationFiles {
		if isFile(filepath.Join(dir, k)) {
			return RenderKustomize
		}
	}
	return ""
}

// Deref follows document and alias nodes to the node they stand for.
func Deref(n *yaml.Node) *yaml.Node { return deref(n) }

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// enclosingRoot returns the chart or kustomization a file lies in: the
// nearest folder above it that is one, or for a subchart the chart whose
// charts/ folder holds it. ok is false when there is none.
//
// kinds caches RootKind per folder: pre-commit names many files of the
// same folders.
func enclosingRoot(file string, kinds map[string]string) (src Source, ok bool) {
	kind := func(d string) string {
		k, seen := kinds[d]
		if !seen {
			k = RootKind(d)
			kinds[d] = k
		}
		return k
	}
	d := filepath.Dir(file)
	for range 64 {
		if k := kind(d); k != "" {
			for k == RenderHelm && filepath.Base(d) != "." && filepath.Base(filepath.Dir(d)) == "charts" && RootKind(filepath.Dir(filepath.Dir(d))) == RenderHelm {
				d = filepath.Dir(filepath.Dir(d))
			}
			src = Source{Path: d, Render: k, Explicit: true}
			// A template or a resource stands for itself; Chart.yaml,
			// values files and the kustomization stand for the whole root.
			absD, _ := filepath.Abs(d)
			absF, _ := filepath.Abs(file)
			rel, _ := filepath.Rel(absD, absF)
			rel = filepath.ToSlash(rel)
			if (k == RenderHelm && (strings.HasPrefix(rel, "templates/") || strings.Contains(rel, "/templates/"))) ||
				(k == RenderKustomize && RootKind(filepath.Dir(file)) == RenderKustomize && !isKustomizationName(filepath.Base(file))) {
				src.Named = []string{file}
			}
			return src, true
		}
		abs, err := filepath.Abs(d)
		if err != nil || abs == filepath.Dir(abs) {
			break
		}
		d = filepath.Join(d, "..")
	}
	return Source{}, false
}

// KustomizationFiles are the names kustomize looks for, in its order; the
// one list of them that discovery and rendering use.
var KustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

func isKustomizationName(n string) bool { return slices.Contains(KustomizationFiles, n) }

// mergeRoots folds sources that render the same root into one: a root
// walked whole or named whole is reported whole, otherwise for the union of
// its named files.
func mergeRoots(srcs []Source) []Source {
	at := map[string]int{}
	out := srcs[:0]
	for _, s := range srcs {
		if s.Render == "" {
			out = append(out, s)
			continue
		}
		key := filepath.Clean(s.Path)
		i, seen := at[key]
		if !seen {
			at[key] = len(out)
			out = append(out, s)
			continue
		}
		o := &out[i]
		if o.Named == nil || s.Named == nil {
			o.Named = nil
		} else {
			o.Named = append(o.Named, s.Named...)
		}
		o.Explicit = o.Explicit || s.Explicit
	}
	return out
}
