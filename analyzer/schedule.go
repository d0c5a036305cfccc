package analyzer

import (
	"cmp"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

// Options tune Run's scheduler; the zero value is the default of each.
// They change how a run is spread over goroutines and memory, never its
// findings. Tests set them to reach the batch and budget paths with small
// inputs (each run has its own, so such tests run in parallel).
type Options struct {
	// Workers bounds how many files are in memory at once; 0 means one per
	// CPU.
	Workers int
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
	// VerifyFixes, when set, is called by the worker that lints a file
	// for each of its documents whose findings carry fixes, while the
	// document is loaded (FixDoc), to drop the fixes that fail
	// verification: check -f json|sarif, whose reports offer fixes.
	// The findings of the cross-object rules, of rendered charts and
	// kustomizations and whatever it leaves to the whole file are verified
	// after the run.
	VerifyFixes func(*FixDoc)
	// InputBytes, when set, counts the bytes of the sources the run reads
	// whole to lint in batches (large files, standard input) from their
	// reading until they are merged: a measure for the CLI's GC pacing
	// (internal/gctune), not a knob. They hold no pointers, so the
	// collector keeps them at no cost, and the pacing lets the heap grow
	// past them. Each run has its own (the CLI's runEnv): two runs of one
	// process never count into one another's.
	InputBytes *atomic.Int64
}

// The defaults of Options.SplitBytes, BatchBytes and SummaryBudget. A
// summary takes about 600 bytes with its labels.
const (
	DefaultSplitBytes    = 1 << 20
	DefaultBatchBytes    = 256 << 10
	DefaultSummaryBudget = 1024
)

func (o Options) splitBytes() int { return cmp.Or(o.SplitBytes, DefaultSplitBytes) }
func (o Options) batchBytes() int { return cmp.Or(o.BatchBytes, DefaultBatchBytes) }
func (o Options) summaryBudget() int {
	if o.SummaryBudget < 0 {
		return 0
	}
	return cmp.Or(o.SummaryBudget, DefaultSummaryBudget)
}

// Run lints the sources and returns the run's findings in one store, sorted
// once in report order (finding.Less), the order every report writer
// prints them in without sorting again. Errors are I/O failures that name
// their path; they do not stop the other sources.
//
// Run is the scheduler, tuned by opt; what it runs is the Linter's: the single-object
// rules over a file's documents (file, lintDocs and the assembly of a
// file's batches), then the cross-object rules over the run's release
// view (crossObjectFindings). The scheduler reads the sources, hands them (or
// batches of the documents of a large one) to as many workers as CPUs,
// merges what they return in source order, keeps the cross-object view within
// the summary budget, and holds nothing of a source once it is merged.
func Run(l *Linter, opt Options, srcs []manifest.Source) (*finding.Result, []error) {
	s := &scheduler{lint: l, opt: opt, srcs: srcs, results: make([]*pending, len(srcs)),
		next: make(chan job), done: make(chan job, 64),
		res: &finding.Result{Packed: finding.NewStore()}}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// As many workers as CPUs even for fewer sources: one large file or
	// standard input is cut into batches that all of them take.
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work()
		}()
	}
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		s.merge()
	}()
	s.feed()
	close(s.next)
	wg.Wait()
	close(s.done)
	<-merged
	for _, f := range mergeOverlays(s.rendered) {
		s.res.Packed.Add(&f)
	}
	// The files are one release: the cross-object rules run over all of them.
	l.crossObjectFindings(s.parts, s.res.Packed, sourceReader(l, srcs))
	s.res.Packed.Sort()
	return s.res, s.errs
}

// held adds n to the run's count of the input bytes it holds, if it keeps one.
func (s *scheduler) held(n int64) {
	if s.opt.InputBytes != nil {
		s.opt.InputBytes.Add(n)
	}
}

// scheduler is the state of one Run.
type scheduler struct {
	lint *Linter
	opt  Options
	srcs []manifest.Source
	// results has an entry for each source from the time it is handed out
	// until it is merged: a run over many files holds only those in
	// flight.
	results []*pending
	next    chan job
	// done says that a source (batch -1) or one batch of it was linted.
	done chan job

	// What the merge gathers.
	res   *finding.Result
	errs  []error
	parts []*filePart
	// Findings in rendered charts and kustomizations wait for the end of
	// the merge: a file that several roots render is reported once
	// (mergeOverlays). They are few: one per problem of a template.
	rendered []finding.Finding
}

