package fix

import (
	"reflect"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// TestPlainIsDecode: plain gives every scalar the value yaml.v3's Decode
// gives it, strings without a decoder per scalar included.
func TestPlainIsDecode(t *testing.T) {
	const doc = `a: plain
b: "double"
c: 'single'
d: !!str 12
e: !<tag:yaml.org,2002:str> yes
f: |
  literal
g: 12
h: true
i: 1.5
j: ~
k: 2001-12-14
l: !!binary aGVsbG8=
"m n": 0x1F
o: !custom x
p: [on, "off", 007, .inf, -.Inf, .nan]
q: ""
r: null
s: !!null
t: 1_000
`
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	budget := 1 << 20
	got, err := plain(&n, &budget)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := n.Decode(&want); err != nil {
		t.Fatal(err)
	}
	// NaN is not equal to itself: compare the one sequence holding it by
	// its other items.
	g, w := got.(map[string]any), want.(map[string]any)
	gp, wp := g["p"].([]any), w["p"].([]any)
	if len(gp) != 6 || len(wp) != 6 || gp[5] == gp[5] {
		t.Fatalf("p: %#v, want six items ending in NaN (%#v)", gp, wp)
	}
	g["p"], w["p"] = gp[:5], wp[:5]
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plain gives\n%#v\nDecode gives\n%#v", got, want)
	}
}
