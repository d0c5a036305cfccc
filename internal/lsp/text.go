package lsp

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// text is one version of a document with its line index. Lines end at
// "\n", "\r\n" or "\r", as the LSP counts them (and as the YAML parser,
// whose line numbers the findings carry, does).
type text struct {
	data   []byte
	starts []int // byte offset of each line
}

func newText(data []byte) *text {
	t := &text{data: data, starts: make([]int, 1, 1+len(data)/32)}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\n':
			t.starts = append(t.starts, i+1)
		case '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			t.starts = append(t.starts, i+1)
		}
	}
	return t
}

// lines is the number of lines (a final line break starts an empty line).
func (t *text) lines() int { return len(t.starts) }

// line returns the bytes of zero-based line n without its line break.
func (t *text) line(n int) []byte {
	if n < 0 || n >= len(t.starts) {
		return nil
	}
	end := len(t.data)
	if n+1 < len(t.starts) {
		end = t.starts[n+1]
	}
	l := t.data[t.starts[n]:end]
	for len(l) > 0 && (l[len(l)-1] == '\n' || l[len(l)-1] == '\r') {
		l = l[:len(l)-1]
	}
	return l
}

// position converts a zero-based line and byte offset in that line to an
// LSP position in encoding enc. A byte offset inside a character counts
// the character before it; one past the line's end is clamped to it.
func (t *text) position(line, byteOff int, enc string) Position {
	l := t.line(line)
	byteOff = max(0, min(byteOff, len(l)))
	if enc == encodingUTF8 {
		return Position{Line: line, Character: byteOff}
	}
	units := 0
	for i := 0; i < byteOff; {
		r, w := utf8.DecodeRune(l[i:])
		if i+w > byteOff {
			break
		}
		units += utf16.RuneLen(r)
		if r == utf8.RuneError && w == 1 {
			units = units - utf16.RuneLen(r) + 1
		}
		i += w
	}
	return Position{Line: line, Character: units}
}

// offset converts an LSP position to a byte offset in the document; a
// character past the end of its line is the line's end, a line past the
// end the document's end.
func (t *text) offset(p Position, enc string) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(t.starts) {
		return len(t.data)
	}
	l := t.line(p.Line)
	start := t.starts[p.Line]
	if enc == encodingUTF8 {
		return start + max(0, min(p.Character, len(l)))
	}
	units := 0
	i := 0
	for i < len(l) && units < p.Character {
		r, w := utf8.DecodeRune(l[i:])
		n := utf16.RuneLen(r)
		if r == utf8.RuneError && w == 1 || n < 0 {
			n = 1
		}
		units += n
		i += w
	}
	return start + i
}

// lineOf returns the zero-based line holding byte offset off and the
// offset in it.
func (t *text) lineOf(off int) (line, col int) {
	lo, hi := 0, len(t.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, off - t.starts[lo]
}

// tokenEnd returns the byte offset in line where the YAML token that
// starts at byte offset start ends: a quoted scalar at its closing quote,
// a key before its colon, a plain scalar before a comment, a flow
// indicator or the line's end (trailing blanks excluded). A token that
// cannot be told (a block indicator, the line's end) ends one character
// later, so that the range is never empty.
func tokenEnd(line []byte, start int) int {
	if start >= len(line) {
		return len(line)
	}
	switch q := line[start]; q {
	case '"', '\'':
		return quotedEnd(line, start)
	case '-', '|', '>', '[', '{', '&', '*', '!':
		if start+1 >= len(line) || line[start+1] == ' ' || q == '[' || q == '{' {
			_, w := utf8.DecodeRune(line[start:])
			return start + w
		}
	}
	end := plainEnd(line, start, bytes.ContainsAny(line[:start], "[{"))
	if end == start {
		_, w := utf8.DecodeRune(line[start:])
		end = start + w
	}
	return end
}

// quotedEnd is past the closing quote of the scalar quoted at start (” is
// an escaped quote in single quotes, \" in double ones), or the line's end.
func quotedEnd(line []byte, start int) int {
	q := line[start]
	for i := start + 1; i < len(line); i++ {
		switch {
		case q == '"' && line[i] == '\\':
			i++
		case line[i] == q:
			if q == '\'' && i+1 < len(line) && line[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(line)
}

// plainEnd is the end of the plain scalar or key at start, trailing blanks
// excluded: before a key's colon, a comment, or (in a flow collection) a
// flow indicator; start when it is empty.
func plainEnd(line []byte, start int, flow bool) int {
	end := start
	for i := start; i < len(line); i++ {
		c := line[i]
		if c == ':' && (i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t' || flow && (line[i+1] == ',' || line[i+1] == '}' || line[i+1] == ']')) {
			break
		}
		if c == '#' && i > start && (line[i-1] == ' ' || line[i-1] == '\t') {
			break
		}
		if flow && (c == ',' || c == '}' || c == ']') {
			break
		}
		if c != ' ' && c != '\t' {
			end = i + 1
		}
	}
	return end
}
