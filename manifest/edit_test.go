package manifest

import (
	"errors"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
)

// TestEdit resolves operations to text edits on small documents and
// checks the edited text, or that the operation is refused.
func TestEdit(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		op       Op
		want     string // "" when refused
	}{
		{"plain", "a:\n  b: 3 # c\n", Op{Kind: OpSet, Path: "a.b", Value: "1"}, "a:\n  b: 1 # c\n"},
		{"double quoted", "a: \"x\\\"y\" # c\n", Op{Kind: OpSet, Path: "a", Value: "Always"}, "a: \"Always\" # c\n"},
		{"single quoted", "a: 'it''s'\n", Op{Kind: OpSet, Path: "a", Value: "Never"}, "a: 'Never'\n"},
		{"flow", "a: {b: 2, c: [1, 2]}\n", Op{Kind: OpSet, Path: "a.c[1]", Value: "5"}, "a: {b: 2, c: [1, 5]}\n"},
		{"multi-byte before", "a: {ü: \"日本\", b: 3}\n", Op{Kind: OpSet, Path: "a.b", Value: "1"}, "a: {ü: \"日本\", b: 1}\n"},
		{"value needs quotes", "a: b\n", Op{Kind: OpSet, Path: "a", Value: "x: y"}, "a: \"x: y\"\n"},
		{"insert flow", "a: {b: 2}\n", Op{Kind: OpInsert, Path: "a.c", Value: "3"}, "a: {b: 2, c: 3}\n"},
		{"insert block after", "a:\n  b: 1\n  c:\n    - x\n  d: 2\n", Op{Kind: OpInsert, Path: "a.e", After: "c", Value: "3"}, "a:\n  b: 1\n  c:\n    - x\n  e: 3\n  d: 2\n"},
		{"insert at end without a break", "a:\n  b: 1", Op{Kind: OpInsert, Path: "a.c", Value: "2"}, "a:\n  b: 1\n  c: 2\n"},
		{"insert CRLF", "a:\r\n  b: 1\r\n", Op{Kind: OpInsert, Path: "a.c", Value: "2"}, "a:\r\n  b: 1\r\n  c: 2\r\n"},
		{"insert block mapping", "a:\n    b: 1\n", Op{Kind: OpInsert, Path: "a.c", Lines: []string{"d: 1", "e:", "  f: 2"}}, "a:\n    b: 1\n    c:\n        d: 1\n        e:\n            f: 2\n"},
		{"insert after a sequence at the key's indentation", "a:\n  b:\n  - x\n  # tail\n", Op{Kind: OpInsert, Path: "a.c", Value: "1"}, "a:\n  b:\n  - x\n  c: 1\n  # tail\n"},
		{"delete key with nested value", "a:\n  b:\n    c: 1\n\n    d: 2\n  e: 3\n", Op{Kind: OpDelete, Path: "a.b"}, "a:\n  e: 3\n"},
		{"delete item", "a:\n  - x: 1\n    y: 2\n  - x: 3\n", Op{Kind: OpDelete, Path: "a[0]"}, "a:\n  - x: 3\n"},
		{"delete keeps trailing comment", "a: 1\nb: 2\n# end\nc: 3\n", Op{Kind: OpDelete, Path: "b"}, "a: 1\n# end\nc: 3\n"},
		{"through an alias", "x: &p {b: 1}\na: *p\n", Op{Kind: OpSet, Path: "a.b", Value: "2"}, ""},
		{"anchored", "x: &p {b: 1}\na: *p\n", Op{Kind: OpSet, Path: "x.b", Value: "2"}, ""},
		{"from a merge key", "x: &p {b: 1}\na:\n  <<: *p\n", Op{Kind: OpSet, Path: "a.b", Value: "2"}, ""},
		{"insert next to a merge key", "x: &p {b: 1}\na:\n  <<: *p\n  c: 1\n", Op{Kind: OpInsert, Path: "a.b", Value: "2"}, ""},
		{"block scalar", "a: |\n  x\n", Op{Kind: OpSet, Path: "a", Value: "y"}, ""},
		{"multi-line plain", "a: x\n  y\n", Op{Kind: OpSet, Path: "a", Value: "z"}, ""},
		{"tagged", "a: !!str 3\n", Op{Kind: OpSet, Path: "a", Value: "1"}, ""},
		{"duplicate key", "a: 1\na: 2\n", Op{Kind: OpSet, Path: "a", Value: "3"}, ""},
		{"delete in flow", "a: {b: 1, c: 2}\n", Op{Kind: OpDelete, Path: "a.b"}, ""},
		{"insert existing", "a: {b: 1}\n", Op{Kind: OpInsert, Path: "a.b", Value: "2"}, ""},
		{"missing", "a: 1\n", Op{Kind: OpSet, Path: "b", Value: "2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := SplitFile("x.yaml", []byte(tc.in), DefaultLimits)
			doc := loadRaw(t, sp)
			e, err := doc.Edit(tc.op)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("not refused: edit %+v", e)
				}
				if !errors.Is(err, ErrNoEdit) {
					t.Errorf("error %v does not wrap ErrNoEdit", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, err := finding.ApplyEdits([]byte(tc.in), []finding.Edit{e})
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("got\n%q\nwant\n%q", out, tc.want)
			}
			// The line and column fields point at the same bytes.
			lines := strings.SplitAfter(tc.in, "\n")
			off := 0
			for i := 0; i < e.StartLine-1; i++ {
				off += len(lines[i])
			}
			if off+e.StartColumn-1 != e.Start {
				t.Errorf("start %d is not line %d column %d", e.Start, e.StartLine, e.StartColumn)
			}
		})
	}
}

