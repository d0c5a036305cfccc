package manifest

import "testing"

// helmOutput is shaped like `helm template` output: every document starts
// with "---" and a "# Source:" comment naming the chart file.
const helmOutput = `---
# Source: shop/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: shop
---
# Source: shop/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: shop
data:
  notes: |
    # Source: not/a/template.yaml
---
# Source: shop/templates/deployment.yaml
# some other comment helm does not write but a post-renderer might
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  template:
    spec:
      containers:
        - name: app
          image: nginx
          bogus: 1
---
apiVersion: v1
kind: Service
metadata:
  name: no-source-comment
`

func TestRenderedSource(t *testing.T) {
	res := Parse("<stdin>", []byte(helmOutput), DefaultLimits)
	want := map[string]string{
		"ServiceAccount": "shop/templates/serviceaccount.yaml",
		"ConfigMap":      "shop/templates/configmap.yaml", // not the comment inside data
		"Deployment":     "shop/templates/deployment.yaml",
		"Service":        "",
	}
	if len(res.Objects) != len(want) {
		t.Fatalf("%d objects, want %d", len(res.Objects), len(want))
	}
	for _, o := range res.Objects {
		if got := o.Doc.Source; got != want[o.Ref.Kind] {
			t.Errorf("%s: Source = %q, want %q", o.Ref.Kind, got, want[o.Ref.Kind])
		}
	}
	// The loader's own problems carry the source too: an unknown field in a
	// rendered Deployment is fixed in its template.
	if len(res.Problems) != 1 || res.Problems[0].Rule != RuleUnknownField || res.Problems[0].Source != "shop/templates/deployment.yaml" {
		t.Errorf("problems = %+v, want one unknown-field from shop/templates/deployment.yaml", res.Problems)
	}
	// Lines stay lines of the stream: "bogus" is on line 29 of helmOutput.
	if len(res.Problems) == 1 && res.Problems[0].Line != 29 {
		t.Errorf("unknown-field at line %d, want 29 (the rendered stream's line)", res.Problems[0].Line)
	}
}

func TestRenderedSourceOnlyInLeadingComments(t *testing.T) {
	for in, want := range map[string]string{
		"# Source: a/templates/x.yaml\nkind: Pod\n":         "a/templates/x.yaml",
		"---\n\n#Source:   a/b.yaml  \nkind: Pod\n":         "a/b.yaml",
		"kind: Pod\n# Source: a/templates/x.yaml\n":         "",
		"# generated\n# Source: c/templates/y.yaml\nx: 1\n": "c/templates/y.yaml",
		"": "",
	} {
		if got := renderedSource([]byte(in)); got != want {
			t.Errorf("renderedSource(%q) = %q, want %q", in, got, want)
		}
	}
}
