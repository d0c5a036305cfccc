package manifest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
	yaml "go.yaml.in/yaml/v3"
)

// yamlBreaks are every line break the YAML parser knows.
var yamlBreaks = []string{"\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029"}

// TestLineBreaksAgreeWithTheParser builds documents with every line break,
// mixed, and checks that the splitter, the blank check, the line index and
// the parser agree: every scalar the parser places on line n is on line n
// of the file, every document is parsed, and none is skipped as blank.
func TestLineBreaksAgreeWithTheParser(t *testing.T) {
	lines := []string{
		"# comment",
		"---",
		"# another",
		"apiVersion: v1",
		"kind: Pod",
		"metadata:",
		"  name: p",
		"--- # comment after a marker",
		"apiVersion: v1",
		"kind: ConfigMap",
		"...",
		"---",
		"# only a comment",
		"---",
		"apiVersion: v1",
		"kind: Secret",
	}
	for i, br := range yamlBreaks {
		for _, mixed := range []bool{false, true} {
			var b strings.Builder
			for j, l := range lines {
				b.WriteString(l)
				if mixed {
					b.WriteString(yamlBreaks[(i+j)%len(yamlBreaks)])
				} else {
					b.WriteString(br)
				}
			}
			data := []byte(b.String())
			t.Run(fmt.Sprintf("%q mixed=%v", br, mixed), func(t *testing.T) {
				res := Parse("f.yaml", data, DefaultLimits)
				if len(res.Problems) != 0 {
					t.Fatalf("problems: %+v", res.Problems)
				}
				var kinds []string
				for _, o := range res.Objects {
					kinds = append(kinds, o.Ref.Kind)
					checkNodeLines(t, res.File, o.Doc)
				}
				if got := strings.Join(kinds, ","); got != "Pod,ConfigMap,Secret" {
					t.Errorf("objects %s, want Pod,ConfigMap,Secret", got)
				}
				if n := res.File.Lines(); n != len(lines)+1 {
					t.Errorf("%d lines, want %d", n, len(lines)+1)
				}
				for n, want := range lines {
					if got := res.File.Line(n + 1); got != want {
						t.Errorf("line %d = %q, want %q", n+1, got, want)
					}
				}
				if Blank(data) {
					t.Errorf("Blank reports a stream with three objects as blank")
				}
			})
		}
	}
}

// checkNodeLines checks that each scalar of doc is found on the file line
// the parser gives it, at the parser's column.
func checkNodeLines(t *testing.T, f *File, doc *Document) {
	t.Helper()
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode && n.Style == 0 {
			line := []rune(f.Line(n.Line + doc.LineOffset))
			if n.Column-1 > len(line) || !strings.HasPrefix(string(line[n.Column-1:]), n.Value) {
				t.Errorf("%q at %d:%d, but that line reads %q", n.Value, n.Line+doc.LineOffset, n.Column, string(line))
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(doc.Root)
}

// Blank is true only for what the parser reads as no content at all. (A
// line of blanks holding a tab before any content is a syntax error to
// yaml.v3 but blank to Blank; nothing can hide in it.)
func TestBlankMatchesTheParser(t *testing.T) {
	for _, in := range []string{
		"", "\n", "# c", "---", "--- # c\r...\r", "#a\u2028#b\u0085  \r\n",
		"# c\rkind: Pod", "# c\u2028kind: Pod", "# c\u0085kind: Pod", "--- {kind: Pod}", "--- kind", "\u00a0# not a comment",
	} {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(in), &n)
		// "---" alone is an empty document: a null, no object.
		parserBlank := err == nil && (len(n.Content) == 0 || n.Content[0].Tag == "!!null" && n.Content[0].Value == "")
		if got := Blank([]byte(in)); got != parserBlank {
			t.Errorf("Blank(%q) = %v, but the parser reads content=%v (err %v)", in, got, !parserBlank, err)
		}
	}
}

func TestSnippetWindow(t *testing.T) {
	long := strings.Repeat("a", 1000) + "é" + strings.Repeat("b", 1000) + "\n"
	f := NewFile("f", []byte("short: line\r\n"+long+"x"))
	if s, cut, _ := f.Snippet(1, 3); s != "short: line" || cut != 0 {
		t.Errorf("short line: %q, cut %d", s, cut)
	}
	for _, col := range []int{1, 500, 1001, 1002, 1003, 2003, 5000} {
		s, cut, cutRunes := f.Snippet(2, col)
		body := strings.TrimSuffix(strings.TrimPrefix(s, Ellipsis), Ellipsis)
		if len(body) > SnippetWidth || !utf8.ValidString(s) {
			t.Fatalf("col %d: %d-byte window %q", col, len(body), s)
		}
		line := f.Line(2)
		if !strings.HasPrefix(line[cut:], body) {
			t.Fatalf("col %d: window %q is not the line at byte %d", col, s, cut)
		}
		if cutRunes != utf8.RuneCountInString(line[:cut]) {
			t.Errorf("col %d: cutRunes %d, want %d", col, cutRunes, utf8.RuneCountInString(line[:cut]))
		}
		if (cut > 0) != strings.HasPrefix(s, Ellipsis) || (cut+len(body) < len(line)) != strings.HasSuffix(s, Ellipsis) {
			t.Errorf("col %d: cut marks wrong in %q", col, s)
		}
		if off := min(col-1, len(line)); off < cut || off > cut+len(body) {
			t.Errorf("col %d: window [%d,%d) misses the column", col, cut, cut+len(body))
		}
	}
}

// TestPositionFromIndex: the indexed lookup of a byte offset's line and
// column agrees with counting from the start of the file, on files of
// short, long and 32-line runs of lines with every line break.
func TestPositionFromIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := range 120 {
		var b []byte
		for range rng.IntN(120) {
			b = append(b, strings.Repeat("x", []int{0, 3, 40, longLine + 7}[rng.IntN(4)])...)
			b = append(b, yamlBreaks[rng.IntN(len(yamlBreaks))]...)
		}
		if n%2 == 0 {
			b = append(b, strings.Repeat("y", rng.IntN(2*longLine))...)
		}
		f := NewFile("f", b)
		for range 400 {
			off := rng.IntN(len(b) + 1)
			if insideBreak(b, off) {
				continue // no edit starts or ends there
			}
			gl, gc := f.position(off)
			wl, wc := lineColumn(b, off)
			if gl != wl || gc != wc {
				t.Fatalf("file %d, offset %d: indexed %d:%d, counted %d:%d", n, off, gl, gc, wl, wc)
			}
		}
	}
}

