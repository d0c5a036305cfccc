package analyzer

import (
	"fmt"
	"path/filepath"
	"strings"

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
	return l.lintRendered(src, r, false, nil)
}

// RootFixes is a render root linted for podlint fix: its findings, placed
// as check places them, with the fixes that could be moved to the files the
// user edits (manifest.SourceEditor), and the rendered stream.
type RootFixes struct {
	Findings []finding.Finding
	Summary  finding.Summary
	// Stream is the rendered documents (manifest.RenderedRoot.Stream).
	Stream []byte
	// NotMoved says, by finding (NotMovedKey), why its first fix that
	// was not moved to a source file could not be.
	NotMoved map[string]NotMoved
	// Files are the texts of the files the moved fixes edit, as the
	// source map read them (inside the repository, with src.Edited), by
	// the path the edits name.
	Files map[string][]byte
}

// NotMoved is a fix of the stream that was not moved, and why.
type NotMoved struct {
	Fix    finding.Fix
	Reason string
}

// NotMovedKey identifies a finding of a root in RootFixes.NotMoved.
func NotMovedKey(f *finding.Finding) string {
	obj := ""
	if f.Object != nil {
		obj = f.Object.String()
	}
	return strings.Join([]string{f.RuleID, obj, f.Path, f.Container}, "\x00")
}

// RootForFix renders and lints a render root as Root does (src.Edited
// holds the text of files a fix changed), keeping the fixes that move to a
// template, values file or patch.
func (l *Linter) RootForFix(src manifest.Source) (*RootFixes, error) {
	if l.Open == nil {
		return nil, errRenderOff(src)
	}
	r, err := l.Open(src)
	if err != nil {
		return nil, err
	}
	if r.Map != nil {
		defer r.Map.Close()
	}
	rf := &RootFixes{Stream: r.Stream, NotMoved: map[string]NotMoved{}, Files: map[string][]byte{}}
	rf.Findings, rf.Summary, err = l.lintRendered(src, r, false, rf)
	return rf, err
}

// lintRendered lints r. Mapping walks templates of any shape; a panic
// there is reported like one inside the renderer, at the root (once: a
// panic while reporting that one is not caught again).
//
// With rf set (podlint fix), the fixes of the stream are moved to the
// source files (manifest.SourceEditor) instead of dropped, and rf records
// the files they edit and why those that were not moved could not be.
func (l *Linter) lintRendered(src manifest.Source, r *manifest.RenderedRoot, crashed bool, rf *RootFixes) (out []finding.Finding, sum finding.Summary, err error) {
	defer func() {
		if crashed {
			return
		}
		if p := recover(); p != nil {
			crash := &manifest.RenderedRoot{Label: src.Path, RootFile: r.RootFile,
				Problems: []manifest.RenderProblem{manifest.RenderCrash(src, r.RootFile, p)}, Map: r.Map}
			out, sum, err = l.lintRendered(src, crash, true, nil)
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
		sum.Objects, sum.Workloads, sum.Suppressed = s.Objects, s.Workloads, s.Suppressed
		ed, _ := r.Map.(manifest.SourceEditor)
		for i := range fs {
			fixes := fs[i].Fixes
			from = append(from, place(&fs[i], src.Path, r.Map, file))
			if rf != nil && ed != nil {
				fs[i].Fixes = rf.move(ed, &fs[i], fixes, file)
			}
		}
		for i := range sum.Suppressed {
			place(&sum.Suppressed[i].Finding, src.Path, r.Map, file)
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
	f.Rendered = &finding.RenderOrigin{Root: root, Name: w.Template, Path: w.Path, Approximate: w.Approximate}
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

// move returns the fixes of f (edits of the rendered stream) that move to
// the source files, keeping the text of the files they edit, and records
// why the first that did not move could not.
func (rf *RootFixes) move(ed manifest.SourceEditor, f *finding.Finding, fixes []finding.Fix, file func(string) []byte) []finding.Fix {
	var out []finding.Fix
	for _, x := range fixes {
		moved, err := ed.MoveFix(x)
		if err != nil {
			k := NotMovedKey(f)
			if _, ok := rf.NotMoved[k]; !ok {
				rf.NotMoved[k] = NotMoved{Fix: x, Reason: "no edit of a template, values file or patch makes this fix: " + err.Error()}
			}
			continue
		}
		for _, e := range moved.Edits {
			if _, ok := rf.Files[e.File]; !ok {
				rf.Files[e.File] = file(e.File)
			}
		}
		out = append(out, moved)
	}
	return out
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
