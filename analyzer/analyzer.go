// Package analyzer runs the enabled rules over loaded objects: it reads and
// loads files on a bounded pool of workers, computes each workload's timeline
// once, runs every rule with panic recovery, applies suppressions, resolves
// field paths to positions and returns a run's findings sorted once, in
// report order (Run).
//
// It has two parts. A Linter is what runs (analyzer.go, release.go,
// rendered.go, suppress.go): a file's documents to findings and a share of
// the cross-object view (File, Root, Load, and Workspace for an editor),
// then the cross-object view to the findings of the cross-object rules.
// Code that only lints (fix verification, the editor server, `podlint
// timeline`) holds a Linter. Run is the scheduler (schedule.go): workers,
// batches of large inputs, the ordered merge, the summary budget, tuned by
// Options, which only `podlint check` and `podlint fix` set (the editor
// server runs a chart with the defaults). Neither holds rule logic, and
// the scheduler decides nothing that shows in the findings.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package analyzer

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// Linter is what runs: the rules of its catalog that Severity enables,
// over a file's documents (File, Root) and then over the cross-object view
// of the files linted together. It holds no scheduling (Run's Options) and
// is not changed by linting, so one Linter serves any number of files and
// goroutines at once.
type Linter struct {
	// Rules is the catalog: suppressions and loader problems name rules of
	// it, and those of its rules that Severity enables run. The CLI passes
	// rules.All; tests pass their own lists.
	Rules rules.List
	// Severity holds the effective severity of every enabled rule; a rule
	// that is absent or Off does not run.
	Severity map[*rules.Rule]finding.Severity
	Version  timeline.Version
	Params   timeline.Params
	Limits   manifest.Limits
	// Checks gives rules of the catalog the check this run configures, in
	// place of their Check: the organisation's policies are the run's
	// (rules.Policy, whose check package policy builds).
	Checks map[*rules.Rule]func(*rules.Pass)
	// Open renders a source that is a Helm chart or a kustomization
	// (Source.Render set) into documents and a source map (render.Open),
	// which Root lints; nil when rendering is off.
	Open func(manifest.Source) (*manifest.RenderedRoot, error)
}

// Enabled reports whether r runs.
func (l *Linter) Enabled(r *rules.Rule) bool { return l.Severity[r] > finding.Off }

// source lints one source. A render root (a Helm chart or a kustomization)
// is linted by Root as a release of its own, with its findings already
// moved to the files the user edits, so it has no part in the run's release.
func (l *Linter) source(src manifest.Source, verify func(*FixDoc)) ([]finding.Finding, finding.Summary, *filePart, error) {
	if src.Render != "" {
		f, s, err := l.Root(src)
		return f, s, nil, err
	}
	data := src.Data
	if data == nil {
		d, tooBig, err := src.Read(l.Limits.MaxFileSize)
		if err != nil {
			return nil, finding.Summary{}, nil, err
		}
		if tooBig {
			return l.tooBig(src), finding.Summary{Files: 1}, nil, nil
		}
		data = d
	}
	if manifest.SkipWalkedJSON(src, data) {
		return nil, finding.Summary{Skipped: 1}, nil, nil
	}
	sp := manifest.SplitFile(src.Path, data, l.Limits)
	var end *fileEnd
	if verify != nil {
		end = &fileEnd{whole: true}
	}
	b := l.lintDocs(sp, 0, sp.Docs(), l.verifier(verify, sp, data, end))
	end.run(b)
	f, s, part := l.assemble(sp, data, src.Explicit, []*batch{b})
	return f, s, part, nil
}

func (l *Linter) tooBig(src manifest.Source) []finding.Finding {
	f, ok := l.newFinding(rules.LimitExceeded, nil, finding.Location{File: src.Path, Line: 1, Column: 1},
		TooBig("file", l.Limits.MaxFileSize)+" and was not linted", "Raise --max-file-size to lint it.")
	if !ok {
		return nil
	}
	return []finding.Finding{f}
}

