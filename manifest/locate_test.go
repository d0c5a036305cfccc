package manifest

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/workload"
)

// TestLocate checks positions across --- boundaries, in List items, in flow
// style and in JSON: line and column of the value for scalars, of the key
// for mappings and lists, of the item for list items, and of the nearest
// ancestor for missing fields.
func TestLocate(t *testing.T) {
	cases := []struct {
		name, file string
		doc        int // document index
		path       workload.Path
		line, col  int
		exact      bool
	}{
		{"block scalar value", "a: 1\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: app\n      livenessProbe:\n        periodSeconds: 5\n",
			1, "spec.containers[0].livenessProbe.periodSeconds", 9, 24, true},
		{"mapping points at its key", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: app\n      livenessProbe:\n        periodSeconds: 5\n",
			0, "spec.containers[0].livenessProbe", 6, 7, true},
		{"list item points at the item", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: app\n    -   name: b\n",
			0, "spec.containers[1]", 6, 9, true},
		{"missing field falls back to its parent key", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: app\n      livenessProbe:\n        periodSeconds: 5\n",
			0, "spec.containers[0].livenessProbe.timeoutSeconds", 6, 7, false},
		{"flow style", "{apiVersion: v1, kind: Pod, spec: {containers: [{name: app, image: nginx, ports: [{containerPort: 80}]}]}}\n",
			0, "spec.containers[0].ports[0].containerPort", 1, 99, true},
		{"json", "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"spec\": {\"containers\": [{\"name\": \"app\", \"image\": \"nginx\"}]}\n}\n",
			0, "spec.containers[0].image", 4, 52, true},
		{"list items", "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    spec: {containers: [{name: a}]}\n  - apiVersion: v1\n    kind: Pod\n    spec:\n      containers:\n        - name: b\n",
			0, "items[1].spec.containers[0].name", 11, 17, true},
		{"a mis-cased key is not the field", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - name: app\n      LivenessProbe:\n        periodSeconds: 5\n",
			0, "spec.containers[0].livenessProbe.periodSeconds", 5, 7, false},
		{"merge key", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n    - <<: {image: nginx}\n      name: app\n",
			0, "spec.containers[0].image", 5, 19, true},
		{"quoted annotation key", "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    ignore-check.podlint.dev/PL101: \"why\"\n",
			0, `metadata.annotations["ignore-check.podlint.dev/PL101"]`, 5, 37, true},
		{"third document after a broken second", "apiVersion: v1\nkind: Pod\n---\na: [\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\n",
			2, "metadata.name", 8, 18, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Parse("f.yaml", []byte(tc.file), DefaultLimits)
			var doc *Document
			for _, o := range res.Objects {
				if o.Doc.Index == tc.doc {
					doc = o.Doc
				}
			}
			if doc == nil {
				t.Fatalf("no object in document %d; problems: %+v", tc.doc, res.Problems)
			}
			pos, exact := doc.Locate(tc.path)
			if pos.Line != tc.line || pos.Column != tc.col || exact != tc.exact {
				t.Errorf("Locate(%q) = %d:%d exact=%v, want %d:%d exact=%v\n%s", tc.path, pos.Line, pos.Column, exact, tc.line, tc.col, tc.exact,
					strings.Split(tc.file, "\n")[max(pos.Line-1, 0)])
			}
		})
	}
}
