package fix

import (
	"bytes"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

// InRun verifies the fixes of `podlint check -f json|sarif` while the run
// lints: Document is analyzer.Options.VerifyFixes, which the workers call
// for each document with fixes while it is loaded, and Finish verifies,
// after the run, what the workers could not (VerifyResult on those
// findings only). The report is the one VerifyResult alone gives: each fix
// is checked as VerifyAll checks it, with the run's findings of the
// document as the "before" and the edited document alone linted for the
// "after", so that a fix costs one parse of its edited document, on the
// worker that holds the document.
type InRun struct {
	mu sync.Mutex
	// handled are the files whose documents went through Document.
	handled map[string]bool
	// left are the findings with a fix that only the whole file can
	// verify.
	left map[findingKey]bool
	// dropped are the fixes of findings of files linted in batches that
	// failed at the end of the file, when the findings had left the
	// workers: Finish drops them (by index in the finding's fixes).
	dropped map[findingKey][]int
	json    map[string]bool // IsJSON of the files with fixes
	// decided and undecided count the fixes Document judged and those it
	// left to Finish.
	decided, undecided atomic.Int64
}

// findingKey identifies a finding of the run in its result.
type findingKey struct {
	file, rule, path, container, object, message string
	line, column                                 int
}

func keyIn(f *finding.Finding) findingKey {
	k := findingKey{file: f.File, rule: f.RuleID, path: f.Path, container: f.Container, message: f.Message, line: f.Line, column: f.Column}
	if f.Object != nil {
		k.object = f.Object.String()
	}
	return k
}

// Counts returns how many fixes the workers judged and how many they left
// to Finish.
func (v *InRun) Counts() (decided, left int) {
	return int(v.decided.Load()), int(v.undecided.Load())
}

// NewInRun returns an InRun for one run.
func NewInRun() *InRun {
	return &InRun{handled: map[string]bool{}, left: map[findingKey]bool{}, dropped: map[findingKey][]int{}, json: map[string]bool{}}
}

// Document verifies the fixes of one loaded document (see InRun). A fix
// that changes the document's share of the cross-object view is judged at
// the end of the file, which tells where that share matters; the others
// at once.
func (v *InRun) Document(d *analyzer.FixDoc) {
	c := &docCheck{d: d, json: v.isJSON(d.Path, d.Data)}
	var waiting []waitingFix
	v.mu.Lock()
	v.handled[d.Path] = true
	v.mu.Unlock()
	for i, f := range d.Findings {
		kept := f.Fixes[:0:0]
		for k := range f.Fixes {
			x := c.verify(f, &f.Fixes[k])
			if x.shared != nil {
				waiting = append(waiting, waitingFix{i, len(kept), keyIn(f), x})
				kept = append(kept, f.Fixes[k])
				continue
			}
			if decided, err := x.resolve(nil); v.count(f, decided, err) {
				kept = append(kept, f.Fixes[k])
			}
		}
		if len(kept) == 0 {
			kept = nil
		}
		f.Fixes = kept
	}
	if len(waiting) == 0 {
		return
	}
	// Only the verdicts wait, not the document's parse.
	d.AtFileEnd(func(file *crossobject.Relevance, found []*finding.Finding) { v.atFileEnd(waiting, file, found) })
}

// waitingFix is a fix whose verdict waits for the end of the file: the
// fix at index fix of the fixes kept in finding index of the document.
type waitingFix struct {
	finding, fix int
	key          findingKey
	verdict      verdict
}

// count counts a fix of f decided (or left to the whole file) and reports
// whether the report keeps it.
func (v *InRun) count(f *finding.Finding, decided bool, err error) (keep bool) {
	if decided {
		v.decided.Add(1)
		return err == nil
	}
	v.undecided.Add(1)
	v.mu.Lock()
	v.left[keyIn(f)] = true
	v.mu.Unlock()
	return true
}

// atFileEnd judges the waiting fixes of a document once the file's
// relevance is known: in the document's findings (found) while the file's
// worker holds them, else (a file linted in batches) for Finish to apply.
func (v *InRun) atFileEnd(waiting []waitingFix, file *crossobject.Relevance, found []*finding.Finding) {
	drop := map[int][]int{} // fix indices to drop, by finding
	for _, w := range waiting {
		decided, err := w.verdict.resolve(file)
		if decided {
			v.decided.Add(1)
			if err != nil {
				drop[w.finding] = append(drop[w.finding], w.fix)
			}
			continue
		}
		v.undecided.Add(1)
		v.mu.Lock()
		v.left[w.key] = true
		v.mu.Unlock()
	}
	for i, fixes := range drop {
		if found != nil {
			found[i].Fixes = without(found[i].Fixes, fixes)
			continue
		}
		key := waiting[slices.IndexFunc(waiting, func(w waitingFix) bool { return w.finding == i })].key
		v.mu.Lock()
		v.dropped[key] = append(v.dropped[key], fixes...)
		v.mu.Unlock()
	}
}

// without returns fixes without those at the indices drop.
func without(fixes []finding.Fix, drop []int) []finding.Fix {
	var out []finding.Fix
	for k := range fixes {
		if !slices.Contains(drop, k) {
			out = append(out, fixes[k])
		}
	}
	return out
}

func (v *InRun) isJSON(path string, data []byte) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	j, ok := v.json[path]
	if !ok {
		j = manifest.IsJSON(path, data)
		v.json[path] = j
	}
	return j
}