// newFinding is how the engine makes every finding: rule r's ID, name and
// effective severity, on object obj (nil for none) at, with the headline
// and the detail. ok is false, and the finding empty, when r does not run
// (or is nil: a loader problem that names no rule of the catalog).
func (l *Linter) newFinding(r *rules.Rule, obj *finding.ObjectRef, at finding.Location, message, detail string) (f finding.Finding, ok bool) {
	if r == nil || !l.Enabled(r) {
		return f, false
	}
	return finding.Finding{RuleID: r.ID, RuleName: r.Name, Severity: l.Severity[r], Object: obj, Location: at,
		Message: message, Detail: detail}, true
}

// problem is the finding of a loader problem.
func (l *Linter) problem(p *manifest.Problem) (finding.Finding, bool) {
	f, ok := l.newFinding(l.Rules.ByName(p.Rule), p.Object, finding.Location{Line: p.Line, Column: p.Column},
		p.Message, withSource(p.Detail, p.Source))
	f.Fixes = p.Fixes
	return f, ok
}

// TooBig is how every message says that an input is over the file-size
// limit: "file is larger than 1048576 bytes (--max-file-size)".
func TooBig(what string, limit int64) string {
	return fmt.Sprintf("%s is larger than %d bytes (--max-file-size)", what, limit)
}

// File lints one file's bytes as a run of its own: its objects are the
// release the cross-object rules see. explicit files were named by the
// user, so an empty one is worth a finding. The findings are in the order
// the rules found them (document by document, then the cross-object
// rules), which fix relies on to choose between fixes; Run sorts a run's
// findings for its report.
func (l *Linter) File(path string, data []byte, explicit bool) ([]finding.Finding, finding.Summary) {
	f, sum, part := l.file(path, data, explicit)
	st := finding.NewStore()
	for i := range f {
		st.Add(&f[i])
	}
	l.crossObjectFindings([]*filePart{part}, st, func(p string) []byte {
		if p == path {
			return data
		}
		return nil
	})
	return (&finding.Result{Packed: st}).List(), sum
}

// file lints one file's bytes with the single-object rules and returns
// its part of the release.
func (l *Linter) file(path string, data []byte, explicit bool) ([]finding.Finding, finding.Summary, *filePart) {
	sp := manifest.SplitFile(path, data, l.Limits)
	return l.assemble(sp, data, explicit, []*batch{l.lintDocs(sp, 0, sp.Docs(), nil)})
}

// batch is what linting a run of a file's documents leaves: findings not
// yet matched against the file's comment suppressions, the annotation
// suppressions of its objects and its share of the cross-object view.
type batch struct {
	findings []finding.Finding
	sup      []*suppression
	part     crossobject.Part
	sum      finding.Summary
	// unparsed are the line ranges [first, next) of the documents that
	// did not parse: whether a comment suppression there matches
	// anything cannot be known.
	unparsed [][2]int
}

// lintDocs loads and lints documents [from, to) of a file one at a time:
// a document's nodes and typed objects are garbage once its objects are
// linted, and its findings keep positions and copies of object references,
// never nodes. each, when not nil, is called for every document while it
// is loaded, with its findings (Linter.verifier).
func (l *Linter) lintDocs(sp *manifest.Split, from, to int, each func(i int, res *manifest.Result, found []finding.Finding)) *batch {
	b := &batch{part: crossobject.Part{File: sp.File.Path, From: from, To: to}}
	fl := &fileLinter{lint: l, file: sp.File, binary: sp.Binary, part: &filePart{}}
	var res manifest.Result
	for i := from; i < to; i++ {
		clear(res.Objects)
		res.Objects, res.Problems = res.Objects[:0], res.Problems[:0]
		sp.Load(i, l.Limits, &res)
		start := len(fl.findings)
		for j := range res.Problems {
			fl.addFinding(l.problem(&res.Problems[j]))
			if res.Problems[j].Rule == manifest.RuleInvalidYAML && len(res.Objects) == 0 {
				next := math.MaxInt
				if i+1 < sp.Docs() {
					next = sp.DocLine(i + 1)
				}
				if n := len(b.unparsed); n == 0 || b.unparsed[n-1][0] != sp.DocLine(i) {
					b.unparsed = append(b.unparsed, [2]int{sp.DocLine(i), next})
				}
			}
		}
		for _, o := range res.Objects {
			b.sum.Objects++
			ro := b.part.Add(o, l.Limits)
			if o.Workload == nil {
				if ro != nil && len(ro.Annotations) > 0 {
					fl.crossObjectAnnotations(o, ro)
				}
				continue
			}
			b.sum.Workloads++
			fl.object(o, ro, start)
		}
		if each != nil {
			each(i, &res, fl.findings[start:])
		}
		fl.detach(start)
	}
	clear(res.Objects)
	b.findings, b.sup, b.sum.Suppressed = fl.findings, fl.sup, fl.suppressed
	return b
}

