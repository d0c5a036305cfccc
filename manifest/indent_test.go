package manifest

import (
	"fmt"
	"strings"
	"testing"
)

// TestMisindentedLinePointsAtItself: a key indented unlike its block is
// reported at its own line and column, where yaml.v3 names the line the
// block starts at ("did not find expected '-' indicator" on containers:,
// three lines above the stray ports:).
func TestMisindentedLinePointsAtItself(t *testing.T) {
	for _, tc := range []struct {
		name, doc    string
		line, column int
		msg          string
	}{
		{"a sequence item's key one space left", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: app
      image: nginx
     ports:
        - containerPort: 80
`, 9, 6, "did not find expected '-' indicator: line 9 is not indented like the block that starts at line 6"},
		{"a mapping key between two levels", `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
      - name: app
        image: nginx
     ports:
        - containerPort: 80
`, 9, 6, "did not find expected key: line 9 is not indented like the block that starts at line 5"},
		// In a later document of a stream the lines count from the file's
		// start.
		{"a later document", "kind: ConfigMap\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels:\n    a: b\n   c: d\n", 9, 4,
			"did not find expected key: line 9 is not indented like the block that starts at line 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Parse("p.yaml", []byte(tc.doc), DefaultLimits)
			var got []Problem
			for _, p := range res.Problems {
				if p.Rule == RuleInvalidYAML {
					got = append(got, p)
				}
			}
			if len(got) != 1 || got[0].Line != tc.line || got[0].Column != tc.column || !strings.Contains(got[0].Message, tc.msg) {
				t.Errorf("problems %+v; want one at %d:%d saying %q", got, tc.line, tc.column, tc.msg)
			}
		})
	}
	// A document past maxStraySearch keeps the parser's line: bisecting
	// it would parse megabytes twenty times.
	var b strings.Builder
	b.WriteString("metadata:\n  name: p\n  labels:\n")
	for i := 0; b.Len() <= maxStraySearch; i++ {
		fmt.Fprintf(&b, "    k%d: v\n", i)
	}
	b.WriteString("   c: d\n")
	big := b.String()
	if res := Parse("big.yaml", []byte(big), DefaultLimits); len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Message, "did not find expected key") || strings.Contains(res.Problems[0].Message, "is not indented like") {
		t.Errorf("a %d-byte document: problems %+v; want the parser's own", len(big), res.Problems)
	}
	// An error that is not a block's keeps the parser's line: an unclosed
	// flow mapping, where cutting the document short cannot tell.
	res := Parse("p.yaml", []byte("a: {b: 1,\nc: 2\n"), DefaultLimits)
	if len(res.Problems) != 1 || strings.Contains(res.Problems[0].Message, "is not indented like") {
		t.Errorf("problems %+v; want the parser's own", res.Problems)
	}
}