// Finish verifies the fixes of res that Document did not: those of the
// cross-object rules, of files it did not see (rendered charts and
// kustomizations) and of files with a fix it left to the whole file. read
// is VerifyResult's.
func (v *InRun) Finish(cfg *analyzer.Linter, res *finding.Result, read func(path string) ([]byte, error)) (dropped int) {
	if len(v.dropped) > 0 {
		// The fixes that failed at the end of a file linted in batches.
		// Two findings of one key cannot be told apart: both are left to
		// the whole file.
		seen := map[findingKey]int{}
		for i := range res.Len() {
			if f := res.At(i); len(f.Fixes) > 0 {
				if k := keyIn(&f); v.dropped[k] != nil {
					seen[k]++
				}
			}
		}
		for i := range res.Len() {
			f := res.At(i)
			k := keyIn(&f)
			if len(f.Fixes) == 0 || v.dropped[k] == nil {
				continue
			}
			if seen[k] > 1 {
				if !v.left[k] {
					v.left[k] = true
					n := int64(len(v.dropped[k]))
					v.decided.Add(-n)
					v.undecided.Add(n)
				}
				continue
			}
			dropped += len(v.dropped[k])
			res.SetFixes(i, without(f.Fixes, v.dropped[k]))
		}
	}
	return dropped + verifyResult(cfg, res, read, func(f *finding.Finding) bool {
		if r := cfg.Rules.ByName(f.RuleName); r == nil || r.CrossObject != nil {
			return true
		}
		return !v.handled[f.File] || v.left[keyIn(f)]
	})
}

// docCheck verifies fixes of one document of a run (InRun.Document).
type docCheck struct {
	d    *analyzer.FixDoc
	json bool
	// original is the document decoded (decodeAll), before its findings
	// and share, each computed when first needed.
	original                 []any
	before                   docLint
	haveOriginal, haveBefore bool
	beforeOK                 bool
}

// errUndecided is not an error: the fix is left to the whole file.
var errUndecided = errors.New("left to the whole file")

// verdict is what the document tells of one fix.
type verdict struct {
	err    error // errUndecided: only the whole file can tell
	shared *sharedChange
}

// sharedChange is a fix that changes the document's share of the
// cross-object view. Its verdict (err) holds when the share changed only
// in summaries no cross-object rule reads: workloads of namespaces in
// which nothing of the file, before the fix or after it, selects them (as
// checker.inDocument); otherwise only the whole file can tell.
type sharedChange struct {
	before, after analyzer.Share
}

// resolve returns the verdict once the file's relevance is known (nil:
// unknown, the fix is left to the whole file). decided is false when only
// the whole file can tell; the fix is then kept for Finish.
func (x verdict) resolve(file *crossobject.Relevance) (decided bool, err error) {
	if s := x.shared; s != nil {
		if file == nil {
			return false, nil
		}
		var fixed crossobject.Relevance
		s.after.AddRelevance(&fixed)
		if !s.after.EqualIn(s.before, func(ns string) bool { return file.Has(ns) || fixed.Has(ns) }) {
			return false, nil
		}
	}
	if x.err == errUndecided {
		return false, nil
	}
	return true, x.err
}

