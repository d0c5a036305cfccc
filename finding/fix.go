package finding

import (
	"bytes"
	"fmt"
	"sort"
)

// FixSafety says whether a fix may be applied without asking.
type FixSafety int

const (
	// Safe: the fix has one right answer and keeps the behaviour the
	// manifest has, or only removes a failure; `podlint fix` applies it.
	Safe FixSafety = iota + 1
	// Unsafe: the fix changes behaviour, or is one of several answers;
	// `podlint fix --unsafe` applies it.
	Unsafe
)

func (s FixSafety) String() string {
	switch s {
	case Safe:
		return "safe"
	case Unsafe:
		return "unsafe"
	}
	return "none"
}

// MarshalText writes "safe" or "unsafe".
func (s FixSafety) MarshalText() ([]byte, error) {
	switch s {
	case Safe, Unsafe:
		return []byte(s.String()), nil
	}
	return nil, fmt.Errorf("invalid fix safety %d", int(s))
}

// UnmarshalText reads what MarshalText writes.
func (s *FixSafety) UnmarshalText(b []byte) error {
	switch string(b) {
	case "safe":
		*s = Safe
	case "unsafe":
		*s = Unsafe
	default:
		return fmt.Errorf("unknown fix safety %q (want safe or unsafe)", b)
	}
	return nil
}

// Fix is one way to resolve a finding: text edits to the files the
// finding points into, resolved from field-path operations against the
// original bytes (never by re-encoding the YAML). A finding may carry
// alternatives; the first is the default.
type Fix struct {
	// Title says what the fix does, as an imperative sentence without a
	// final period ("Set successThreshold to 1").
	Title  string    `json:"title"`
	Safety FixSafety `json:"safety"`
	// Edits do not overlap and are sorted by Start; all of them apply or
	// none.
	Edits []Edit `json:"edits"`
	// Paths are the field paths of the object the fix changes (as
	// Finding.Path prints them); verification checks that the decoded
	// object differs from the original only there.
	Paths []string `json:"paths,omitempty"`
	// LineEdits are the same change as whole-line replacements: each
	// replaces whole lines (from column 1 of StartLine to column 1 of
	// EndLine, or to the end of the file's last line when EndColumn is 0)
	// with the lines they become, as SARIF consumers turn them into
	// suggested changes. Nil when the file's line breaks are not LF, CRLF
	// or CR, or when the lines a fix touches are over 4 KB (minified JSON).
	LineEdits []Edit `json:"lineEdits,omitempty"`
}

