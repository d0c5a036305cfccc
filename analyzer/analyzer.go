// Package analyzer runs the enabled rules over loaded objects: it reads and
// loads files on a bounded pool of workers, computes each workload's timeline
// once, runs every rule with panic recovery, applies suppressions, resolves
// field paths to positions and returns the findings sorted.
package analyzer

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/release"
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
	// Render lints a source that is a Helm chart or a kustomization
	// (Source.Render set); nil when rendering is off.
	Render func(*Config, manifest.Source) ([]finding.Finding, finding.Summary, error)
}

// Enabled reports whether r runs.
func (c *Config) Enabled(r *rules.Rule) bool { return c.Severity[r] > finding.Off }

// Sources larger than splitBytes are read and cut into documents before
// they reach the workers, and their documents are linted in batches of
// about batchBytes on every worker: one large file or standard input
// (`helm template big-chart | podlint check -`) uses all cores, and no
// worker holds more than one document's nodes at a time.
var (
	splitBytes = 1 << 20
	batchBytes = 256 << 10
)

// inputBytes counts the bytes of the sources read whole to be linted in
// batches (large files, standard input) from their reading until they are
// merged. They hold no pointers, so the collector keeps them at no cost,
// and the CLI's GC policy lets the heap grow past them (InputBytes).
var inputBytes atomic.Int64

// InputBytes is the size of the large inputs Run holds at the moment.
func InputBytes() int64 { return inputBytes.Load() }

// Run lints the sources and returns the sorted findings. Errors are I/O
// failures that name their path; they do not stop the other sources.
func Run(cfg *Config, srcs []manifest.Source) (*finding.Result, []error) {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type out struct {
		findings []finding.Finding
		sum      finding.Summary
		part     *filePart
		err      error
		// a source linted in batches: its split and raw bytes, its batches
		// (a worker fills a slot, the merge takes it once its event came)
		// and the assembly of those merged so far
		split   *manifest.Split
		data    []byte
		batches []*batch
		arrived []bool
		merged  int
		asm     *assembly
	}
	// An entry exists from the time its source is handed out until it is
	// merged: a run over many files holds only those in flight.
	results := make([]*out, len(srcs))
	type job struct {
		src      int
		batch    int // index in results[src].batches, -1 for the whole source
		from, to int
	}
	next := make(chan job)
	// done says that a source (batch -1) or one batch of it was linted.
	done := make(chan job, 64)
	var wg sync.WaitGroup
	// As many workers as CPUs even for fewer sources: one large file or
	// standard input is cut into batches that all of them take.
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				r := results[j.src]
				if j.batch < 0 {
					r.findings, r.sum, r.part, r.err = cfg.source(srcs[j.src])
				} else {
					r.batches[j.batch] = cfg.lintDocs(r.split, j.from, j.to)
				}
				done <- j
			}
		}()
	}

	// The ordered merge: the findings of each source, and of each batch of a
	// source linted in batches, join the result as soon as everything before
	// them has, and the source's own copy is dropped. A source is looked at
	// only once an event for it came, which orders it after the writes of
	// the reader and the workers.
	res := &finding.Result{Packed: finding.NewStore()}
	var errs []error
	var parts []*filePart
	// Findings in rendered charts and kustomizations wait for the end of
	// the merge: a file that several roots render is reported once
	// (mergeOverlays). They are few: one per problem of a template.
	var rendered []finding.Finding
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		seen := make([]bool, len(srcs))
		complete := make([]bool, len(srcs))
		in := newInterner()
		var relevant release.Relevance
		kept := 0
		addPart := func(fp *filePart, p *release.Part) {
			relevant.Add(p)
			kept = keepSummaries(p, &relevant, kept)
			for _, w := range p.Workloads {
				w.Labels = in.labels(w.Labels)
			}
			if c := p.Compact(); c != nil {
				fp.parts = append(fp.parts, c)
			}
		}
		addFindings := func(fs []finding.Finding) {
			for j := range fs {
				if fs[j].Rendered != nil {
					rendered = append(rendered, fs[j]) // merged at the end
					continue
				}
				res.Packed.Add(&fs[j])
			}
		}
		k := 0
		for ev := range done {
			seen[ev.src] = true
			if r := results[ev.src]; ev.batch >= 0 {
				r.arrived[ev.batch] = true
			} else {
				complete[ev.src] = true
			}
			for ; k < len(srcs) && seen[k]; k++ {
				r := results[k]
				if r.split != nil {
					if r.asm == nil {
						r.asm = cfg.newAssembly(r.split, r.data, srcs[k].Explicit)
						r.part = r.asm.fl.part
					}
					for ; r.merged < len(r.batches) && r.arrived[r.merged]; r.merged++ {
						addPart(r.part, r.asm.add(r.batches[r.merged]))
						r.batches[r.merged] = nil
						addFindings(r.asm.take())
					}
					if r.merged < len(r.batches) {
						break
					}
					addFindings(r.asm.finish())
					r.sum = r.asm.sum
				} else {
					if !complete[k] {
						break
					}
					addFindings(r.findings)
					if r.part != nil {
						batchParts := r.part.parts
						r.part.parts = nil
						for _, p := range batchParts {
							addPart(r.part, p)
						}
					}
				}
				if r.part != nil && (len(r.part.parts) > 0 || len(r.part.deferred) > 0) {
					parts = append(parts, r.part)
				}
				inputBytes.Add(-int64(len(r.data)))
				res.Summary.Files += r.sum.Files
				res.Summary.Objects += r.sum.Objects
				res.Summary.Workloads += r.sum.Workloads
				res.Summary.Rendered = append(res.Summary.Rendered, r.sum.Rendered...)
				if r.err != nil {
					errs = append(errs, r.err)
				}
				results[k] = nil
			}
			if k == len(srcs) {
				return
			}
		}
	}()

	for i, src := range srcs {
		data, tooBig, err, big := cfg.readLarge(src)
		r := &out{}
		results[i] = r
		switch {
		case !big:
			next <- job{i, -1, 0, 0}
			continue
		case err != nil:
			r.err = err
			done <- job{i, -1, 0, 0}
			continue
		case tooBig:
			r.findings, r.sum = cfg.tooBig(src), finding.Summary{Files: 1}
			done <- job{i, -1, 0, 0}
			continue
		}
		inputBytes.Add(int64(len(data)))
		r.data, r.split = data, manifest.SplitFile(src.Path, data, cfg.Limits)
		ranges := batches(r.split)
		r.batches, r.arrived = make([]*batch, len(ranges)), make([]bool, len(ranges))
		for k, rg := range ranges {
			next <- job{i, k, rg[0], rg[1]}
		}
	}
	close(next)
	wg.Wait()
	close(done)
	<-merged
	for _, f := range mergeOverlays(rendered) {
		res.Packed.Add(&f)
	}

	// The files are one release: the cross-object rules run over all of them.
	cfg.releaseFindings(parts, res.Packed, sourceReader(cfg, srcs))
	res.Packed.Sort()
	return res, errs
}