// TestFileWholeLines: the file's whole-line form of edits is the one
// finding.WholeLines computes by counting, and there is none when a line
// break is NEL, LS or PS.
func TestFileWholeLines(t *testing.T) {
	data := []byte(strings.Repeat("a: 1\n", 100) + strings.Repeat("b", 2*longLine) + "\r\nc: 2\rd: 3\n")
	f := NewFile("f", data)
	for _, e := range []finding.Edit{
		{File: "f", Start: 2, End: 3, NewText: "2"},
		{File: "f", Start: 497, End: 498, NewText: "7\n  x: 1"},
		{File: "f", Start: len(data) - 9, End: len(data) - 5, NewText: ""},
		{File: "f", Start: len(data) - 1, End: len(data) - 1, NewText: "\ne: 4"},
	} {
		got, want := f.WholeLines([]finding.Edit{e}), finding.WholeLines(data, 0, []finding.Edit{e})
		if fmt.Sprint(got) != fmt.Sprint(want) || len(got) == 0 {
			t.Errorf("edit %+v: file %+v, counted %+v", e, got, want)
		}
	}
	if got := NewFile("f", []byte("a: 1\u2028b: 2\n")).WholeLines([]finding.Edit{{File: "f", Start: 3, End: 4, NewText: "2"}}); got != nil {
		t.Errorf("a file with LS has a whole-line form: %+v", got)
	}
}

// insideBreak reports whether offset off splits a line break.
func insideBreak(b []byte, off int) bool {
	for w := 1; w <= 2 && off-w >= 0; w++ {
		if breakLen(b[off-w:]) > w {
			return true
		}
	}
	return false
}

// The finder's fast path for LF-only buffers must find exactly the breaks
// nextBreak finds, from every offset, and must not take the fast path when
// a rarer break is anywhere in the buffer.
func TestBreakFinderAgreesWithNextBreak(t *testing.T) {
	for _, in := range []string{
		"", "a", "a\n", "a\nb\n\nc", "kind: Pod\nmetadata:\n  name: x\n",
		"a\r\nb\n", "a\rb\nc", "a\u0085b\nc", "a\u2028b\nc\u2029", "em—dash\nx", "a\xc2\nb", "a\xe2\x80\nb",
	} {
		b := []byte(in)
		f := breaksOf(b)
		for off := 0; off <= len(b); off++ {
			gi, gn := f.next(b[off:])
			wi, wn := nextBreak(b[off:])
			if gi != wi || gn != wn {
				t.Errorf("%q from %d: finder (%d, %d), nextBreak (%d, %d)", in, off, gi, gn, wi, wn)
			}
		}
	}
	if !breaksOf([]byte("a\nb\n")).lfOnly || breaksOf([]byte("a\nb\r\n")).lfOnly || breaksOf([]byte("a\u2028")).lfOnly {
		t.Error("lfOnly is wrong")
	}
}