// assemble joins the batches of a file in order, applies the file's
// comment suppressions and reports the unused ones. data is the file as
// read, before any decoding.
func (l *Linter) assemble(sp *manifest.Split, data []byte, explicit bool, batches []*batch) ([]finding.Finding, finding.Summary, *filePart) {
	a := l.newAssembly(sp, data, explicit)
	for _, b := range batches {
		a.fl.part.parts = append(a.fl.part.parts, a.add(b))
	}
	out := a.take()
	return append(out, a.finish()...), a.sum, a.fl.part
}

// assembly joins the batches of one file as they come, in order: the
// findings of each batch, once the file's comment suppressions are applied,
// can leave (take) before the next batch is linted, so a large file or
// standard input never holds more than the batches in flight.
type assembly struct {
	fl     *fileLinter
	byLine map[int][]*suppression    // the comment suppressions, by the line they cover
	byRule map[string][]*suppression // the same, by the ID of the rule they name
	sum    finding.Summary
	// unparsed are the line ranges of the documents that did not parse
	// (batch.unparsed).
	unparsed [][2]int
}

// newAssembly starts a file: its comment suppressions and the findings of
// the file as a whole (empty, not YAML, …).
func (l *Linter) newAssembly(sp *manifest.Split, data []byte, explicit bool) *assembly {
	fl := &fileLinter{lint: l, file: sp.File, sup: scanComments(sp.File, l.Rules), binary: sp.Binary, part: &filePart{}}
	a := &assembly{fl: fl, byLine: map[int][]*suppression{}, byRule: map[string][]*suppression{}, sum: finding.Summary{Files: 1}}
	for _, s := range fl.sup {
		if s.line > 0 {
			a.byLine[s.line] = append(a.byLine[s.line], s)
			if s.rule != nil {
				a.byRule[s.rule.ID] = append(a.byRule[s.rule.ID], s)
			}
		}
	}
	if explicit && len(sp.Problems) == 0 && manifest.Blank(data) {
		fl.addFinding(l.newFinding(rules.EmptyFile, nil, finding.Location{Line: 1, Column: 1},
			"file is empty or holds only comments", "Nothing was linted."))
	}
	for i := range sp.Problems {
		fl.addFinding(l.problem(&sp.Problems[i]))
	}
	return a
}

// add takes in the next batch and returns its share of the cross-object view.
func (a *assembly) add(b *batch) *crossobject.Part {
	a.fl.findings = append(a.fl.findings, b.findings...)
	a.fl.sup = append(a.fl.sup, b.sup...)
	a.unparsed = append(a.unparsed, b.unparsed...)
	// The part stays for the cross-object view; the rest is garbage now.
	b.findings, b.sup = nil, nil
	a.sum.Objects += b.sum.Objects
	a.sum.Workloads += b.sum.Workloads
	a.sum.Suppressed = append(a.sum.Suppressed, b.sum.Suppressed...)
	return &b.part
}

// take applies the comment suppressions to the findings gathered since the
// last take and returns those that stay.
func (a *assembly) take() []finding.Finding {
	fl := a.fl
	out := fl.findings[:0]
	for i := range fl.findings {
		f := &fl.findings[i]
		if f.RuleID == "" {
			continue // suppressed by an annotation
		}
		for _, s := range a.byLine[f.Line] {
			if s.matches(f) {
				fl.suppress(s, f)
			}
		}
		if f.RuleID != "" {
			for _, s := range a.byRule[f.RuleID] {
				s.near(f)
			}
			out = append(out, *f)
		}
	}
	clear(fl.findings[len(out):])
	fl.findings = nil
	a.sum.Suppressed = append(a.sum.Suppressed, fl.suppressed...)
	fl.suppressed = nil
	return out
}

