package analyzer

import (
	"bytes"

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
// document whose findings carry fixes. data is the file as read.
func (l *Linter) verifier(verify func(*FixDoc), sp *manifest.Split, data []byte) func(int, *manifest.Result, []finding.Finding) {
	if verify == nil {
		return nil
	}
	return func(i int, res *manifest.Result, found []finding.Finding) {
		var fixed []*finding.Finding
		for k := range found {
			if len(found[k].Fixes) > 0 && found[k].RuleID != "" {
				fixed = append(fixed, &found[k])
			}
		}
		if len(fixed) == 0 {
			return
		}
		d := &FixDoc{Path: sp.File.Path, Data: data, Line: sp.DocLine(i), Index: i, Findings: fixed,
			lint: l, found: found, objects: res.Objects}
		d.Start, d.End = sp.DocRange(i)
		if len(res.Objects) > 0 {
			d.Doc = res.Objects[0].Doc
		}
		verify(d)
	}
}
