package analyzer

import (
	"sync"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

// Workspace holds what the files of an editor's workspace leave for the
// cross-object rules (their share of the cross-object view and their
// suppressions of those rules), loaded once, so that linting one file
// as it is typed costs that file, not the workspace: `podlint lsp` lints an
// open document with Lint, which reports what Run would report for that
// file among the workspace's files, and reloads the Workspace when a file
// is saved.
type Workspace struct {
	mu    sync.Mutex // Lint runs the release rules over shared parts
	parts map[string]*filePart
	data  map[string][]byte
	order []string
	// loc keeps the documents of the workspace's files that findings of
	// cross-object rules pointed into (parsed again otherwise on every
	// Lint); never those of the file being linted, whose text changes.
	loc *locator
}

// NewWorkspace loads the sources (plain files, their bytes in Data or on
// disk) with l. Sources that cannot be read are left out.
func NewWorkspace(l *Linter, srcs []manifest.Source) *Workspace {
	w := &Workspace{parts: map[string]*filePart{}, data: map[string][]byte{}}
	for _, src := range srcs {
		if src.Render != "" {
			continue
		}
		data := src.Data
		if data == nil {
			d, tooBig, err := src.Read(l.Limits.MaxFileSize)
			if err != nil || tooBig {
				continue
			}
			data = d
		}
		_, _, part := l.file(src.Path, data, false)
		if _, ok := w.parts[src.Path]; !ok {
			w.order = append(w.order, src.Path)
		}
		w.parts[src.Path], w.data[src.Path] = part, data
	}
	return w
}

// Lint lints the file at path, whose bytes are data (an editor's buffer,
// which replaces the workspace's copy of the file), as Run would among the
// workspace's files, and returns its findings sorted.
func (w *Workspace) Lint(l *Linter, path string, data []byte) []finding.Finding {
	fs, _, part := l.file(path, data, true)
	st := finding.NewStore()
	for i := range fs {
		st.Add(&fs[i])
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// The parts in the workspace's order, the file's own in its place (or
	// first when it is new), as Run would have them.
	parts := make([]*filePart, 0, len(w.order)+1)
	if _, ok := w.parts[path]; !ok {
		parts = append(parts, part)
	}
	for _, p := range w.order {
		wp := w.parts[p]
		if p == path {
			wp = part
		} else {
			for _, d := range wp.deferred {
				d.used = false // a mark of the previous Lint
			}
		}
		parts = append(parts, wp)
	}
	read := func(p string) []byte {
		if p == path {
			return data
		}
		return w.data[p]
	}
	if w.loc == nil {
		w.loc = newLocator(l, nil)
	}
	w.loc.lint, w.loc.read = l, read
	l.crossObjectFindingsAt(parts, st, read, w.loc)
	delete(w.loc.split, path)
	for k := range w.loc.parsed {
		if k.File == path {
			delete(w.loc.parsed, k)
		}
	}
	st.Sort()
	var out []finding.Finding
	for i := range st.Len() {
		if f := st.At(i); f.File == path {
			out = append(out, f)
		}
	}
	return out
}
