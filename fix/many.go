package fix

import (
	"errors"
	"fmt"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

// Candidate is a fix to verify with the finding it resolves.
type Candidate struct {
	Finding *finding.Finding
	Fix     *finding.Fix
}

// VerifyAll verifies every candidate fix of the file at path as Verify
// verifies one (data and before as for Verify) and returns, for each, nil
// or why it must not be offered.
//
// Verifying a fix by linting the whole file again is quadratic in a stream
// of many documents (`helm template | podlint check -f json -` on a
// thousand documents took minutes). The documents of a file are parsed on
// their own (manifest.SplitFile), so VerifyAll checks a fix on its
// document alone: its text and paths, and the document's findings before
// and after. When the document's share of the cross-object view is the same
// after the fix, no other document's findings can change, and the answer
// is the whole file's; nor when it changes only in summaries of workloads
// that nothing in their namespace selects, which no cross-object rule reads
// (a Deployment's restartPolicy). The whole file is linted again only when
// the share changes otherwise, when the fix's finding is a cross-object
// one, or when a finding the fix adds is one the cross-object view may drop
// (Rule.SupersededBy).
func VerifyAll(cfg *analyzer.Linter, path string, data []byte, before []finding.Finding, cands []Candidate) []error {
	return newChecker(cfg, path, data, before).verifyAll(cands)
}

// verifyAll is VerifyAll on the checker's file.
func (c *checker) verifyAll(cands []Candidate) []error {
	errs := make([]error, len(cands))
	for i, cand := range cands {
		d, doc, err := c.local(cand.Fix)
		if errs[i] = err; err != nil {
			continue
		}
		whole := d < 0
		if !whole {
			whole, errs[i] = c.inDocument(cand.Finding, d, doc)
		}
		if whole {
			_, _, errs[i] = c.lint(cand.Finding, cand.Fix)
		}
	}
	return errs
}

// checker verifies fixes of one file.
type checker struct {
	cfg    *analyzer.Linter
	path   string
	data   []byte
	before []finding.Finding // the whole file's (fileFindings)
	// lazy: before is to be computed when first needed (a fix that only
	// the whole file can verify).
	lazy  bool
	docs  [][2]int        // the documents' byte ranges in data (manifest.Split.DocRange)
	lines []int           // the line each document starts on
	alone map[int]docLint // by document, linted alone
	plain map[int][]any   // by document, decoded (decoded)
	// relevance is where workloads matter to the cross-object rules in
	// the file as it was (relevance), computed when first needed.
	rel *crossobject.Relevance
	// json is set for a JSON file, whose fixes must leave JSON (kubectl
	// decodes a .json file as JSON, not YAML).
	json bool
}

// fileFindings returns the findings of the whole file before any fix.
func (c *checker) fileFindings() []finding.Finding {
	if c.lazy {
		c.before, _ = c.cfg.File(c.path, c.data, true)
		c.lazy = false
	}
	return c.before
}

// relevance returns the namespaces in which the file's workloads matter
// to the cross-object rules, from the whole file's share (one lint of the
// file without the cross-object rules, for all its fixes).
func (c *checker) relevance() *crossobject.Relevance {
	if c.rel == nil {
		c.rel = &crossobject.Relevance{}
		_, share := c.cfg.Document(c.path, c.data)
		share.AddRelevance(c.rel)
	}
	return c.rel
}

func newChecker(cfg *analyzer.Linter, path string, data []byte, before []finding.Finding) *checker {
	c := &checker{cfg: cfg, path: path, data: data, before: before, alone: map[int]docLint{}, plain: map[int][]any{}}
	c.json = manifest.IsJSON(path, data)
	sp := manifest.SplitFile(path, data, cfg.Limits)
	if sp.File.Base >= 0 {
		for i := range sp.Docs() {
			s, e := sp.DocRange(i)
			c.docs = append(c.docs, [2]int{s, e})
			c.lines = append(c.lines, sp.DocLine(i))
		}
	}
	return c
}

// docOf returns the index of the document that holds every edit (an
// insertion may sit at either end), or -1.
func (c *checker) docOf(edits []finding.Edit) int {
	if len(edits) == 0 {
		return -1
	}
	lo, hi := edits[0].Start, edits[0].End
	for _, e := range edits[1:] {
		lo, hi = min(lo, e.Start), max(hi, e.End)
	}
	for i, d := range c.docs {
		if d[0] <= lo && hi <= d[1] {
			return i
		}
	}
	return -1
}

// local checks what a fix does to the text without linting: its edits
// apply, and the documents differ only at its paths. For a fix inside one
// document that parses on its own, it returns the document's index and its
// text after the fix; otherwise d is -1.
func (c *checker) local(x *finding.Fix) (d int, doc []byte, err error) {
	if len(x.Edits) == 0 {
		return -1, nil, errors.New("the fix has no edits")
	}
	for _, e := range x.Edits {
		if e.File != c.path {
			return -1, nil, fmt.Errorf("the fix edits %s, not %s", e.File, c.path)
		}
	}
	edits, err := sorted(x.Edits)
	if err != nil {
		return -1, nil, err
	}
	d = c.docOf(edits)
	var original []any
	if d >= 0 {
		original = c.decoded(d)
	}
	if original == nil {
		// Across documents, or a document that does not parse alone (a
		// directive before its marker belongs to the previous document's
		// bytes): check the file.
		out, err := finding.ApplyEdits(c.data, edits)
		if err != nil {
			return -1, nil, err
		}
		if err := c.stillJSON(out); err != nil {
			return -1, nil, err
		}
		return -1, nil, sameExceptAt(c.data, out, x.Paths)
	}
	s, e := c.docs[d][0], c.docs[d][1]
	for i := range edits {
		edits[i].Start -= s
		edits[i].End -= s
	}
	doc, err = finding.ApplyEdits(c.data[s:e], edits)
	if err != nil {
		return -1, nil, err
	}
	if err := c.stillJSON(doc); err != nil {
		return -1, nil, fmt.Errorf("%v (document %d of the file)", err, d+1)
	}
	if err := sameAs(original, doc, x.Paths); err != nil {
		return -1, nil, fmt.Errorf("%v (document %d of the file)", err, d+1)
	}
	return d, doc, nil
}

// decoded returns document d decoded (decodeAll), once per document; nil
// when it does not parse on its own.
func (c *checker) decoded(d int) []any {
	v, ok := c.plain[d]
	if !ok {
		v, _ = decodeAll(c.data[c.docs[d][0]:c.docs[d][1]])
		if v == nil {
			v = []any{} // parses, but holds no document
		}
		c.plain[d] = v
	}
	return v
}

// docLint is a document's findings linted alone, and its share.
type docLint struct {
	findings []finding.Finding
	share    analyzer.Share
}

// inDocument verifies the fix of f, whose text check passed, on document
// d alone, whose text after the fix is doc. whole is true when only
// linting the whole file can tell.
func (c *checker) inDocument(f *finding.Finding, d int, doc []byte) (whole bool, err error) {
	if r := c.cfg.Rules.ByName(f.RuleName); r == nil || r.CrossObject != nil {
		return true, nil // not a single-object finding
	}
	s, e := c.docs[d][0], c.docs[d][1]
	before, ok := c.alone[d]
	if !ok {
		before.findings, before.share = c.cfg.Document(c.path, c.data[s:e])
		c.alone[d] = before
	}
	// f is found again by its key in the document's own findings (the
	// loader's messages may hold line numbers, which count from the
	// document here).
	var mine *finding.Finding
	for i := range before.findings {
		if sameFinding(&before.findings[i], f) {
			mine = &before.findings[i]
			break
		}
	}
	if mine == nil {
		return true, nil
	}
	after, share := c.cfg.Document(c.path, doc)
	if !share.Equal(before.share) {
		// The share changed, but perhaps only in summaries that no
		// cross-object rule reads: workloads of a namespace that holds
		// nothing that selects them, before the fix or after it.
		file := c.relevance()
		var fixed crossobject.Relevance
		share.AddRelevance(&fixed)
		if !share.EqualIn(before.share, func(ns string) bool { return file.Has(ns) || fixed.Has(ns) }) {
			return true, nil
		}
	}
	whole, err = judge(c.cfg, mine, before.findings, after, c.lines[d])
	return whole, err
}

// judge is the verdict on a fix of finding mine of a document, once the
// fix's text and the document's share passed: before and after are the
// document's findings before and after the fix, linted alone (lines of
// after count from line, where the document starts). whole is true when
// only linting the whole file can tell.
func judge(cfg *analyzer.Linter, mine *finding.Finding, before, after []finding.Finding, line int) (whole bool, err error) {
	for i := range after {
		if sameFinding(&after[i], mine) {
			return false, fmt.Errorf("the finding is still there after the fix: %s", after[i].Message)
		}
	}
	if n := newFindings(before, after); len(n) > 0 {
		for i := range n {
			if r := cfg.Rules.ByName(n[i].RuleName); r == nil || r.SupersededBy != nil {
				return true, nil
			}
		}
		return false, fmt.Errorf("the fix adds finding %s (%s) at line %d: %s", n[0].RuleID, n[0].RuleName, n[0].Line+line-1, n[0].Message)
	}
	return false, nil
}

// stillJSON fails when the file is JSON and its edited text (or that of
// one of its documents) is not.
func (c *checker) stillJSON(edited []byte) error {
	if !c.json {
		return nil
	}
	if err := manifest.ValidJSON(edited); err != nil {
		return fmt.Errorf("the fixed file is no longer JSON: %v", err)
	}
	return nil
}
