package finding

import (
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
