package apisurface

import (
	"reflect"
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	pkgs, err := Count("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2][]string{}
	for _, p := range pkgs {
		got[p.Path] = [2][]string{p.Exported, p.Unused}
	}
	want := map[string][2][]string{
		"example.com/m/a": {{"T", "T.F", "T.M", "T.N", "Unused", "Used"}, {"T.F", "T.N", "Unused"}},
		"example.com/m/b": {{"B"}, {"B"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Count = %v\nwant %v", got, want)
	}
}

// TestImportablePackagesMakeNoAPIPromise: podlint is a command, not a
// library; a package another module can import says so in its doc, so
// that nobody builds on it by mistake.
func TestImportablePackagesMakeNoAPIPromise(t *testing.T) {
	pkgs, err := Count("../..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pkgs {
		if Internal(p.Path) {
			continue
		}
		n++
		if !strings.Contains(strings.Join(strings.Fields(p.Doc), " "), "no API promise") {
			t.Errorf("%s: its package comment does not say it makes no API promise", p.Path)
		}
	}
	if n < 10 {
		t.Errorf("only %d importable packages found; the walk is broken", n)
	}
}
