package manifest

import (
	"bytes"
	"strings"
)

// Line breaks are the YAML parser's, so that what podlint counts as a line,
// a blank line or a document marker is what the parser (yaml.v3 here, and
// the yaml.v2 fork kubectl decodes with, which share libyaml's scanner)
// reads: LF, CR LF and a lone CR (YAML 1.2), and also NEL (U+0085), LS
// (U+2028) and PS (U+2029), which YAML 1.1 and both parsers treat as line
// breaks too. A file whose lines end in CR alone is a full manifest to
// kubectl; counting only LF once made it one long comment line that was
// never parsed, and an LS shifted every later line number.

// breakLen returns the length in bytes of the line break that b starts
// with, or 0.
func breakLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '\n':
		return 1
	case '\r':
		if len(b) > 1 && b[1] == '\n' {
			return 2
		}
		return 1
	case 0xC2: // NEL
		if len(b) > 1 && b[1] == 0x85 {
			return 2
		}
	case 0xE2: // LS, PS
		if len(b) > 2 && b[1] == 0x80 && (b[2] == 0xA8 || b[2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// nextBreak returns the offset of the first line break in b and its
// length, or -1 and 0.
func nextBreak(b []byte) (at, n int) {
	for i, c := range b {
		if breakStart[c] { // one load a byte, not four comparisons
			if n := breakLen(b[i:]); n > 0 {
				return i, n
			}
		}
	}
	return -1, 0
}

// breakStart marks the bytes a line break can begin with (breakLen).
var breakStart = [256]bool{'\n': true, '\r': true, 0xC2: true, 0xE2: true}

// breakFinder finds the line breaks of one buffer. Where the buffer holds
// no byte a rarer break begins with (CR, NEL, LS, PS), LF is its only
// break and the vectorized search finds it: the line index and the
// splitter look at every byte of the input, and the byte-by-byte loop of
// nextBreak was 4.6 % of a run's instructions on the benchmark corpus.
type breakFinder struct{ lfOnly bool }

func breaksOf(b []byte) breakFinder {
	return breakFinder{lfOnly: bytes.IndexByte(b, '\r') < 0 && bytes.IndexByte(b, 0xC2) < 0 && bytes.IndexByte(b, 0xE2) < 0}
}

// next is nextBreak of a part of the buffer the finder was made for.
func (f breakFinder) next(b []byte) (at, n int) {
	if !f.lfOnly {
		return nextBreak(b)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return i, 1
	}
	return -1, 0
}

// cutLine splits off the first line of b, without its line break.
func cutLine(b []byte) (line, rest []byte) {
	if i, n := nextBreak(b); i >= 0 {
		return b[:i], b[i+n:]
	}
	return b, nil
}

// countLines returns the number of line breaks in b.
func countLines(b []byte) int {
	n := 0
	for len(b) > 0 {
		i, w := nextBreak(b)
		if i < 0 {
			break
		}
		n++
		b = b[i+w:]
	}
	return n
}

// lineColumn returns the 1-based line and byte column of byte offset off.
func lineColumn(b []byte, off int) (line, col int) {
	line, start := 1, 0
	for i := 0; i < off; {
		j, w := nextBreak(b[i:off])
		if j < 0 {
			break
		}
		i += j + w
		line++
		start = i
	}
	return line, off - start + 1
}

// trimBlank trims the YAML white space (spaces and tabs, nothing else)
// around a line.
func trimBlank(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// LineOf returns 1-based line n of data without its line break, "" when
// there is none. It splits at LF only, as the rendered-output mapping and
// its quoted lines do (a CR before the LF is dropped).
func LineOf(data []byte, n int) string {
	for i := 1; len(data) > 0; i++ {
		var l []byte
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			l, data = data[:j], data[j+1:]
		} else {
			l, data = data, nil
		}
		if i == n {
			return strings.TrimRight(string(l), "\r")
		}
	}
	return ""
}
