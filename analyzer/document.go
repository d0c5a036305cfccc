package analyzer

import (
	"github.com/podlint/podlint/crossobject"
	"reflect"

	"github.com/podlint/podlint/finding"
)

// Share is what the cross-object view holds of a file: the summaries of
// its objects and its suppressions of cross-object rules. Two versions of
// a file with equal shares give the rest of a run the same cross-object
// findings.
type Share struct{ part *filePart }

// Equal reports whether s and o are the same share.
func (s Share) Equal(o Share) bool { return reflect.DeepEqual(s.part, o.part) }

// Document lints data as File does but runs no cross-object rule, and
// returns the file's share of the cross-object view. Fix verification
// lints one document of a large file this way (its documents are parsed
// on their own): a fix that keeps the document's share leaves the other
// documents' findings as they were.
func (l *Linter) Document(path string, data []byte) ([]finding.Finding, Share) {
	f, _, part := l.file(path, data, true)
	return f, Share{part}
}

// AddRelevance records in r the namespaces that the objects of s make
// relevant to the cross-object rules (crossobject.Relevance).
func (s Share) AddRelevance(r *crossobject.Relevance) {
	if s.part == nil {
		return
	}
	for _, p := range s.part.parts {
		if p != nil {
			r.Add(p)
		}
	}
}

// EqualIn is Equal for a file whose cross-object view makes relevant only
// the namespaces relevant reports: the summaries of workloads in other namespaces are
// not compared, since no cross-object rule reads them (the reason a run
// may drop them, crossobject.Part.Drop). A fix that changes only such a
// summary (the restartPolicy of a Deployment no Service selects) changes
// no finding of the other documents.
func (s Share) EqualIn(o Share, relevant func(namespace string) bool) bool {
	return reflect.DeepEqual(s.part.relevant(relevant), o.part.relevant(relevant))
}

// relevant returns a copy of fp without the workloads of the namespaces
// that are not relevant.
func (fp *filePart) relevant(relevant func(namespace string) bool) *filePart {
	if fp == nil {
		return nil
	}
	out := &filePart{deferred: fp.deferred}
	for _, p := range fp.parts {
		if p == nil {
			out.parts = append(out.parts, nil)
			continue
		}
		c := *p
		c.Workloads = nil
		for _, w := range p.Workloads {
			if relevant(w.Ref.Namespace) {
				c.Workloads = append(c.Workloads, w)
			}
		}
		out.parts = append(out.parts, &c)
	}
	return out
}
