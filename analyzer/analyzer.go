// Package analyzer runs the enabled rules over loaded objects: it reads and
// loads files on a bounded pool of workers, computes each workload's timeline
// once, runs every rule with panic recovery, applies suppressions, resolves
// field paths to positions and returns the findings sorted.
//
// What runs is the Config's (analyzer.go, release.go, suppress.go): a
// file's documents to findings and a share of the cross-object view, then the
// cross-object view to the findings of the cross-object rules. How it is
// scheduled is Run's (schedule.go): workers, batches of large inputs, the
// ordered merge, the summary budget. Neither holds rule logic.
package analyzer

import (
	"cmp"
	"fmt"
	"path/filepath"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// Config says what to run and how.
type Config struct {
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
	// Workers bounds how many files are in memory at once; 0 means one per
	// CPU.
	Workers int
	// Open renders a source that is a Helm chart or a kustomization
	// (Source.Render set) into documents and a source map (render.Open),
	// which Root lints; nil when rendering is off.
	Open func(manifest.Source) (*manifest.Rendered, error)

	// The scheduler's tuning, for tests (they run in parallel, so no knob
	// is a package variable); zero means the default.
	//
	// Sources larger than SplitBytes (DefaultSplitBytes) are read and cut
	// into documents before they reach the workers, and their documents
	// are linted in batches of about BatchBytes (DefaultBatchBytes) on
	// every worker: one large file or standard input (`helm template
	// big-chart | podlint check -`) uses all cores, and no worker holds
	// more than one document's nodes at a time.
	SplitBytes, BatchBytes int
	// SummaryBudget is how many workload summaries a run keeps whatever
	// their namespace (DefaultSummaryBudget; negative keeps none beyond
	// those that matter, see keepSummaries).
	SummaryBudget int
}

// The defaults of the scheduler's tuning (Config.SplitBytes, BatchBytes
// and SummaryBudget). A summary takes about 600 bytes with its labels.
const (
	DefaultSplitBytes    = 1 << 20
	DefaultBatchBytes    = 256 << 10
	DefaultSummaryBudget = 1024
)

func (c *Config) splitBytes() int { return cmp.Or(c.SplitBytes, DefaultSplitBytes) }
func (c *Config) batchBytes() int { return cmp.Or(c.BatchBytes, DefaultBatchBytes) }
func (c *Config) summaryBudget() int {
	if c.SummaryBudget < 0 {
		return 0
	}
	return cmp.Or(c.SummaryBudget, DefaultSummaryBudget)
}

// Enabled reports whether r runs.
func (c *Config) Enabled(r *rules.Rule) bool { return c.Severity[r] > finding.Off }

// source lints one source. A render root (a Helm chart or a kustomization)
// is linted by Root as a release of its own, with its findings already
// moved to the files the user edits, so it has no part in the run's release.
func (cfg *Config) source(src manifest.Source) ([]finding.Finding, finding.Summary, *filePart, error) {
	if src.Render != "" {
		f, s, err := cfg.Root(src)
		return f, s, nil, err
	}
	data := src.Data
	if data == nil {
		d, tooBig, err := src.Read(cfg.Limits.MaxFileSize)
		if err != nil {
			return nil, finding.Summary{}, nil, err
		}
		if tooBig {
			return cfg.tooBig(src), finding.Summary{Files: 1}, nil, nil
		}
		data = d
	}
	f, s, part := cfg.file(src.Path, data, src.Explicit)
	return f, s, part, nil
}

func (cfg *Config) tooBig(src manifest.Source) []finding.Finding {
	f, ok := cfg.newFinding(rules.LimitExceeded, nil, finding.Location{File: src.Path, Line: 1, Column: 1},
		TooBig("file", cfg.Limits.MaxFileSize)+" and was not linted", "Raise --max-file-size to lint it.")
	if !ok {
		return nil
	}
	return []finding.Finding{f}
}

// newFinding is how the engine makes every finding: rule r's ID, name and
// effective severity, on object obj (nil for none) at, with the headline
// and the detail. ok is false, and the finding empty, when r does not run
// (or is nil: a loader problem that names no rule of the catalog).
func (cfg *Config) newFinding(r *rules.Rule, obj *finding.ObjectRef, at finding.Location, message, detail string) (f finding.Finding, ok bool) {
	if r == nil || !cfg.Enabled(r) {
		return f, false
	}
	return finding.Finding{RuleID: r.ID, RuleName: r.Name, Severity: cfg.Severity[r], Object: obj, Location: at,
		Message: message, Detail: detail}, true
}

// problem is the finding of a loader problem.
func (cfg *Config) problem(p *manifest.Problem) (finding.Finding, bool) {
	f, ok := cfg.newFinding(cfg.Rules.ByName(p.Rule), p.Object, finding.Location{Line: p.Line, Column: p.Column},
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
// user, so an empty one is worth a finding.
func (cfg *Config) File(path string, data []byte, explicit bool) ([]finding.Finding, finding.Summary) {
	f, sum, part := cfg.file(path, data, explicit)
	st := finding.NewStore()
	for i := range f {
		st.Add(&f[i])
	}
	cfg.releaseFindings([]*filePart{part}, st, func(p string) []byte {
		if p == path {
			return data
		}
		return nil
	})
	return (&finding.Result{Packed: st}).List(), sum
}

// file lints one file's bytes with the single-object rules and returns
// its part of the release.
func (cfg *Config) file(path string, data []byte, explicit bool) ([]finding.Finding, finding.Summary, *filePart) {
	sp := manifest.SplitFile(path, data, cfg.Limits)
	return cfg.assemble(sp, data, explicit, []*batch{cfg.lintDocs(sp, 0, sp.Docs())})
}

// batch is what linting a run of a file's documents leaves: findings not
// yet matched against the file's comment suppressions, the annotation
// suppressions of its objects and its share of the cross-object view.
type batch struct {
	findings []finding.Finding
	sup      []*suppression
	part     crossobject.Part
	sum      finding.Summary
}

// lintDocs loads and lints documents [from, to) of a file one at a time:
// a document's nodes and typed objects are garbage once its objects are
// linted, and its findings keep positions and copies of object references,
// never nodes.
func (cfg *Config) lintDocs(sp *manifest.Split, from, to int) *batch {
	b := &batch{part: crossobject.Part{File: sp.File.Path, From: from, To: to}}
	fl := &fileLinter{cfg: cfg, file: sp.File, binary: sp.Binary, part: &filePart{}}
	var res manifest.Result
	for i := from; i < to; i++ {
		clear(res.Objects)
		res.Objects, res.Problems = res.Objects[:0], res.Problems[:0]
		sp.Load(i, cfg.Limits, &res)
		start := len(fl.findings)
		for i := range res.Problems {
			fl.addFinding(cfg.problem(&res.Problems[i]))
		}
		for _, o := range res.Objects {
			b.sum.Objects++
			ro := b.part.Add(o, cfg.Limits)
			if o.Workload == nil {
				if ro != nil && len(ro.Annotations) > 0 {
					fl.releaseAnnotations(o, ro)
				}
				continue
			}
			b.sum.Workloads++
			fl.object(o, ro, start)
		}
		fl.detach(start)
	}
	clear(res.Objects)
	b.findings, b.sup = fl.findings, fl.sup
	return b
}

// assemble joins the batches of a file in order, applies the file's
// comment suppressions and reports the unused ones. data is the file as
// read, before any decoding.
func (cfg *Config) assemble(sp *manifest.Split, data []byte, explicit bool, batches []*batch) ([]finding.Finding, finding.Summary, *filePart) {
	a := cfg.newAssembly(sp, data, explicit)
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
}

// newAssembly starts a file: its comment suppressions and the findings of
// the file as a whole (empty, not YAML, …).
func (cfg *Config) newAssembly(sp *manifest.Split, data []byte, explicit bool) *assembly {
	fl := &fileLinter{cfg: cfg, file: sp.File, sup: scanComments(sp.File, cfg.Rules), binary: sp.Binary, part: &filePart{}}
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
		fl.addFinding(cfg.newFinding(rules.EmptyFile, nil, finding.Location{Line: 1, Column: 1},
			"file is empty or holds only comments", "Nothing was linted."))
	}
	for i := range sp.Problems {
		fl.addFinding(cfg.problem(&sp.Problems[i]))
	}
	return a
}

// add takes in the next batch and returns its share of the cross-object view.
func (a *assembly) add(b *batch) *crossobject.Part {
	a.fl.findings = append(a.fl.findings, b.findings...)
	a.fl.sup = append(a.fl.sup, b.sup...)
	// The part stays for the cross-object view; the rest is garbage now.
	b.findings, b.sup = nil, nil
	a.sum.Objects += b.sum.Objects
	a.sum.Workloads += b.sum.Workloads
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
				s.used = true
				f.RuleID = ""
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
	return out
}

// finish reports the suppressions of the file that matched nothing; every
// batch was added and taken.
func (a *assembly) finish() []finding.Finding {
	fl := a.fl
	for _, s := range fl.sup {
		fl.checkSuppression(s)
	}
	fl.detach(0)
	out := fl.findings
	fl.findings = nil
	return out
}

type fileLinter struct {
	cfg      *Config
	file     *manifest.File
	sup      []*suppression
	findings []finding.Finding
	part     *filePart // for the cross-object rules
	// binary is set for a file that is not text (NUL bytes, not UTF-8):
	// its content is never echoed, since it may be anything (a symbolic
	// link to /proc/self/environ printed the CI's secrets).
	binary bool
}

// addFinding completes f, made by Config.newFinding (nothing when ok is
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
	cfg := fl.cfg
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
				tl = timeline.Compute(o.Workload, cfg.Version, cfg.Params)
			}()
		}
		if tlPanic != nil {
			panic(fmt.Sprintf("timeline: %v", tlPanic))
		}
		return tl
	}
	objSup := annotationSuppressions(o, cfg.Rules)
	for _, s := range objSup {
		s.objAt = ro.Key()
	}
	fl.sup = append(fl.sup, objSup...)
	start := len(fl.findings)
	var pass *rules.Pass
	for _, r := range cfg.Rules {
		if r.Check == nil || !cfg.Enabled(r) || (r.MinVersion.Minor != 0 && !cfg.Version.AtLeast(r.MinVersion.Minor)) {
			continue
		}
		if pass == nil {
			pass = rules.NewPass(r, o, cfg.Version, cfg.Params, timelineOf, func(d rules.Diagnostic) { fl.report(pass.Rule, o, d) })
		}
		fl.runRule(r, o, pass)
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
				s.used = true
				f.RuleID = "" // dropped in finish
			}
		}
	}
}

