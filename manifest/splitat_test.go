package manifest

import (
	"reflect"
	"testing"

	"github.com/podlint/podlint/workload"
)

// TestSplitDocumentAt: a document split alone at its line and index loads
// as it does in its file: the same problems at the same lines and columns,
// the same objects at the same positions and document index, the same
// source lines and fixes at the same byte offsets.
func TestSplitDocumentAt(t *testing.T) {
	data := []byte("\uFEFFapiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" +
		"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: b}\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: x\n          image: y\n          lifecycle: {preStop: {sleep: {seconds: 5}}}\n" +
		"---\n# a comment\napiVersion: v1\nkind: Pod\nmetadata: {name: é}\nspec:\n  containers: [{name: c, image: x, bogus: 1}]\n")
	sp := SplitFile("f.yaml", data, DefaultLimits)
	if sp.Docs() != 3 {
		t.Fatalf("%d documents, want 3", sp.Docs())
	}
	for i := range sp.Docs() {
		var whole Result
		sp.Load(i, DefaultLimits, &whole)
		s, e := sp.DocRange(i)
		alone := SplitDocumentAt("f.yaml", data[s:e], s, sp.DocLine(i), i, DefaultLimits)
		if alone.Docs() != 1 || len(alone.Problems) > 0 {
			t.Fatalf("document %d alone: %d documents, problems %v", i, alone.Docs(), alone.Problems)
		}
		var res Result
		alone.Load(0, DefaultLimits, &res)
		if !reflect.DeepEqual(res.Problems, whole.Problems) {
			t.Errorf("document %d alone has problems\n%+v\nin the file\n%+v", i, res.Problems, whole.Problems)
		}
		if len(res.Objects) != len(whole.Objects) || len(res.Objects) == 0 {
			t.Fatalf("document %d: %d objects alone, %d in the file", i, len(res.Objects), len(whole.Objects))
		}
		for k, o := range res.Objects {
			w := whole.Objects[k]
			if o.Doc.Index != w.Doc.Index || o.Ref != w.Ref {
				t.Errorf("document %d object %d: %v (document %d) alone, %v (document %d) in the file", i, k, o.Ref, o.Doc.Index, w.Ref, w.Doc.Index)
			}
			for _, p := range []workload.Path{"", "metadata.name", "spec"} {
				a, _ := o.Doc.Locate(p)
				b, _ := w.Doc.Locate(p)
				if a != b {
					t.Errorf("document %d, %q: at %v alone, %v in the file", i, p, a, b)
				}
				if got, want := o.Doc.File.Line(a.Line), w.Doc.File.Line(b.Line); got != want {
					t.Errorf("document %d, line %d: %q alone, %q in the file", i, a.Line, got, want)
				}
			}
		}
	}
}
