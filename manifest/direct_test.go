package manifest

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/podlint/podlint/internal/testcorpus"
)

// TestDirectDecoding checks that the converter stores corpus workloads
// itself (falling back to encoding/json is correct but slow, so a fallback
// on ordinary manifests is a performance bug) and that what it stores equals
// what encoding/json decodes from the JSON it wrote.
func TestDirectDecoding(t *testing.T) {
	for _, set := range corpusSets(t) {
		t.Run(set.Name, func(t *testing.T) { directDecoding(t, set) })
	}
}

func directDecoding(t *testing.T, set testcorpus.Set) {
	direct, fallback := 0, 0
	for _, path := range corpusFiles(t, set) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res := Parse(path, data, DefaultLimits)
		for _, o := range res.Objects {
			if o.Typed == nil || !IsWorkloadKind(o.Ref.APIVersion, o.Ref.Kind) {
				continue
			}
			target := o.Node
			typ := reflect.TypeOf(o.Typed).Elem()
			c := &converter{maxDepth: DefaultLimits.MaxDepth, budget: DefaultLimits.MaxNodes, lineOff: o.Doc.LineOffset}
			got := reflect.New(typ)
			c.convert(target, typ, 0, got.Elem())
			if len(c.errors) > 0 {
				continue
			}
			if c.bad {
				fallback++
				continue
			}
			direct++
			want := reflect.New(typ)
			if err := json.Unmarshal(c.buf, want.Interface()); err != nil {
				t.Errorf("%s: %s: encoding/json refuses the converter's JSON: %v", path, o.Ref.Kind, err)
				continue
			}
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Errorf("%s: %s %s: stored object differs from encoding/json's", path, o.Ref.Kind, o.Ref.Name)
			}
			// Without the JSON (as the loader converts), the same object.
			quiet := &converter{maxDepth: DefaultLimits.MaxDepth, budget: DefaultLimits.MaxNodes, lineOff: o.Doc.LineOffset, noJSON: true}
			stored := reflect.New(typ)
			quiet.convert(target, typ, 0, stored.Elem())
			if quiet.bad || len(quiet.errors) > 0 || !reflect.DeepEqual(stored.Interface(), got.Interface()) {
				t.Errorf("%s: %s %s: converting without the JSON stores another object (bad %v)", path, o.Ref.Kind, o.Ref.Name, quiet.bad)
			}
			if len(quiet.buf) != 0 {
				t.Errorf("%s: %s %s: %d bytes of JSON written that nothing reads", path, o.Ref.Kind, o.Ref.Name, len(quiet.buf))
			}
		}
	}
	t.Logf("%s corpus %s: %d workloads stored directly, %d through encoding/json", set.Name, set.Dir, direct, fallback)
	if direct == 0 {
		t.Errorf("no workload of %s was stored", set.Dir)
	}
	if fallback > direct/100 {
		t.Errorf("%d of %d corpus workloads fell back to encoding/json", fallback, direct+fallback)
	}
}
