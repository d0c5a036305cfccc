package analyzer

import (
	"fmt"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// filePart is what one file leaves for the cross-object rules, which run
// once after every file was linted: the file's share of the cross-object view
// and the suppressions that name cross-object rules (their use is known
// only then).
type filePart struct {
	parts    []*crossobject.Part // one per batch of documents
	deferred []*deferredSuppression
}

// deferredSuppression is a suppression of a cross-object rule, detached
// from its file.
type deferredSuppression struct {
	rule *rules.Rule
	file string
	line int                // comment: the line it covers; 0 for annotations
	obj  crossobject.Pos    // annotation: the covered object (crossobject.Object.Key)
	pos  finding.Location   // where the suppression is written
	text string             // its source line
	ref  *finding.ObjectRef // copy
	used bool
}

func isCrossObject(r *rules.Rule) bool { return r != nil && r.CrossObject != nil }

// crossObjectAnnotations reads the suppressions of cross-object rules written
// on an object that is not a workload (a Service, a budget, …); other
// suppressions there have never meant anything and stay ignored.
func (fl *fileLinter) crossObjectAnnotations(o *manifest.Object, ro *crossobject.Object) {
	for _, s := range annotationSuppressionsOf(o, ro.Annotations, o.Path.Field("metadata"), fl.lint.Rules) {
		if isCrossObject(s.rule) {
			s.objAt = ro.Key()
			fl.sup = append(fl.sup, s)
		}
	}
}

// deferSuppression keeps a suppression of a cross-object rule for the end
// of the run.
func (fl *fileLinter) deferSuppression(s *suppression) {
	d := &deferredSuppression{rule: s.rule, file: fl.file.Path, line: s.line,
		pos: finding.Location{File: fl.file.Path, Line: s.pos.Line, Column: s.pos.Column}, text: fl.file.Line(s.pos.Line)}
	if s.obj != nil {
		d.obj = s.objAt
		c := *s.obj
		d.ref = &c
	}
	fl.part.deferred = append(fl.part.deferred, d)
}

// crossObjectFindings runs the cross-object rules over the parts of a run,
// environment by environment (crossobject.Partition), applies and checks the
// deferred suppressions, and drops the findings of single-object rules
// that the cross-object view supersedes.
func (l *Linter) crossObjectFindings(parts []*filePart, findings *finding.Store, read func(path string) []byte) {
	l.crossObjectFindingsAt(parts, findings, read, newLocator(l, read))
}

func newLocator(l *Linter, read func(path string) []byte) *locator {
	return &locator{lint: l, read: read, split: map[string]*manifest.Split{}, parsed: map[crossobject.Pos]*manifest.Document{}}
}

// crossObjectFindingsAt is crossObjectFindings with the locator of positions
// given (Workspace keeps one across runs).
func (l *Linter) crossObjectFindingsAt(parts []*filePart, findings *finding.Store, read func(path string) []byte, loc *locator) {
	var deferred []*deferredSuppression
	views := make([]*crossobject.Part, 0, len(parts))
	for _, p := range parts {
		if p == nil {
			continue
		}
		views = append(views, p.parts...)
		deferred = append(deferred, p.deferred...)
	}
	l.restore(views, read)
	envs := crossobject.Partition(views)
	viewOf := map[string]*crossobject.View{} // by file
	deferredOf := make([][]*deferredSuppression, len(envs))
	envOf := map[string]int{}
	built := make([]*crossobject.View, len(envs))
	for i, env := range envs {
		built[i] = crossobject.Build(env)
		for _, p := range env {
			viewOf[p.File], envOf[p.File] = built[i], i
		}
	}
	for _, d := range deferred {
		if i, ok := envOf[d.file]; ok {
			deferredOf[i] = append(deferredOf[i], d)
		}
	}
	l.supersede(func(file string) *crossobject.View { return viewOf[file] }, findings)
	for i, view := range built {
		if !view.HasOthers() {
			continue
		}
		for _, r := range l.Rules {
			if r.CrossObject == nil || !l.Enabled(r) || (r.MinVersion.Minor != 0 && !l.Version.AtLeast(r.MinVersion.Minor)) {
				continue
			}
			l.runCrossObject(r, view, deferredOf[i], findings, loc)
		}
	}
	for _, d := range deferred {
		if d.used || !l.Enabled(d.rule) || !l.Enabled(rules.UnusedSuppression) {
			continue
		}
		f, _ := l.newFinding(rules.UnusedSuppression, d.ref, d.pos, unusedSuppression(d.rule), unusedSuppressionDetail)
		f.SourceLine = d.text
		findings.Add(&f)
	}
}

func (l *Linter) runCrossObject(r *rules.Rule, view *crossobject.View, deferred []*deferredSuppression, out *finding.Store, loc *locator) {
	defer func() {
		if p := recover(); p != nil {
			ie := rules.InternalError
			if first, ok := view.First(); ok && l.Enabled(ie) {
				at, text := loc.locate(first)
				f, _ := l.newFinding(ie, nil, at, fmt.Sprintf("rule %s (%s) crashed on the objects of this run", r.ID, r.Name),
					fmt.Sprintf("%v; other rules still ran; please report this bug with the manifests.", p))
				f.SourceLine = text
				out.Add(&f)
			}
		}
	}()
	pass := rules.NewCrossObjectPass(r, view, l.Version, l.Params, func(d rules.CrossObjectDiagnostic) {
		at, text := loc.locate(d.At)
		f, _ := l.newFinding(r, nil, at, d.Message, d.Detail)
		f.Container, f.SourceLine, f.Path = d.Container, text, string(d.At.Path)
		var objAt crossobject.Pos
		if d.Object != nil {
			ref := d.Object.Ref
			f.Object = &ref
			objAt = d.Object.Key()
			f.Detail = withSource(f.Detail, d.Object.Source)
		}
		for _, rel := range d.Related {
			rl, _ := loc.locate(rel)
			f.Related = append(f.Related, rl)
		}
		for _, s := range deferred {
			if s.rule != r {
				continue
			}
			if s.line > 0 && s.file == f.File && s.line == f.Line || s.line == 0 && d.Object != nil && s.obj == objAt {
				s.used = true
				f.RuleID = ""
			}
		}
		if f.RuleID != "" {
			out.Add(&f)
		}
	})
	r.CrossObject(pass)
}

// restore summarizes again the workloads that the merge dropped
// (keepSummaries) in the namespaces that turned out to matter, reading
// their documents again. A part whose file cannot be read again (it
// changed or vanished during the run) keeps what it has.
func (l *Linter) restore(parts []*crossobject.Part, read func(path string) []byte) {
	var relevant crossobject.Relevance
	for _, p := range parts {
		relevant.Add(p)
	}
	var sp *manifest.Split // the last file read: its batches are consecutive
	var res manifest.Result
	var objs []*manifest.Object
	for _, p := range parts {
		if !p.NeedsRestore(&relevant) {
			continue
		}
		if sp == nil || sp.File.Path != p.File {
			sp = nil
			if data := read(p.File); data != nil {
				sp = manifest.SplitFile(p.File, data, l.Limits)
			}
		}
		if sp == nil || p.To > sp.Docs() {
			continue
		}
		objs = objs[:0]
		for i := p.From; i < p.To; i++ {
			res.Objects, res.Problems = nil, res.Problems[:0]
			sp.Load(i, l.Limits, &res)
			objs = append(objs, res.Objects...)
		}
		p.Restore(objs)
		clear(objs)
	}
}

// supersede drops findings of single-object rules on workloads that the
// cross-object view of their file's environment answers better
// (rules.Rule.SupersededBy). viewOf returns nil for a file with no part.
func (l *Linter) supersede(viewOf func(file string) *crossobject.View, findings *finding.Store) {
	type key struct {
		file string
		ref  finding.ObjectRef
	}
	index := map[*crossobject.View]map[key]*crossobject.Workload{}
	findings.Keep(func(f *finding.Finding) bool {
		r := l.Rules.Lookup(f.RuleID)
		if f.Object == nil || r == nil || r.SupersededBy == nil {
			return true
		}
		view := viewOf(f.File)
		if view == nil || !view.HasOthers() {
			return true
		}
		ns := view.Namespace(f.Object.Namespace)
		if ns == nil {
			return true
		}
		ws, ok := index[view]
		if !ok {
			ws = map[key]*crossobject.Workload{}
			for _, ns := range view.Namespaces() {
				for _, w := range ns.Workloads {
					ws[key{w.File, w.Ref}] = w
				}
			}
			index[view] = ws
		}
		return !r.SupersededBy.When(view, ws[key{f.File, *f.Object}], ns, f.Container)
	})
}

// locator resolves cross-object positions to lines, loading again the few
// documents that findings of cross-object rules point into.
type locator struct {
	lint   *Linter
	read   func(path string) []byte
	split  map[string]*manifest.Split
	parsed map[crossobject.Pos]*manifest.Document // by file and document
}

func (l *locator) locate(p crossobject.Pos) (finding.Location, string) {
	sp, ok := l.split[p.File]
	if !ok {
		if data := l.read(p.File); data != nil {
			sp = manifest.SplitFile(p.File, data, l.lint.Limits)
		}
		l.split[p.File] = sp
	}
	key := crossobject.Pos{File: p.File, Doc: p.Doc}
	doc, ok := l.parsed[key]
	if !ok && sp != nil && p.Doc >= 0 && p.Doc < sp.Docs() {
		var res manifest.Result
		sp.Load(p.Doc, l.lint.Limits, &res)
		if len(res.Objects) > 0 {
			doc = res.Objects[0].Doc
		}
		l.parsed[key] = doc
	}
	if doc != nil {
		pos, _ := doc.Locate(p.Path)
		return finding.Location{File: p.File, Line: pos.Line, Column: pos.Column, Message: p.Message}, sp.File.Line(pos.Line)
	}
	return finding.Location{File: p.File, Line: 1, Column: 1, Message: p.Message}, ""
}

// sourceReader reads a source of the run again by path, for the few files
// that findings of cross-object rules point into.
func sourceReader(l *Linter, srcs []manifest.Source) func(string) []byte {
	byPath := make(map[string]manifest.Source, len(srcs))
	for _, s := range srcs {
		byPath[s.Path] = s
	}
	return func(path string) []byte {
		src, ok := byPath[path]
		if !ok {
			return nil
		}
		if src.Data != nil {
			return src.Data
		}
		data, tooBig, err := src.Read(l.Limits.MaxFileSize)
		if err != nil || tooBig {
			return nil
		}
		return data
	}
}