// TestEditAfterByteOrderMark: offsets count the mark, which the loader
// drops.
func TestEditAfterByteOrderMark(t *testing.T) {
	in := "\xEF\xBB\xBFa: 3\n"
	doc := loadRaw(t, SplitFile("x.yaml", []byte(in), DefaultLimits))
	e, err := doc.Edit(Op{Kind: OpSet, Path: workload.Path("a"), Value: "1"})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := finding.ApplyEdits([]byte(in), []finding.Edit{e})
	if string(out) != "\xEF\xBB\xBFa: 1\n" || e.StartColumn != 7 {
		t.Errorf("got %q, column %d", out, e.StartColumn)
	}
}

// loadRaw parses the first document of sp without decoding it as an
// object (the test documents are not Kubernetes objects).
func loadRaw(t *testing.T, sp *Split) *Document {
	t.Helper()
	chunk := sp.docs[0]
	doc := &Document{File: sp.File, LineOffset: chunk.line - 1, maxDepth: DefaultLimits.MaxDepth}
	doc.Root = new(yaml.Node)
	if err := parseYAML(chunk.data, doc.Root); err != nil {
		t.Fatal(err)
	}
	return doc
}

// FuzzEdit resolves operations on arbitrary YAML: Edit never panics, and
// an edit it returns does what it says: the edited text parses, and the
// field holds the new scalar (set, insert) or is gone (delete), while
// a path that went through a merge key or alias was refused.
func FuzzEdit(f *testing.F) {
	f.Add("a:\n  b: 3 # c\n", "a.b", 0, "1")
	f.Add("a: {b: 2, c: [1, 2]}\n", "a.c[1]", 0, "5")
	f.Add("a:\r\n  b: 1\r\n", "a.c", 1, "2")
	f.Add("a:\n  b:\n  - x\n  # tail\n", "a.c", 1, "1")
	f.Add("a:\n  - x: 1\n    y: 2\n  - x: 3\n", "a[0]", 2, "")
	f.Add("x: &p {b: 1}\na:\n  <<: *p\n  c: 1\n", "a.c", 2, "")
	f.Add("a: 'it''s'\nb: \"x\\\"y\"\n", "b", 0, "Never")
	f.Fuzz(func(t *testing.T, in, path string, kind int, value string) {
		if len(in) > 2000 || len(path) > 100 {
			return
		}
		sp := SplitFile("x.yaml", []byte(in), DefaultLimits)
		if sp.Binary || sp.Docs() == 0 || len(sp.Problems) > 0 {
			return
		}
		chunk := sp.docs[0]
		doc := &Document{File: sp.File, LineOffset: chunk.line - 1, maxDepth: DefaultLimits.MaxDepth, Root: new(yaml.Node)}
		if parseYAML(chunk.data, doc.Root) != nil || doc.Root.Kind != yaml.DocumentNode {
			return
		}
		op := Op{Kind: OpKind(1 + (kind%3+3)%3), Path: workload.Path(path), Value: value}
		e, err := doc.Edit(op)
		if err != nil {
			return
		}
		out, err := finding.ApplyEdits([]byte(in), []finding.Edit{e})
		if err != nil {
			t.Fatalf("edit %+v does not apply: %v", e, err)
		}
		var before, after yaml.Node
		if err := parseYAML([]byte(in)[:len(chunk.data)], &before); err != nil {
			return
		}
		if err := parseYAML(out[:len(out)-len(in)+len(chunk.data)], &after); err != nil {
			t.Fatalf("%q: %v of %s gives %q, which does not parse: %v", in, op.Kind, path, out, err)
		}
		d2 := &Document{File: NewFile("x.yaml", out), Root: &after, maxDepth: DefaultLimits.MaxDepth}
		_, n, exact := d2.resolve(op.Path)
		switch op.Kind {
		case OpSet, OpInsert:
			n = deref(n)
			if !exact || n == nil || n.Kind != yaml.ScalarNode || n.Value != value {
				t.Fatalf("%q: %v of %s to %q gives %q, where the field is not %q", in, op.Kind, path, value, out, value)
			}
		case OpDelete:
			if exact && !strings.HasSuffix(path, "]") {
				t.Fatalf("%q: delete of %s gives %q, which still has it", in, path, out)
			}
		}
	})
}