// inUnparsed reports whether line is in a document that did not parse.
func (a *assembly) inUnparsed(line int) bool {
	for _, r := range a.unparsed {
		if r[0] <= line && line < r[1] {
			return true
		}
	}
	return false
}

// finish reports the suppressions of the file that matched nothing; every
// batch was added and taken.
func (a *assembly) finish() []finding.Finding {
	fl := a.fl
	for _, s := range fl.sup {
		if s.line > 0 && (a.inUnparsed(s.line) || a.inUnparsed(s.pos.Line)) {
			// A comment in or over a document that did not parse: the
			// findings it would hide are unknown until it does, so it is
			// neither used nor unused (every suppression there was
			// reported unused while a quote was left open).
			s.unjudged = true
		}
		fl.checkSuppression(s)
	}
	fl.detach(0)
	out := fl.findings
	fl.findings = nil
	// Annotations were applied per batch, comments per take: the summary
	// lists the file's suppressed findings in report order.
	slices.SortStableFunc(a.sum.Suppressed, func(x, y finding.Suppressed) int {
		switch {
		case finding.Less(&x.Finding, &y.Finding):
			return -1
		case finding.Less(&y.Finding, &x.Finding):
			return 1
		}
		return 0
	})
	return out
}

type fileLinter struct {
	lint     *Linter
	file     *manifest.File
	sup      []*suppression
	findings []finding.Finding
	// suppressed are the findings of audited rules that suppressions
	// hid, for the summary.
	suppressed []finding.Suppressed
	part       *filePart // for the cross-object rules
	// binary is set for a file that is not text (NUL bytes, not UTF-8):
	// its content is never echoed, since it may be anything (a symbolic
	// link to /proc/self/environ printed the CI's secrets).
	binary bool
}

// addFinding completes f, made by Linter.newFinding (nothing when ok is
// false), with its file and source line and records it.
func (fl *fileLinter) addFinding(f finding.Finding, ok bool) *finding.Finding {
	if !ok {
		return nil
	}
	f.File = fl.file.Path
	if !fl.binary {
		f.SourceLine, f.SourceCut, f.SourceCutRunes = fl.file.Snippet(f.Line, f.Column)
	}
	fl.findings = append(fl.findings, f)
	return &fl.findings[len(fl.findings)-1]
}

// object runs every enabled rule over one workload; ro is its entry in
// the cross-object view.
func (fl *fileLinter) object(o *manifest.Object, ro *crossobject.Object, docStart int) {
	l := fl.lint
	var tl *timeline.Timeline
	var tlPanic any
	computed := false
	timelineOf := func() *timeline.Timeline {
		if !computed {
			computed = true
			func() {
				defer func() {
					if r := recover(); r != nil {
						tlPanic = r
					}
				}()
				tl = timeline.Compute(o.Workload, l.Version, l.Params)
			}()
		}
		if tlPanic != nil {
			panic(fmt.Sprintf("timeline: %v", tlPanic))
		}
		return tl
	}
	objSup := annotationSuppressions(o, l.Rules)
	for _, s := range objSup {
		s.objAt = ro.Key()
	}
	fl.sup = append(fl.sup, objSup...)
	start := len(fl.findings)
	var pass *rules.Pass
	for _, r := range l.Rules {
		check := r.Check
		if c := l.Checks[r]; c != nil {
			check = c
		}
		if check == nil || !l.Enabled(r) || (r.MinVersion.Minor != 0 && !l.Version.AtLeast(r.MinVersion.Minor)) {
			continue
		}
		if pass == nil {
			pass = rules.NewPass(r, o, l.Version, l.Params, timelineOf, func(d rules.Diagnostic) { fl.report(pass.Rule, o, d) })
		}
		fl.runRule(r, check, o, pass)
	}
	// Annotation suppressions cover every finding of the object, including
	// the loader's (unknown fields in its template), which are among the
	// findings of its document.
	for i := docStart; i < len(fl.findings); i++ {
		f := &fl.findings[i]
		if i < start && f.Object != &o.Ref {
			continue
		}
		for _, s := range objSup {
			if s.matches(f) {
				fl.suppress(s, f) // dropped in finish
			}
		}
	}
}

