package finding

import "fmt"

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
