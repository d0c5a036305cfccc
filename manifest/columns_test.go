package manifest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/podlint/podlint/workload"
)

func TestColumnConversions(t *testing.T) {
	line := []byte("a:\t\"é😀\", b: 1")
	// byte offsets: a=0 :=1 \t=2 "=3 é=4,5 😀=6..9 "=10 ,=11 ' '=12 b=13
	for _, c := range []struct{ char, byte, utf16 int }{
		{1, 1, 1}, {3, 3, 3}, {5, 5, 5}, {6, 7, 6}, {7, 11, 8}, {9, 13, 10}, {10, 14, 11},
		{20, 24, 21}, // past the end: one byte per character
	} {
		if got := ByteColumn(line, c.char); got != c.byte {
			t.Errorf("ByteColumn(%d) = %d, want %d", c.char, got, c.byte)
		}
		if got := CodePointColumn(line, c.byte); got != c.char {
			t.Errorf("CodePointColumn(%d) = %d, want %d", c.byte, got, c.char)
		}
		if got := UTF16Column(line, c.byte); got != c.utf16 {
			t.Errorf("UTF16Column(%d) = %d, want %d", c.byte, got, c.utf16)
		}
	}
	// A byte column inside a character points at that character.
	if got := CodePointColumn(line, 8); got != 6 {
		t.Errorf("CodePointColumn inside 😀 = %d, want 6", got)
	}
}

// TestLocateCountsBytes parses lines with multi-byte text and tabs before
// the fields and checks that every position names the byte where the field
// is written, in short lines and in a line long enough to use the
// per-line character counts.
func TestLocateCountsBytes(t *testing.T) {
	long := strings.Repeat("ü", 3*runeStep) // 6 runeSteps of bytes
	doc := "apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {a: \"héllo wörld\",\tb: \"" + long + "\", c: \"😀\",\tz: x}}\n" +
		"spec:\n  containers:\n  - {name: \"ünï\",\timage: nginx}\n"
	res := Parse("p.yaml", []byte(doc), DefaultLimits)
	if len(res.Objects) != 1 {
		t.Fatalf("objects: %d, problems %+v", len(res.Objects), res.Problems)
	}
	d := res.Objects[0].Doc
	for _, c := range []struct {
		path workload.Path
		text string // what the column must point at
	}{
		{workload.Path("metadata.annotations.b"), `"` + long[:10]},
		{workload.Path("metadata.annotations.c"), `"😀"`},
		{workload.Path("metadata.annotations.z"), "x}}"},
		{workload.Path("spec.containers[0].image"), "nginx}"},
	} {
		pos, exact := d.Locate(c.path)
		if !exact {
			t.Fatalf("%s not found", c.path)
		}
		line := d.File.lineBytes(pos.Line)
		if pos.Column < 1 || pos.Column > len(line) || !bytes.HasPrefix(line[pos.Column-1:], []byte(c.text)) {
			t.Errorf("%s at %d:%d, which is not %q", c.path, pos.Line, pos.Column, c.text)
		}
	}
	// The loader's own problems are byte columns too.
	res = Parse("p.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: \"ü\",\tbogus: 1}\nspec: {containers: [{name: a, image: b}]}\n"), DefaultLimits)
	var found bool
	for _, p := range res.Problems {
		if p.Rule == RuleUnknownField {
			found = true
			if want := strings.Index("metadata: {name: \"ü\",\tbogus: 1}", "bogus") + 1; p.Column != want {
				t.Errorf("unknown field at column %d, want byte column %d", p.Column, want)
			}
		}
	}
	if !found {
		t.Fatalf("no unknown-field problem: %+v", res.Problems)
	}
}

// TestSyntaxErrorColumn: the parser names only the line of a syntax error;
// the problem points at the first character written on it, where the
// misplaced key is, not at column 1.
func TestSyntaxErrorColumn(t *testing.T) {
	doc := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: a\n    image: b\n     ports: []\n"
	res := Parse("p.yaml", []byte(doc), DefaultLimits)
	if len(res.Problems) != 1 || res.Problems[0].Rule != RuleInvalidYAML {
		t.Fatalf("problems: %+v", res.Problems)
	}
	if p := res.Problems[0]; p.Line != 9 || p.Column != 6 {
		t.Errorf("syntax error at %d:%d, want 9:6", p.Line, p.Column)
	}
}
