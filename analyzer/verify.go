package analyzer

import (
	"bytes"
	"sync"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

// FixDoc is a document of a Run whose findings carry fixes, handed to
// Options.VerifyFixes by the worker that lints it while it is loaded. The
// run's own findings of the document are the "before" of each fix, and the
// edited document alone is linted for the "after" (Lint): verification
// costs one parse of each edited document and runs on every worker, where
// it ran after the run on one goroutine, read each file again and parsed
// each document with a fix four times.
type FixDoc struct {
	Path string
	// Data is the file as read: the bytes the edits' offsets count in.
	Data []byte
	// Start and End are the document's bytes in Data, Line and Index the
	// line it starts on and its index in the file.
	Start, End, Line, Index int
	// Doc is the document's parse; nil when it did not parse.
	Doc *manifest.Document
	// Findings are the document's findings that carry fixes. VerifyFixes
	// leaves in their Fixes those that pass.
	Findings []*finding.Finding

	lint    *Linter
	found   []finding.Finding  // every finding of the document, as the run found it
	objects []*manifest.Object // its loaded objects
	end     *fileEnd
	at      []int // the index of each of Findings among the batch's findings
}

// fileEnd gathers what the verifier of a file's documents left for the
// end of the file (FixDoc.AtFileEnd).
type fileEnd struct {
	// whole is set when the documents are the whole file, linted in one
	// go (Linter.source); a file linted in batches is not.
	whole bool
	mu    sync.Mutex // a file's batches register on several workers
	later []atEnd
}

// atEnd is a call left for the end of the file, with the indices in the
// file's findings of those it is about: the findings move as the
// following documents append theirs.
type atEnd struct {
	at []int
	f  func(file *crossobject.Relevance, found []*finding.Finding)
}

// run makes the calls left for the end of a file linted whole, whose
// findings and share of the cross-object view b holds.
func (e *fileEnd) run(b *batch) {
	if e == nil || len(e.later) == 0 {
		return
	}
	e.call([]*crossobject.Part{&b.part}, b.findings)
}

// call makes the calls left for the end of the file, whose share of the
// cross-object view is parts and whose findings are findings (nil for a
// file linted in batches: they left with their batches).
func (e *fileEnd) call(parts []*crossobject.Part, findings []finding.Finding) {
	var rel crossobject.Relevance
	for _, p := range parts {
		rel.Add(p)
	}
	for _, c := range e.later {
		var found []*finding.Finding
		if findings != nil {
			found = make([]*finding.Finding, len(c.at))
			for j, k := range c.at {
				found[j] = &findings[k]
			}
		}
		c.f(&rel, found)
	}
	e.later = nil
}

// AtFileEnd has f called once every document of the file is linted, with
// the namespaces in which the file's objects make workloads matter to the
// cross-object rules (what judging a fix that changes the document's share
// needs). For a file linted whole, f gets d.Findings where they are then,
// before the file's findings are assembled, so that it may still drop
// their fixes. A file linted in batches leaves the worker batch by batch:
// f is called, with found nil, by the run's merge once the last batch is
// merged, and what it decides is for the caller to apply after the run.
// Without a file (a document linted alone) f is called at once with nil.
func (d *FixDoc) AtFileEnd(f func(file *crossobject.Relevance, found []*finding.Finding)) {
	e := d.end
	if e == nil {
		f(nil, d.Findings)
		return
	}
	var at []int
	if e.whole {
		at = d.at
	}
	e.mu.Lock()
	e.later = append(e.later, atEnd{at, f})
	e.mu.Unlock()
}

// Linter is the run's Linter.
func (d *FixDoc) Linter() *Linter { return d.lint }

// holdsSuppression reports whether a document's text may hold a comment or
// annotation suppression: the findings of such a document linted alone
// (Linter.Document, what verification compares with) are not those the
// run found before the file's comments were applied.
func holdsSuppression(doc []byte) bool {
	return bytes.Contains(doc, []byte("podlint:ignore")) || bytes.Contains(doc, []byte(AnnotationPrefix))
}

// Before returns the document's findings and share as Linter.Document
// gives them for the document alone, but in the file's positions, from
// what the run found: nothing is parsed again. ok is false when the
// document holds a suppression, whose findings the run resolves per file.
func (d *FixDoc) Before() (findings []finding.Finding, share Share, ok bool) {
	if holdsSuppression(d.Data[d.Start:d.End]) {
		return nil, Share{}, false
	}
	p := &crossobject.Part{File: d.Path, From: d.Index, To: d.Index + 1}
	for _, o := range d.objects {
		p.Add(o, d.lint.Limits)
	}
	return d.found, Share{&filePart{parts: []*crossobject.Part{p}}}, true
}

// Lint lints edited, the document's text after a fix, alone and in its
// place in the file, as Before gives the document before it, and returns
// its parse (nil when it did not parse; the edited document's objects are
// garbage once the caller drops it). ok is false when the edited text is
// not a document Linter.Document would lint the same way: blank, not
// text, holding a suppression.
func (d *FixDoc) Lint(edited []byte) (findings []finding.Finding, share Share, doc *manifest.Document, ok bool) {
	if holdsSuppression(edited) {
		return nil, Share{}, nil, false
	}
	sp := manifest.SplitDocumentAt(d.Path, edited, d.Start, d.Line, d.Index, d.lint.Limits)
	if len(sp.Problems) > 0 || sp.Docs() != 1 || manifest.Blank(edited) {
		return nil, Share{}, nil, false
	}
	b := d.lint.lintDocs(sp, 0, 1, func(_ int, res *manifest.Result, _ []finding.Finding) {
		if len(res.Objects) > 0 {
			doc = res.Objects[0].Doc
		}
	})
	b.part.From, b.part.To = d.Index, d.Index+1
	return b.findings, Share{&filePart{parts: []*crossobject.Part{&b.part}}}, doc, true
}

// verifier returns what lintDocs calls for each loaded document of a run
// whose fixes verify calls for (Options.VerifyFixes): a FixDoc of each
// document whose findings carry fixes. data is the file as read; end
// gathers what the FixDocs leave for the end of the file.
func (l *Linter) verifier(verify func(*FixDoc), sp *manifest.Split, data []byte, end *fileEnd) func(int, *manifest.Result, []finding.Finding) {
	if verify == nil {
		return nil
	}
	offset := 0 // of the document's findings among the batch's
	return func(i int, res *manifest.Result, found []finding.Finding) {
		var fixed []*finding.Finding
		var at []int
		for k := range found {
			if len(found[k].Fixes) > 0 && found[k].RuleID != "" {
				fixed = append(fixed, &found[k])
				at = append(at, offset+k)
			}
		}
		offset += len(found)
		if len(fixed) == 0 {
			return
		}
		d := &FixDoc{Path: sp.File.Path, Data: data, Line: sp.DocLine(i), Index: i, Findings: fixed,
			lint: l, found: found, objects: res.Objects, end: end, at: at}
		d.Start, d.End = sp.DocRange(i)
		if len(res.Objects) > 0 {
			d.Doc = res.Objects[0].Doc
		}
		verify(d)
	}
}