// suppress hides f, a finding that s matches, by clearing its rule. A
// finding of an audited rule stays when s gives no reason, and is kept for
// the summary when it is hidden.
func (fl *fileLinter) suppress(s *suppression, f *finding.Finding) {
	s.used = true
	if s.rule.Audited {
		if s.reason == "" {
			return
		}
		hidden := finding.Suppressed{Finding: *f, Reason: s.reason}
		if f.Object != nil {
			ref := *f.Object // not a pointer into the loaded object
			hidden.Object = &ref
		}
		fl.suppressed = append(fl.suppressed, hidden)
	}
	f.RuleID = ""
}

// runRule runs check, the check of r, over o with pass, which every rule
// of the object shares (one allocation per object, not per rule):
// pass.Rule is set to r here.
func (fl *fileLinter) runRule(r *rules.Rule, check func(*rules.Pass), o *manifest.Object, pass *rules.Pass) {
	defer func() {
		if p := recover(); p != nil {
			pos, _ := o.Doc.Locate(o.Path)
			fl.addFinding(fl.lint.newFinding(rules.InternalError, &o.Ref, finding.Location{Line: pos.Line, Column: pos.Column},
				fmt.Sprintf("rule %s (%s) crashed on this object", r.ID, r.Name),
				withSource(fmt.Sprintf("%v; other rules still ran; please report this bug with the manifest", p), o.Doc.Source)))
		}
	}()
	pass.Rule = r
	check(pass)
}

// report records a diagnostic of rule r on o.
func (fl *fileLinter) report(r *rules.Rule, o *manifest.Object, d rules.Diagnostic) {
	pos, _ := o.Doc.Locate(d.Path)
	f := fl.addFinding(fl.lint.newFinding(r, &o.Ref, finding.Location{Line: pos.Line, Column: pos.Column},
		d.Message, withSource(d.Detail, o.Doc.Source)))
	if f == nil {
		return
	}
	f.Container, f.Path = d.Container, string(d.Path)
	for _, rel := range d.Related {
		rp, _ := o.Doc.Locate(rel.Path)
		f.Related = append(f.Related, finding.Location{File: fl.file.Path, Line: rp.Line, Column: rp.Column, Message: rel.Message,
			CodePointColumn: o.Doc.File.CodePointColumn(rp.Line, rp.Column)})
	}
	if d.Severity != finding.Off {
		f.Severity = d.Severity
	}
	if d.Info {
		f.Severity = min(f.Severity, finding.Info)
	}
	if len(d.Fixes) > 0 {
		f.Fixes = resolveFixes(o, d.Fixes)
	}
}

// resolveFixes turns a diagnostic's fixes into text edits of the file.
// A fix with an operation that cannot be done in place is left out, and
// so is every fix of a document rendered from a template (the edit would
// land in generated text). Package fix verifies the rest before they are
// applied.
func resolveFixes(o *manifest.Object, fixes []rules.Fix) []finding.Fix {
	if o.Doc.Source != "" {
		return nil
	}
	var out []finding.Fix
next:
	for _, x := range fixes {
		fx := finding.Fix{Title: x.Title, Safety: x.Safety}
		for _, op := range x.Ops {
			e, err := o.Doc.Edit(op)
			if err != nil {
				continue next
			}
			fx.Edits = append(fx.Edits, e)
			fx.Paths = append(fx.Paths, string(op.Path))
		}
		if len(fx.Edits) == 0 || !finding.SortEdits(fx.Edits) {
			continue
		}
		fx.LineEdits = o.Doc.File.WholeLines(fx.Edits)
		out = append(out, fx)
	}
	return out
}

// withSource ends a detail with the chart template a document of `helm
// template` output came from. Positions stay in the rendered stream, which
// is the only text podlint has, so the message is the one place that can
// tell the user which template file to edit.
func withSource(detail, source string) string {
	switch {
	case source == "":
		return detail
	case detail == "":
		return "Rendered from " + source + "."
	}
	return detail + " Rendered from " + source + "."
}