// Edit replaces the bytes [Start, End) of File with NewText. Start and
// End are byte offsets into the file as read; the line and column fields
// are the same positions 1-based, columns counted in bytes like
// Location.Column (EndLine/EndColumn point just past the last replaced
// byte). An insertion has Start == End.
type Edit struct {
	File        string `json:"file"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	StartLine   int    `json:"startLine"`
	StartColumn int    `json:"startColumn"`
	EndLine     int    `json:"endLine"`
	EndColumn   int    `json:"endColumn"`
	NewText     string `json:"newText"`
}

// HasFix reports whether f has a fix at or below the given safety (Safe:
// a safe fix; Unsafe: any fix).
func (f *Finding) HasFix(max FixSafety) bool {
	for _, x := range f.Fixes {
		if x.Safety <= max {
			return true
		}
	}
	return false
}

// SortEdits sorts edits by offset and reports whether they are all in one
// file and do not overlap (two insertions at one offset overlap: their
// order would be a guess).
func SortEdits(edits []Edit) bool {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	for i := 1; i < len(edits); i++ {
		if edits[i].File != edits[0].File || edits[i].Start < edits[i-1].End ||
			edits[i].Start == edits[i-1].Start {
			return false
		}
	}
	return true
}

// ApplyEdits returns data with edits applied; they must be sorted and not
// overlap (SortEdits), and lie inside data.
func ApplyEdits(data []byte, edits []Edit) ([]byte, error) {
	out := make([]byte, 0, len(data)+64)
	at := 0
	for _, e := range edits {
		if e.Start < at || e.End < e.Start || e.End > len(data) {
			return nil, fmt.Errorf("edit [%d,%d) is outside the file or overlaps another", e.Start, e.End)
		}
		out = append(out, data[at:e.Start]...)
		out = append(out, e.NewText...)
		at = e.End
	}
	return append(out, data[at:]...), nil
}

// WholeLines returns edits (sorted, not overlapping) as whole-line
// replacements of data, the file's bytes from offset base on (a byte
// order mark before them is not in data); see Fix.LineEdits. Edits that
// touch the same or adjacent lines become one. It is nil when a line
// break is not LF, CRLF or CR, or when the lines an edit touches are
// longer than maxLineEdit. It counts lines from the start of data, which
// a caller with a line index avoids with WholeLinesIndexed.
func WholeLines(data []byte, base int, edits []Edit) []Edit {
	if bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029")) {
		return nil // line breaks the count below does not know
	}
	return WholeLinesIndexed(data, base, edits, func(off int) int { return 1 + countBreaks(data[:off]) })
}

// WholeLinesIndexed is WholeLines for a caller that knows that data's line
// breaks are all LF, CRLF or CR and numbers lines itself: lineAt(off) is
// the 1-based line of the line start at offset off of data. Its cost is
// that of the lines the edits touch, not of the file, so a file with
// thousands of fixes costs no more per fix than a small one.
func WholeLinesIndexed(data []byte, base int, edits []Edit, lineAt func(off int) int) []Edit {
	w := wholeLines{data: data, base: base, lineAt: lineAt}
	var groupStart, groupEnd int
	var group []Edit
	for _, e := range edits {
		s, en := e.Start-base, e.End-base
		if s < 0 || en > len(data) || en < s {
			return nil
		}
		ls := lineStartWithin(data, s)
		le := en
		if !(en > ls && (data[en-1] == '\n' || data[en-1] == '\r') && en > s) {
			le = nextLineWithin(data, en)
		}
		if ls < 0 || le < 0 {
			return nil
		}
		if len(group) > 0 && ls <= groupEnd {
			groupEnd = max(groupEnd, le)
		} else {
			if !w.flush(group, groupStart, groupEnd) {
				return nil
			}
			group, groupStart, groupEnd = group[:0], ls, le
		}
		group = append(group, e)
	}
	if !w.flush(group, groupStart, groupEnd) {
		return nil
	}
	return w.out
}

// wholeLines gathers WholeLinesIndexed's edits, one per group of edits
// whose lines touch.
type wholeLines struct {
	data   []byte
	base   int
	lineAt func(off int) int
	out    []Edit
}

// flush adds the whole-line edit of group, the edits within the lines
// data[start:end]; false when the group has no whole-line form.
func (w *wholeLines) flush(group []Edit, start, end int) bool {
	if len(group) == 0 {
		return true
	}
	data := w.data
	text := data[start:end]
	if len(text) > maxLineEdit {
		return false // a long line (minified JSON): no whole-line form
	}
	shifted := make([]Edit, len(group))
	for i, e := range group {
		shifted[i] = e
		shifted[i].Start, shifted[i].End = e.Start-w.base-start, e.End-w.base-start
	}
	newText, err := ApplyEdits(text, shifted)
	if err != nil {
		return false
	}
	if len(newText) == 0 && len(data) > 0 {
		var ok bool
		if start, end, newText, ok = widenDeletion(data, start, end); !ok {
			return false
		}
		text = data[start:end]
	}
	sl := w.lineAt(start)
	el := sl + countBreaks(text)
	ec := 1
	if end == len(data) && (len(text) == 0 || (text[len(text)-1] != '\n' && text[len(text)-1] != '\r')) {
		ec = 0 // to the end of the last line, which has no break
	}
	sc := 1
	if start == 0 {
		sc += w.base
	}
	w.out = append(w.out, Edit{File: group[0].File, Start: start + w.base, End: end + w.base, StartLine: sl, StartColumn: sc,
		EndLine: el, EndColumn: ec, NewText: string(newText)})
	return true
}

// widenDeletion takes a neighbouring line into an edit that deletes the
// whole lines data[start:end], so that the replacement is lines (a
// suggested change that deletes lines has no text, which reads as one
// empty line left behind): the line before, else the line after.
func widenDeletion(data []byte, start, end int) (int, int, []byte, bool) {
	switch {
	case start > 0:
		prev := lineStartWithin(data, start-1)
		if data[start-1] == '\n' && start >= 2 && data[start-2] == '\r' {
			prev = lineStartWithin(data, start-2)
		}
		if prev < 0 {
			return 0, 0, nil, false
		}
		return prev, end, append([]byte(nil), data[prev:start]...), true
	case end < len(data):
		next := nextLineWithin(data, end)
		if next < 0 {
			return 0, 0, nil, false
		}
		return start, next, append([]byte(nil), data[end:next]...), true
	}
	return start, end, nil, true
}

// lineStartWithin is the start of the line holding off, or -1 past
// maxLineEdit bytes: a group that long has no whole-line form, and
// scanning a megabyte line once per fix made a minified file's fixes
// quadratic.
func lineStartWithin(data []byte, off int) int {
	for stop := max(0, off-maxLineEdit-1); off > 0 && data[off-1] != '\n' && data[off-1] != '\r'; off-- {
		if off == stop {
			return -1
		}
	}
	return off
}

// nextLineWithin is the offset past the break of the line holding off,
// or -1 past maxLineEdit bytes (see lineStartWithin).
func nextLineWithin(data []byte, off int) int {
	for stop := off + maxLineEdit + 1; off < len(data); off++ {
		if off == stop {
			return -1
		}
		switch data[off] {
		case '\n':
			return off + 1
		case '\r':
			if off+1 < len(data) && data[off+1] == '\n' {
				return off + 2
			}
			return off + 1
		}
	}
	return len(data)
}

// maxLineEdit bounds the lines a whole-line edit replaces, in bytes: a
// fix in a file of one long line (minified JSON) would otherwise copy the
// whole file for every fix, and a suggested change of a megabyte line
// helps nobody.
const maxLineEdit = 4096

// countBreaks counts LF, CRLF and CR line breaks.
func countBreaks(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n':
			n++
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			n++
		}
	}
	return n
}
