package analyzer

import (
	"fmt"
	"path/filepath"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// Root lints a render root (a Helm chart or a kustomization, Source.Render
// set) as a release of its own: Open renders it, its documents are
// linted like a file's, and the source map moves every finding to the
// template, patch or resource file the user edits.
func (l *Linter) Root(src manifest.Source) ([]finding.Finding, finding.Summary, error) {
	if l.Open == nil {
		return nil, finding.Summary{}, errRenderOff(src)
	}
	r, err := l.Open(src)
	if err != nil {
		return nil, finding.Summary{}, err
	}
	if r.Map != nil {
		defer r.Map.Close()
	}
	return l.lintRendered(src, r, false)
}

// lintRendered lints r. Mapping walks templates of any shape; a panic
// there is reported like one inside the renderer, at the root (once: a
// panic while reporting that one is not caught again).
func (l *Linter) lintRendered(src manifest.Source, r *manifest.Rendered, crashed bool) (out []finding.Finding, sum finding.Summary, err error) {
	defer func() {
		if crashed {
			return
		}
		if p := recover(); p != nil {
			crash := &manifest.Rendered{Label: src.Path, RootFile: r.RootFile,
				Problems: []manifest.RenderProblem{manifest.RenderCrash(src, r.RootFile, p)}, Map: r.Map}
			out, sum, err = l.lintRendered(src, crash, true)
		}
	}()
	sum = finding.Summary{Rendered: []string{r.Label}}
	if r.NotRendered {
		sum = finding.Summary{NotRendered: []string{r.Label}}
	}
	// Quoted lines and suppression comments come only through the map,
	// which reads files inside the repository: a problem's file may be a
	// link out of it (the link guard's own finding is at the link).
	file := func(p string) []byte {
		if r.Map == nil {
			return nil
		}
		return r.Map.File(p)
	}
	if rule := rules.ChartRenderError; l.Enabled(rule) {
		for _, p := range r.Problems {
			// Read once per file (the map caches): a kustomization with
			// 100 000 missing entries has as many problems in one file.
			data := file(p.File)
			f, _ := l.newFinding(rule, nil, finding.Location{File: p.File, Line: p.Line, Column: p.Column}, p.Message, p.Detail)
			f.SourceLine = manifest.LineOf(data, p.Line)
			if !l.CommentSuppresses(data, &f) {
				out = append(out, f)
			}
		}
	}
	stream := r.Stream
	if int64(len(stream)) > l.Limits.MaxFileSize && l.Limits.MaxFileSize > 0 {
		if f, ok := l.newFinding(rules.LimitExceeded, nil, finding.Location{File: r.RootFile, Line: 1, Column: 1},
			TooBig("the rendered output", l.Limits.MaxFileSize)+" and was not linted", "Raise --max-file-size to lint it."); ok {
			out = append(out, f)
		}
		stream = nil
	}
	from := make([]string, len(out)) // the template each finding's document was rendered from
	if len(stream) > 0 {
		fs, s := l.File(src.Path, stream, false)
		sum.Objects, sum.Workloads = s.Objects, s.Workloads
		for i := range fs {
			from = append(from, place(&fs[i], src.Path, r.Map, file))
		}
		out = append(out, fs...)
	}
	sum.Paths, sum.Files = r.Paths, len(r.Paths)
	if len(src.Named) > 0 {
		out = keepNamed(src, out, from)
	}
	return out, sum, nil
}

// place moves a finding from the rendered stream to the source files: by
// its field path, which the map resolves as the document does, and by
// position for findings without one (loader problems, related locations).
// It returns the Helm template the finding's document was rendered from.
func place(f *finding.Finding, root string, m manifest.SourceMap, file func(string) []byte) string {
	w := m.Locate(f.Line, f.Column, f.Path)
	f.Rendered = &finding.Rendered{Root: root, Name: w.Template, Path: w.Path, Approximate: w.Approximate}
	// Fixes are edits of the rendered stream: none applies to the
	// template or patch the finding now points at.
	f.Fixes = nil
	f.File, f.Line, f.Column = w.File, w.Line, w.Column
	f.SourceLine, f.SourceCut, f.SourceCutRunes = manifest.LineOf(file(w.File), w.Line), 0, 0
	for j := range f.Related {
		rw := m.Locate(f.Related[j].Line, f.Related[j].Column, "")
		f.Related[j] = finding.Location{File: rw.File, Line: rw.Line, Column: rw.Column, Message: f.Related[j].Message, CodePointColumn: rw.CodePointColumn}
	}
	if v := w.Value; v != nil {
		f.Related = append(f.Related, finding.Location{File: v.File, Line: v.Line, Column: v.Column, Message: v.Key, CodePointColumn: v.CodePointColumn})
	}
	return w.Source
}

// keepNamed keeps the findings in the files a root was named by (a file
// inside a chart or kustomization given as a path), in the spelling they
// were named with, the findings of documents a named template rendered
// whose field one of its helpers writes (from[i] is the template finding
// i's document came from), and the render errors.
func keepNamed(src manifest.Source, out []finding.Finding, from []string) []finding.Finding {
	named := map[string]string{}
	for _, n := range src.Named {
		named[absPath(n)] = n
	}
	keep := out[:0]
	for i, f := range out {
		for i := range f.Related {
			if n, ok := named[absPath(f.Related[i].File)]; ok {
				f.Related[i].File = n
			}
		}
		n, ok := named[absPath(f.File)]
		if ok {
			f.File = n
		}
		if !ok && i < len(from) && from[i] != "" {
			_, ok = named[absPath(from[i])]
		}
		if ok || f.RuleID == rules.ChartRenderError.ID {
			keep = append(keep, f)
		}
	}
	return keep
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func errRenderOff(src manifest.Source) error { return fmt.Errorf("%s: rendering is off", src.Path) }