// summaryBudget is how many workload summaries a run keeps whatever
// their namespace (about 600 bytes each with their labels). Past it, the
// workloads of a namespace that holds no object the cross-object rules
// compare them with are dropped and, should such an object come later,
// loaded again at the end (release.Part.Drop), so that memory stays flat
// on a run of any size while a run of ordinary size never loads a
// document twice.
var summaryBudget = 1024

// keepSummaries drops the summaries of p that the budget does not keep,
// given the workloads kept so far, and returns the new count. It runs in
// source order on one goroutine, so what it keeps does not depend on
// timing.
func keepSummaries(p *release.Part, relevant *release.Relevance, kept int) int {
	decided := map[string]bool{}
	p.Drop(func(ns string) bool {
		keep, ok := decided[ns]
		if !ok {
			keep = relevant.Has(ns) || kept < summaryBudget
			decided[ns] = keep
		}
		if keep {
			kept++
		}
		return keep
	})
	return kept
}

// interner shares the pod template labels of the release view's
// workloads (a map each, read only): identical sets are held once (a chart
// rendered for several environments, or the same template in many
// workloads, repeats them thousands of times). Findings share their strings
// in the run's finding.Store.
type interner struct {
	labelSets map[string]map[string]string
	key       []string
}

func newInterner() *interner {
	return &interner{labelSets: map[string]map[string]string{}}
}

// labels returns the set held for m's pairs, recording m when it is new.
func (in *interner) labels(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	in.key = in.key[:0]
	for k, v := range m {
		in.key = append(in.key, k+"\x00"+v)
	}
	slices.Sort(in.key)
	key := strings.Join(in.key, "\x00\x00")
	if shared, ok := in.labelSets[key]; ok {
		return shared
	}
	in.labelSets[key] = m
	return m
}

