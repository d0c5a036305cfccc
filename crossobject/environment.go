package crossobject

import (
	"hash/fnv"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/podlint/podlint/finding"
)

// identity is a short, deterministic key of an object's kind, namespace
// and name: two objects with the same identity are the same object in a
// cluster. A collision (1 in 2^64) only splits an environment in two.
func identity(ref finding.ObjectRef) uint64 {
	h := fnv.New64a()
	for _, s := range []string{ref.Kind, ref.Namespace, ref.Name} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Partition splits the parts of a run into environments, the sets of
// files that can be applied to one cluster together, so that the objects
// of one environment never hide or satisfy those of another.
//
// Two objects with the same kind, namespace and name in different files
// are one object in a cluster, so such files are alternatives (dev/ and
// prod/, or install.yaml and namespace-install.yaml): a folder holding
// both is not one environment. A folder is whole when no identity is
// defined in two of the files under it (at any depth). A file belongs to
// the environment of its highest whole folder, which holds every file under
// that folder. In a folder that is not whole, a file that shares an
// identity with another file right in that folder is an environment of its
// own, and the other files right in it are one environment. Whether a
// folder is whole depends only on the files under it, so linting an
// environment's folder alone gives it the same environments as linting any
// folder above it.
//
// The result keeps the order of the parts: environments in the order of
// their first part, parts in their order. Parts of one file (batches) stay
// together.
func Partition(parts []*Part) [][]*Part {
	type file struct {
		name string
		ids  []uint64
	}
	var files []*file
	byName := map[string]*file{}
	fileIndex := map[string]int{}
	for _, p := range parts {
		if p == nil {
			continue
		}
		f := byName[p.File]
		if f == nil {
			f = &file{name: p.File}
			byName[p.File] = f
			fileIndex[p.File] = len(files)
			files = append(files, f)
		}
		f.ids = append(f.ids, p.IDs...)
	}
	// The files that define each identity, each file once.
	definers := map[uint64][]int{}
	for i, f := range files {
		for _, id := range f.ids {
			if d := definers[id]; len(d) == 0 || d[len(d)-1] != i {
				definers[id] = append(d, i)
			}
		}
	}
	// A folder that holds two definitions of one identity is not whole,
	// nor is any folder above it. Of the files defining an identity, sorted
	// by folder, the deepest common folders are those of neighbours.
	split := map[string]bool{}
	alone := map[int]bool{} // shares an identity with a file of its folder
	for _, d := range definers {
		if len(d) < 2 {
			continue
		}
		inDir := map[string]int{}
		for _, fi := range d {
			dir := path.Dir(filepath.ToSlash(files[fi].name))
			if j, ok := inDir[dir]; ok {
				alone[j], alone[fi] = true, true
			}
			inDir[dir] = fi
		}
		dirs := make([][]string, len(d))
		for i, fi := range d {
			dirs[i] = dirParts(files[fi].name)
		}
		slices.SortFunc(dirs, slices.Compare)
		for i := 1; i < len(dirs); i++ {
			common := dirs[i][:commonPrefix(dirs[i-1], dirs[i])]
			for n := len(common); n >= 0 && !split[strings.Join(common[:n], "/")]; n-- {
				split[strings.Join(common[:n], "/")] = true
			}
		}
	}
	envOf := map[string]int{}
	var out [][]*Part
	for _, p := range parts {
		if p == nil {
			continue
		}
		d := dirParts(p.File)
		key := "\x01" + strings.Join(d, "/") // the files right in a folder that is not whole
		if alone[fileIndex[p.File]] {
			key = "\x00" + p.File
		} else if !split[strings.Join(d, "/")] {
			n := 0
			for n < len(d) && split[strings.Join(d[:n], "/")] {
				n++
			}
			key = strings.Join(d[:n], "/")
		}
		i, ok := envOf[key]
		if !ok {
			i = len(out)
			envOf[key] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], p)
	}
	return out
}

// dirParts splits the folder of a file's path into its names; a
// relative path's folders start at "." (the empty list), an absolute
// one's at "/".
func dirParts(name string) []string {
	dir := path.Dir(filepath.ToSlash(name))
	switch {
	case dir == ".":
		return nil
	case dir == "/":
		return []string{"/"}
	case strings.HasPrefix(dir, "/"):
		return append([]string{"/"}, strings.Split(strings.TrimPrefix(dir, "/"), "/")...)
	}
	return strings.Split(dir, "/")
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