// detach points the findings from index start on at copies of their object
// references. They point into the loaded objects until then (suppressions
// match by identity), and findings outlive the document: one pointer into
// an Object keeps its YAML nodes and typed object alive, and with them, on
// a large file with many findings, hundreds of megabytes.
func (fl *fileLinter) detach(start int) {
	var last, copied *finding.ObjectRef
	for i := start; i < len(fl.findings); i++ {
		o := fl.findings[i].Object
		if o == nil {
			continue
		}
		if o != last {
			last = o
			copied = new(finding.ObjectRef)
			*copied = *o
		}
		fl.findings[i].Object = copied
	}
}

func (fl *fileLinter) checkSuppression(s *suppression) {
	loc := finding.Location{Line: s.pos.Line, Column: s.pos.Column}
	if s.rule == nil {
		fl.addFinding(fl.lint.newFinding(rules.UnusedSuppression, s.obj, loc,
			fmt.Sprintf("suppression names %q, which is not a rule", s.name),
			"A suppression names a rule by ID ("+rules.LivenessKillsBeforeReady.ID+") or name ("+rules.LivenessKillsBeforeReady.Name+"); run `podlint rules` for the list."))
		return
	}
	if s.reason == "" {
		detail := "Write why the finding does not apply after the rule name, so the next reader can judge whether it still holds."
		if s.rule.Audited {
			detail += fmt.Sprintf(" A suppression of %s without a reason suppresses nothing: the finding stays until it gives one.", s.rule.Name)
		}
		fl.addFinding(fl.lint.newFinding(rules.SuppressionMissingReason, s.obj, loc,
			fmt.Sprintf("suppression of %s (%s) gives no reason", s.rule.ID, s.rule.Name), detail))
	}
	if s.unjudged {
		return
	}
	if isCrossObject(s.rule) {
		fl.deferSuppression(s) // used or not is known at the end of the run
		return
	}
	if !s.used && fl.lint.Enabled(s.rule) {
		msg, detail := unusedSuppression(s.rule), unusedSuppressionDetail
		if s.line > 0 { // a comment: it covers one line
			if n := s.nearest; n.Line > 0 {
				msg = fmt.Sprintf("suppression of %s (%s) matches no finding, the nearest %s is on line %d", s.rule.ID, s.rule.Name, s.rule.ID, n.Line)
				if len(msg) > 100 { // a headline's length; the detail names the rule
					msg = fmt.Sprintf("suppression of %s matches no finding, the nearest %s is on line %d", s.rule.ID, s.rule.ID, n.Line)
				}
				detail = fmt.Sprintf("It covers line %d, but the nearest %s (%s) finding is at line %d, column %d: put the comment at the end of that line or on a line of its own just above it, or remove the comment so it cannot hide a future finding that nobody has looked at.", s.line, s.rule.ID, s.rule.Name, n.Line, n.Column)
			} else {
				detail = fmt.Sprintf("It covers line %d, and %s (%s) reports nothing anywhere in this file. Remove it, so it cannot hide a future finding that nobody has looked at.", s.line, s.rule.ID, s.rule.Name)
			}
		}
		fl.addFinding(fl.lint.newFinding(rules.UnusedSuppression, s.obj, loc, msg, detail))
	}
}

// unusedSuppression is the headline of a suppression of rule r that
// matched no finding; unusedSuppressionDetail is its detail.
func unusedSuppression(r *rules.Rule) string {
	return fmt.Sprintf("suppression of %s (%s) matches no finding", r.ID, r.Name)
}

const unusedSuppressionDetail = "Remove it, so it cannot hide a future finding that nobody has looked at."

// fileSet counts the files on disk a run read, each once: a file linted
// and also read by a render, or the base of two overlays, is one file.
type fileSet map[string]bool

// add records the files of one source and returns how many were new: the
// paths its summary lists (a render root's files), else the source's own
// file (a source read before the run, such as standard input, by its
// name), else the count the summary gives.
func (fs fileSet) add(src manifest.Source, sum finding.Summary) int {
	paths := sum.Paths
	if paths == nil && src.Render == "" {
		p := src.Path
		if src.Data == nil {
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
		} else {
			p = "\x00" + p // read before the run (standard input): not a file on disk
		}
		paths = []string{p}
	}
	if paths == nil {
		return sum.Files
	}
	n := 0
	for _, p := range paths {
		if !fs[p] {
			fs[p] = true
			n++
		}
	}
	return n
}