// readLarge reads a source that is to be linted in batches: standard input
// or a regular file larger than splitBytes. big is false for the others,
// which a worker reads itself.
func (cfg *Config) readLarge(src manifest.Source) (data []byte, tooBig bool, err error, big bool) {
	if src.Render != "" {
		return nil, false, nil, false
	}
	if src.Data != nil {
		return src.Data, false, nil, len(src.Data) > splitBytes
	}
	if fi, serr := os.Stat(src.Path); serr != nil || !fi.Mode().IsRegular() || fi.Size() <= int64(splitBytes) {
		return nil, false, nil, false
	}
	data, tooBig, err = src.Read(cfg.Limits.MaxFileSize)
	return data, tooBig, err, true
}

// batches cuts a split's documents into runs of about batchBytes.
func batches(sp *manifest.Split) [][2]int {
	var out [][2]int
	from, size := 0, 0
	for i := range sp.Docs() {
		size += sp.DocBytes(i)
		if size >= batchBytes {
			out = append(out, [2]int{from, i + 1})
			from, size = i+1, 0
		}
	}
	if from < sp.Docs() || len(out) == 0 {
		out = append(out, [2]int{from, sp.Docs()})
	}
	return out
}

// source lints one source. A render root (a Helm chart or a kustomization)
// is linted by cfg.Render as a release of its own, with its findings already
// moved to the files the user edits, so it has no part in the run's release.
func (cfg *Config) source(src manifest.Source) ([]finding.Finding, finding.Summary, *filePart, error) {
	if src.Render != "" {
		if cfg.Render == nil {
			return nil, finding.Summary{}, nil, fmt.Errorf("%s: rendering is off", src.Path)
		}
		f, s, err := cfg.Render(cfg, src)
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
	r := rules.LimitExceeded
	if !cfg.Enabled(r) {
		return nil
	}
	return []finding.Finding{{RuleID: r.ID, RuleName: r.Name, Severity: cfg.Severity[r],
		Location: finding.Location{File: src.Path, Line: 1, Column: 1},
		Message:  TooBig("file", cfg.Limits.MaxFileSize) + " and was not linted",
		Detail:   "Raise --max-file-size to lint it."}}
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
// suppressions of its objects and its share of the release view.
type batch struct {
	findings []finding.Finding
	sup      []*suppression
	part     release.Part
	sum      finding.Summary
}

// lintDocs loads and lints documents [from, to) of a file one at a time:
// a document's nodes and typed objects are garbage once its objects are
// linted, and its findings keep positions and copies of object references,
// never nodes.
func (cfg *Config) lintDocs(sp *manifest.Split, from, to int) *batch {
	b := &batch{part: release.Part{File: sp.File.Path, From: from, To: to}}
	fl := &fileLinter{cfg: cfg, file: sp.File, binary: sp.Binary, part: &filePart{}}
	var res manifest.Result
	for i := from; i < to; i++ {
		clear(res.Objects)
		res.Objects, res.Problems = res.Objects[:0], res.Problems[:0]
		sp.Load(i, cfg.Limits, &res)
		start := len(fl.findings)
		for _, p := range res.Problems {
			fl.addFinding(cfg.Rules.ByName(p.Rule), finding.Finding{Object: p.Object, Location: finding.Location{Line: p.Line, Column: p.Column},
				Message: p.Message, Detail: withSource(p.Detail, p.Source), Fixes: p.Fixes})
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
	byLine map[int][]*suppression // the comment suppressions, by the line they cover
	sum    finding.Summary
}

// newAssembly starts a file: its comment suppressions and the findings of
// the file as a whole (empty, not YAML, …).
func (cfg *Config) newAssembly(sp *manifest.Split, data []byte, explicit bool) *assembly {
	fl := &fileLinter{cfg: cfg, file: sp.File, sup: scanComments(sp.File, cfg.Rules), binary: sp.Binary, part: &filePart{}}
	a := &assembly{fl: fl, byLine: map[int][]*suppression{}, sum: finding.Summary{Files: 1}}
	for _, s := range fl.sup {
		if s.line > 0 {
			a.byLine[s.line] = append(a.byLine[s.line], s)
		}
	}
	if explicit && len(sp.Problems) == 0 && manifest.Blank(data) {
		fl.addFinding(rules.EmptyFile, finding.Finding{Location: finding.Location{Line: 1, Column: 1},
			Message: "file is empty or holds only comments", Detail: "Nothing was linted."})
	}
	for _, p := range sp.Problems {
		fl.addFinding(cfg.Rules.ByName(p.Rule), finding.Finding{Object: p.Object, Location: finding.Location{Line: p.Line, Column: p.Column},
			Message: p.Message, Detail: withSource(p.Detail, p.Source)})
	}
	return a
}

// add takes in the next batch and returns its share of the release view.
func (a *assembly) add(b *batch) *release.Part {
	a.fl.findings = append(a.fl.findings, b.findings...)
	a.fl.sup = append(a.fl.sup, b.sup...)
	// The part stays for the release view; the rest is garbage now.
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

// addFinding completes f (rule, severity, file, source line) and records it.
func (fl *fileLinter) addFinding(r *rules.Rule, f finding.Finding) *finding.Finding {
	if r == nil || !fl.cfg.Enabled(r) {
		return nil
	}
	f.File = fl.file.Path
	for i := range f.Related {
		f.Related[i].File = fl.file.Path
	}
	f.RuleID, f.RuleName, f.Severity = r.ID, r.Name, fl.cfg.Severity[r]
	if !fl.binary {
		f.SourceLine, f.SourceCut, f.SourceCutRunes = fl.file.Snippet(f.Line, f.Column)
	}
	fl.findings = append(fl.findings, f)
	return &fl.findings[len(fl.findings)-1]
}

// object runs every enabled rule over one workload; ro is its entry in
// the release view.
func (fl *fileLinter) object(o *manifest.Object, ro *release.Object, docStart int) {
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
			fl.addFinding(rules.InternalError, finding.Finding{Object: &o.Ref, Location: finding.Location{Line: pos.Line, Column: pos.Column},
				Message: fmt.Sprintf("rule %s (%s) crashed on this object", r.ID, r.Name),
				Detail:  withSource(fmt.Sprintf("%v; other rules still ran; please report this bug with the manifest", p), o.Doc.Source)})
		}
	}()
	pass.Rule = r
	r.Check(pass)
}

// report records a diagnostic of rule r on o.
func (fl *fileLinter) report(r *rules.Rule, o *manifest.Object, d rules.Diagnostic) {
	pos, _ := o.Doc.Locate(d.Path)
	var related []finding.Location
	for _, rel := range d.Related {
		rp, _ := o.Doc.Locate(rel.Path)
		related = append(related, finding.Location{Line: rp.Line, Column: rp.Column, Message: rel.Message,
			CodePointColumn: o.Doc.File.CodePointColumn(rp.Line, rp.Column)})
	}
	f := fl.addFinding(r, finding.Finding{Object: &o.Ref, Location: finding.Location{Line: pos.Line, Column: pos.Column},
		Container: d.Container, Message: d.Message, Detail: withSource(d.Detail, o.Doc.Source), Related: related, Path: string(d.Path)})
	if f != nil && d.Info {
		f.Severity = min(f.Severity, finding.Info)
	}
	if f != nil && len(d.Fixes) > 0 {
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
		fx.LineEdits = finding.WholeLines(o.Doc.File.Data, o.Doc.File.Base, fx.Edits)
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
		fl.addFinding(rules.UnusedSuppression, finding.Finding{Object: s.obj, Location: loc,
			Message: fmt.Sprintf("suppression names %q, which is not a rule", s.name),
			Detail:  "A suppression names a rule by ID (PL101) or name (liveness-kills-before-ready); run `podlint rules` for the list."})
		return
	}
	if s.reason == "" {
		fl.addFinding(rules.SuppressionMissingReason, finding.Finding{Object: s.obj, Location: loc,
			Message: fmt.Sprintf("suppression of %s (%s) gives no reason", s.rule.ID, s.rule.Name),
			Detail:  "Write why the finding does not apply after the rule name, so the next reader can judge whether it still holds."})
	}
	if isRelease(s.rule) {
		fl.deferSuppression(s) // used or not is known at the end of the run
		return
	}
	if !s.used && fl.cfg.Enabled(s.rule) {
		fl.addFinding(rules.UnusedSuppression, finding.Finding{Object: s.obj, Location: loc,
			Message: fmt.Sprintf("suppression of %s (%s) matches no finding", s.rule.ID, s.rule.Name),
			Detail:  "Remove it, so it cannot hide a future finding that nobody has looked at."})
	}
}