// runRule runs r over o with pass, which every rule of the object shares
// (one allocation per object, not per rule): pass.Rule is set to r here.
func (fl *fileLinter) runRule(r *rules.Rule, o *manifest.Object, pass *rules.Pass) {
	defer func() {
		if p := recover(); p != nil {
			pos, _ := o.Doc.Locate(o.Path)
			fl.addFinding(fl.cfg.newFinding(rules.InternalError, &o.Ref, finding.Location{Line: pos.Line, Column: pos.Column},
				fmt.Sprintf("rule %s (%s) crashed on this object", r.ID, r.Name),
				withSource(fmt.Sprintf("%v; other rules still ran; please report this bug with the manifest", p), o.Doc.Source)))
		}
	}()
	pass.Rule = r
	r.Check(pass)
}

// report records a diagnostic of rule r on o.
func (fl *fileLinter) report(r *rules.Rule, o *manifest.Object, d rules.Diagnostic) {
	pos, _ := o.Doc.Locate(d.Path)
	f := fl.addFinding(fl.cfg.newFinding(r, &o.Ref, finding.Location{Line: pos.Line, Column: pos.Column},
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
		fl.addFinding(fl.cfg.newFinding(rules.UnusedSuppression, s.obj, loc,
			fmt.Sprintf("suppression names %q, which is not a rule", s.name),
			"A suppression names a rule by ID (PL101) or name (liveness-kills-before-ready); run `podlint rules` for the list."))
		return
	}
	if s.reason == "" {
		fl.addFinding(fl.cfg.newFinding(rules.SuppressionMissingReason, s.obj, loc,
			fmt.Sprintf("suppression of %s (%s) gives no reason", s.rule.ID, s.rule.Name),
			"Write why the finding does not apply after the rule name, so the next reader can judge whether it still holds."))
	}
	if isRelease(s.rule) {
		fl.deferSuppression(s) // used or not is known at the end of the run
		return
	}
	if !s.used && fl.cfg.Enabled(s.rule) {
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
		fl.addFinding(fl.cfg.newFinding(rules.UnusedSuppression, s.obj, loc, msg, detail))
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