// job is one source to lint (batch -1) or documents [from, to) of a large
// one, its batch'th batch.
type job struct {
	src      int
	batch    int
	from, to int
}

// pending is a source between its reading and its merge.
type pending struct {
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
	// end is what fix verification left for the end of the file
	// (FixDoc.AtFileEnd), which the merge reaches
	end *fileEnd
}

// work lints jobs until there are none.
func (s *scheduler) work() {
	for j := range s.next {
		r := s.results[j.src]
		if j.batch < 0 {
			r.findings, r.sum, r.part, r.err = s.lint.source(s.srcs[j.src], s.opt.VerifyFixes)
		} else {
			r.batches[j.batch] = s.lint.lintDocs(r.split, j.from, j.to, s.lint.verifier(s.opt.VerifyFixes, r.split, r.data, r.end))
		}
		s.done <- j
	}
}

// feed hands out the sources in order: a small file as one job, which the
// worker reads, and a large one (or standard input), read here, as jobs of
// about BatchBytes of its documents. A source that failed to read, or is
// over the size limit, is done at once.
func (s *scheduler) feed() {
	l := s.lint
	for i, src := range s.srcs {
		data, tooBig, err, big := s.readLarge(src)
		r := &pending{}
		s.results[i] = r
		switch {
		case !big:
			s.next <- job{i, -1, 0, 0}
			continue
		case err != nil:
			r.err = err
			s.done <- job{i, -1, 0, 0}
			continue
		case tooBig:
			r.findings, r.sum = l.tooBig(src), finding.Summary{Files: 1}
			s.done <- job{i, -1, 0, 0}
			continue
		case manifest.SkipWalkedJSON(src, data):
			r.sum = finding.Summary{Skipped: 1}
			s.done <- job{i, -1, 0, 0}
			continue
		}
		s.held(int64(len(data)))
		r.data, r.split = data, manifest.SplitFile(src.Path, data, l.Limits)
		if s.opt.VerifyFixes != nil {
			r.end = &fileEnd{}
		}
		ranges := batches(r.split, s.opt.batchBytes())
		r.batches, r.arrived = make([]*batch, len(ranges)), make([]bool, len(ranges))
		for k, rg := range ranges {
			s.next <- job{i, k, rg[0], rg[1]}
		}
	}
}

// merge is the ordered merge: the findings of each source, and of each
// batch of a source linted in batches, join the result as soon as
// everything before them has, and the source's own copy is dropped. A
// source is looked at only once an event for it came, which orders it
// after the writes of the reader and the workers.
func (s *scheduler) merge() {
	m := &merger{s: s, files: fileSet{}, seen: make([]bool, len(s.srcs)), complete: make([]bool, len(s.srcs)), in: newInterner(),
		budget: s.opt.summaryBudget()}
	k := 0
	for ev := range s.done {
		m.seen[ev.src] = true
		if r := s.results[ev.src]; ev.batch >= 0 {
			r.arrived[ev.batch] = true
		} else {
			m.complete[ev.src] = true
		}
		for ; k < len(s.srcs) && m.seen[k] && m.source(k); k++ {
			s.results[k] = nil
		}
		if k == len(s.srcs) {
			return
		}
	}
}

// merger is the state of the merge, on its one goroutine.
type merger struct {
	s              *scheduler
	seen, complete []bool
	in             *interner
	relevant       crossobject.Relevance
	kept, budget   int // workload summaries kept, and kept whatever their namespace
	files          fileSet
}

