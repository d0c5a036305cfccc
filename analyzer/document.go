package analyzer

import (
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