// verify checks fix x of f as VerifyAll would.
func (c *docCheck) verify(f *finding.Finding, x *finding.Fix) verdict {
	var shared *sharedChange
	err := c.check(f, x, &shared)
	if err == errUndecided {
		shared = nil
	}
	return verdict{err, shared}
}

// check is verify; a fix that changes the document's share sets *shared.
func (c *docCheck) check(f *finding.Finding, x *finding.Fix, shared **sharedChange) error {
	d := c.d
	if len(x.Edits) == 0 {
		return errors.New("the fix has no edits")
	}
	for _, e := range x.Edits {
		if e.File != d.Path {
			return errUndecided // VerifyAll's message names the files
		}
	}
	edits, err := sorted(x.Edits)
	if err != nil {
		return err
	}
	lo, hi := edits[0].Start, edits[0].End
	for _, e := range edits[1:] {
		lo, hi = min(lo, e.Start), max(hi, e.End)
	}
	if lo < d.Start || hi > d.End {
		return errUndecided // not inside this document alone
	}
	original := c.decoded()
	for i := range edits {
		edits[i].Start -= d.Start
		edits[i].End -= d.Start
	}
	doc, err := finding.ApplyEdits(d.Data[d.Start:d.End], edits)
	if err != nil {
		return err
	}
	if c.json {
		if err := manifest.ValidJSON(doc); err != nil {
			return err
		}
	}
	// The edited document is linted before its text is compared, so that
	// one parse serves both.
	after, share, parsed, ok := d.Lint(doc)
	if !ok {
		return errUndecided
	}
	var edited []any
	if parsed != nil && oneDocument(doc) {
		if edited, err = plainDocument(parsed); err != nil {
			return err
		}
	} else if edited, err = decodeAll(doc); err != nil {
		return err
	}
	if err := sameDecoded(original, edited, x.Paths); err != nil {
		return err
	}
	// As checker.inDocument.
	if r := d.Linter().Rules.ByName(f.RuleName); r == nil || r.CrossObject != nil {
		return errUndecided
	}
	before, ok := c.beforeFix()
	if !ok {
		return errUndecided
	}
	var mine *finding.Finding
	for i := range before.findings {
		if sameFinding(&before.findings[i], f) {
			mine = &before.findings[i]
			break
		}
	}
	if mine == nil {
		return errUndecided
	}
	if !share.Equal(before.share) {
		*shared = &sharedChange{before.share, share}
	}
	whole, err := judge(d.Linter(), mine, before.findings, after, 1)
	if whole {
		return errUndecided
	}
	return err
}

// decoded returns the document decoded as decodeAll would, from the run's
// parse when that is the same: nil when it does not parse alone.
func (c *docCheck) decoded() []any {
	if c.haveOriginal {
		return c.original
	}
	c.haveOriginal = true
	d := c.d
	text := d.Data[d.Start:d.End]
	var v []any
	if d.Doc != nil && oneDocument(text) {
		v, _ = plainDocument(d.Doc)
	} else {
		v, _ = decodeAll(text)
	}
	if v == nil {
		v = []any{} // as checker.decoded
	}
	c.original = v
	return v
}

func (c *docCheck) beforeFix() (docLint, bool) {
	if !c.haveBefore {
		c.haveBefore = true
		c.before.findings, c.before.share, c.beforeOK = c.d.Before()
	}
	return c.before, c.beforeOK
}

// oneDocument reports whether text, one document of a split file, is one
// document to the YAML parser as well: no line starts with a directive,
// which would begin a second one (yaml.Unmarshal, the run's parse, reads
// only the first; decodeAll reads them all).
func oneDocument(text []byte) bool {
	return !bytes.HasPrefix(text, []byte("%")) && !bytes.Contains(text, []byte("\n%")) && !bytes.Contains(text, []byte("\r%"))
}

// plainDocument is decodeAll of a document from its parse.
func plainDocument(doc *manifest.Document) ([]any, error) {
	budget := 1 << 20
	v, err := plain(doc.Root, &budget)
	if err != nil {
		return nil, err
	}
	return []any{v}, nil
}