// source merges what has arrived of source k and reports whether all of
// it has.
func (m *merger) source(k int) bool {
	s := m.s
	r := s.results[k]
	if r.split != nil {
		if r.asm == nil {
			r.asm = s.lint.newAssembly(r.split, r.data, s.srcs[k].Explicit)
			r.part = r.asm.fl.part
		}
		for ; r.merged < len(r.batches) && r.arrived[r.merged]; r.merged++ {
			m.addPart(r.part, r.asm.add(r.batches[r.merged]))
			r.batches[r.merged] = nil
			m.addFindings(r.asm.take())
		}
		if r.merged < len(r.batches) {
			return false
		}
		m.addFindings(r.asm.finish())
		r.sum = r.asm.sum
		if r.end != nil && len(r.end.later) > 0 {
			r.end.call(r.part.parts, nil)
		}
	} else {
		if !m.complete[k] {
			return false
		}
		m.addFindings(r.findings)
		if r.part != nil {
			batchParts := r.part.parts
			r.part.parts = nil
			for _, p := range batchParts {
				m.addPart(r.part, p)
			}
		}
	}
	if r.part != nil && (len(r.part.parts) > 0 || len(r.part.deferred) > 0) {
		s.parts = append(s.parts, r.part)
	}
	s.held(-int64(len(r.data)))
	sum := &s.res.Summary
	if r.sum.Skipped == 0 {
		sum.Files += m.files.add(s.srcs[k], r.sum)
	}
	sum.Skipped += r.sum.Skipped
	sum.Objects += r.sum.Objects
	sum.Workloads += r.sum.Workloads
	sum.Rendered = append(sum.Rendered, r.sum.Rendered...)
	sum.NotRendered = append(sum.NotRendered, r.sum.NotRendered...)
	sum.Suppressed = append(sum.Suppressed, r.sum.Suppressed...)
	if r.err != nil {
		s.errs = append(s.errs, r.err)
	}
	return true
}

// addPart adds a batch's share of the cross-object view, within the budget.
func (m *merger) addPart(fp *filePart, p *crossobject.Part) {
	m.relevant.Add(p)
	m.kept = keepSummaries(p, &m.relevant, m.kept, m.budget)
	for _, w := range p.Workloads {
		w.Labels = m.in.labels(w.Labels)
	}
	if c := p.Compact(); c != nil {
		fp.parts = append(fp.parts, c)
	}
}

// addFindings adds findings to the result; those in rendered output wait
// for the end of the run.
func (m *merger) addFindings(fs []finding.Finding) {
	for j := range fs {
		if fs[j].Rendered != nil {
			m.s.rendered = append(m.s.rendered, fs[j])
			continue
		}
		m.s.res.Packed.Add(&fs[j])
	}
}

// keepSummaries drops the summaries of p that the budget does not keep,
// given the workloads kept so far, and returns the new count. Past the
// budget (Options.SummaryBudget), the workloads of a namespace that holds
// no object the cross-object rules compare them with are dropped and,
// should such an object come later, loaded again at the end
// (crossobject.Part.Drop), so that memory stays flat on a run of any size
// while a run of ordinary size never loads a document twice. It runs in
// source order on one goroutine, so what it keeps does not depend on
// timing.
func keepSummaries(p *crossobject.Part, relevant *crossobject.Relevance, kept, budget int) int {
	decided := map[string]bool{}
	p.Drop(func(ns string) bool {
		keep, ok := decided[ns]
		if !ok {
			keep = relevant.Has(ns) || kept < budget
			decided[ns] = keep
		}
		if keep {
			kept++
		}
		return keep
	})
	return kept
}

// interner shares the pod template labels of the cross-object view's
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
// or a regular file larger than Options.SplitBytes. big is false for the others,
// which a worker reads itself.
func (s *scheduler) readLarge(src manifest.Source) (data []byte, tooBig bool, err error, big bool) {
	if src.Render != "" {
		return nil, false, nil, false
	}
	if src.Data != nil {
		return src.Data, false, nil, len(src.Data) > s.opt.splitBytes()
	}
	if fi, serr := os.Stat(src.Path); serr != nil || !fi.Mode().IsRegular() || fi.Size() <= int64(s.opt.splitBytes()) {
		return nil, false, nil, false
	}
	data, tooBig, err = src.Read(s.lint.Limits.MaxFileSize)
	return data, tooBig, err, true
}

// batches cuts a split's documents into runs of about batchBytes.
func batches(sp *manifest.Split, batchBytes int) [][2]int {
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
