// Package textsafe makes untrusted text (file names, source lines, messages
// that quote a manifest) safe to print on a terminal or in a CI log: a file
// name or a line of YAML must never move the cursor, retitle the terminal,
// reorder what is shown, or start a GitHub workflow command on a line of
// its own.
package textsafe

//go:generate go run gen_ignorable.go

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character that is not plain printable text
// replaced by a visible escape: C0 and C1 control characters (ESC, CR, LF,
// TAB, BEL, …) and DEL as \x1b, \n, \t, …; bidirectional and other
// invisible formatting characters (U+202E, U+2066–U+2069, U+200B, …) and
// line and paragraph separators as \u202e; invalid UTF-8 bytes as \xff.
// Printable text, including spaces and non-ASCII letters, is unchanged,
// and s is returned as is when it needs nothing (no allocation).
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if size == 1 && r == utf8.RuneError {
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		} else if unsafeRune(r) {
			writeEscape(&b, r)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Quote is Escape inside double quotes, for names in messages where the
// reader must see where a name starts and ends ("a b", "").
func Quote(s string) string { return `"` + Escape(s) + `"` }

// Strip removes what Escape would escape instead, keeping line breaks and
// tabs: for formats that show text, not code (JUnit XML bodies).
func Strip(s string) string {
	if firstUnsafe(s) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r == utf8.RuneError || unsafeRune(r) {
			return -1
		}
		return r
	}, s)
}

// Safe reports whether s needs no escaping.
func Safe(s string) bool { return firstUnsafe(s) < 0 }

func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (size == 1 && r == utf8.RuneError) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune: controls, separators other than the space, format
// characters (which include every bidi control and zero-width character),
// anything else unicode does not call printable, and the default-ignorable
// code points: fillers such as U+3164 and U+115F, U+034F and variation
// selectors print as letters or marks but show nothing, so a name holding
// them looks like another.
func unsafeRune(r rune) bool {
	if r == ' ' {
		return false
	}
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) || !unicode.IsPrint(r) && !unicode.IsSpace(r) || r == 0x2028 || r == 0x2029 || r == 0x85 ||
		r >= 0xad && unicode.Is(defaultIgnorable, r)
}

func writeEscape(b *strings.Builder, r rune) {
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	default:
		if r < 0x80 {
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
			return
		}
		q := strconv.QuoteRuneToASCII(r) // '\u202e'
		b.WriteString(q[1 : len(q)-1])
	}
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// Text escapes a multi-line text as Escape does, keeping its line breaks
// (LF) and, when keepColor is set, the SGR color sequences (ESC [ digits
// and semicolons m) a writer added itself; any other escape sequence is
// shown escaped.
func Text(s string, keepColor bool) string {
	if Safe(strings.ReplaceAll(s, "\n", "")) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for len(s) > 0 {
		i := strings.IndexAny(s, "\n\x1b")
		if i < 0 {
			b.WriteString(Escape(s))
			break
		}
		b.WriteString(Escape(s[:i]))
		s = s[i:]
		if s[0] == '\n' {
			b.WriteByte('\n')
			s = s[1:]
			continue
		}
		if n := sgrLen(s); keepColor && n > 0 {
			b.WriteString(s[:n])
			s = s[n:]
			continue
		}
		b.WriteString(`\x1b`)
		s = s[1:]
	}
	return b.String()
}

// sgrLen returns the length of the SGR sequence s starts with, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c == ';' || c >= '0' && c <= '9':
		default:
			return 0
		}
	}
	return 0
}

// Writer escapes what is written through it as Escape does, keeping line
// breaks and tabs: for text that is not podlint's own (urfave/cli's usage
// errors quote the flag as typed).
type Writer struct{ W io.Writer }

func (w Writer) Write(p []byte) (int, error) {
	s := string(p)
	if Safe(strings.NewReplacer("\n", "", "\t", "").Replace(s)) {
		return w.W.Write(p)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		for j := range cells {
			cells[j] = Escape(cells[j])
		}
		lines[i] = strings.Join(cells, "\t")
	}
	if _, err := io.WriteString(w.W, strings.Join(lines, "\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// LogWriter is where a library's logger writes (Go's log package, klog):
// each Write is one record, printed as one line that starts with prefix,
// with everything escaped but the record's final line break. A record
// holding "\n::error …" or an escape sequence from a manifest or values key
// must not start a workflow command or reach the terminal raw; Writer
// keeps line breaks and so cannot be used for it.
type LogWriter struct {
	W      io.Writer
	Prefix string
}

func (w LogWriter) Write(p []byte) (int, error) {
	line := w.Prefix + Escape(strings.TrimSuffix(string(p), "\n")) + "\n"
	if _, err := io.WriteString(w.W, line); err != nil {
		return 0, err
	}
	return len(p), nil
}
