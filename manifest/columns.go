package manifest

import "unicode/utf8"

// Positions. Every position podlint reports is a 1-based line (lines end
// where the YAML parser's lines end, see breakLen) and a 1-based byte
// column: the first byte of the key or value, counted from the start of
// the line, a tab being one byte. Byte columns are what editors' "go to
// byte" and the fixes need, and they are exact for any text. yaml.v3 counts
// its node columns in characters, so every node position is converted
// here, once, when it leaves the loader (Locate, the loader's problems);
// output formats that count otherwise (SARIF in code points, LSP in UTF-16
// code units) convert at the edge with CodePointColumn or UTF16Column.

// ByteColumn converts a 1-based column counted in characters on line to the
// 1-based byte column of the same character. A column past the end of the
// line stays that many characters past it, one byte each.
func ByteColumn(line []byte, charCol int) int {
	if charCol <= 1 {
		return charCol
	}
	return byteOffsetOfChar(line, 0, charCol-1) + 1
}

// byteOffsetOfChar returns the byte offset in line of character n, counting
// from byte from, where character 0 starts.
func byteOffsetOfChar(line []byte, from, n int) int {
	i := from
	for ; n > 0 && i < len(line); n-- {
		_, w := utf8.DecodeRune(line[i:])
		i += w
	}
	return i + n
}

// CodePointColumn converts a 1-based byte column of line to the 1-based
// column in Unicode code points that SARIF's "unicodeCodePoints" column
// kind counts. A byte column inside a character counts that character.
func CodePointColumn(line []byte, byteCol int) int {
	return 1 + countUnits(line, byteCol, func(rune) int { return 1 })
}

// UTF16Column converts a 1-based byte column of line to the 1-based column
// in UTF-16 code units (SARIF's default column kind, and the LSP's).
func UTF16Column(line []byte, byteCol int) int {
	return 1 + countUnits(line, byteCol, func(r rune) int {
		if r >= 0x10000 {
			return 2
		}
		return 1
	})
}

// countUnits counts the units of the characters before byte column
// byteCol; bytes past the end of line count one each.
func countUnits(line []byte, byteCol int, units func(rune) int) int {
	off := max(byteCol-1, 0)
	n := 0
	i := 0
	for i < off && i < len(line) {
		r, w := utf8.DecodeRune(line[i:])
		if i+w > off && w > 1 {
			break // off is inside this character: it points at it
		}
		n += units(r)
		i += w
	}
	if off > len(line) {
		n += off - len(line)
	}
	return n
}

// byteColumn converts yaml.v3's character column charCol on 1-based line n
// of the file to a byte column. Long lines (a minified file can be one line
// of megabytes with thousands of nodes) start from the character counts the
// file keeps every runeStep bytes, so a conversion costs at most runeStep
// bytes of scanning past the line's first kilobytes.
func (f *File) byteColumn(n, charCol int) int {
	if f == nil || charCol <= 1 {
		return charCol
	}
	line := f.lineBytes(n)
	if len(line) <= runeStep {
		return ByteColumn(line, charCol)
	}
	idx := f.runeCounts(n, line)
	want := charCol - 1
	k := 0
	for lo, hi := 0, len(idx); lo < hi; {
		m := (lo + hi) / 2
		if idx[m] <= want {
			k, lo = m, m+1
		} else {
			hi = m
		}
	}
	from := k * runeStep
	// The chunk may begin inside a character counted in the one before.
	for from < len(line) && !utf8.RuneStart(line[from]) {
		from++
	}
	return byteOffsetOfChar(line, from, want-idx[k]) + 1
}

// CodePointColumn converts byte column byteCol of 1-based line n to a column
// in Unicode code points (see the function CodePointColumn), using the
// counts kept for long lines.
func (f *File) CodePointColumn(n, byteCol int) int {
	if f == nil || byteCol <= 1 {
		return byteCol
	}
	line := f.lineBytes(n)
	if len(line) <= runeStep {
		return CodePointColumn(line, byteCol)
	}
	off := min(byteCol-1, len(line))
	for off > 0 && off < len(line) && !utf8.RuneStart(line[off]) {
		off--
	}
	return 1 + f.runesBefore(n, line, off) + max(byteCol-1-len(line), 0)
}
