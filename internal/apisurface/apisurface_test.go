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
		"example.com/m/c": {nil, nil},
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

// maxComplexity is the cyclomatic complexity above which a function is
// split: past it, a reader cannot hold its paths in mind, and its tests
// cannot cover them.
const maxComplexity = 35

// overMaxComplexity are the functions still over maxComplexity, to be
// split: the list only shrinks (a function on it that is split fails the
// test until it is taken off). It is empty: every function is within
// maxComplexity, and a new one over it fails the test.
var overMaxComplexity = map[string]bool{}

func TestNoFunctionOverMaxComplexity(t *testing.T) {
	fs, err := Complexities("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) < 500 {
		t.Fatalf("only %d functions found; the walk is broken", len(fs))
	}
	seen := map[string]bool{}
	for _, f := range fs {
		over := f.Complexity > maxComplexity
		switch {
		case over && !overMaxComplexity[f.Name]:
			t.Errorf("%s has a cyclomatic complexity of %d, over %d: split it", f.Name, f.Complexity, maxComplexity)
		case !over && overMaxComplexity[f.Name]:
			t.Errorf("%s is at %d now, within %d: take it off overMaxComplexity", f.Name, f.Complexity, maxComplexity)
		}
		seen[f.Name] = true
	}
	for name := range overMaxComplexity {
		if !seen[name] {
			t.Errorf("%s, on overMaxComplexity, no longer exists: take it off", name)
		}
	}
}

func TestComplexity(t *testing.T) {
	fs, err := Complexities("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range fs {
		got[f.Name] = f.Complexity
	}
	if got["c/c.go:branchy"] != 8 || got["a/a.go:Used"] != 1 {
		t.Errorf("complexities %v; want branchy 8, Used 1", got)
	}
}

// TestNoRuleIDLiterals: code names a rule by its value (rules.X.ID), never
// by a literal ID, except in the rule's own ID field.
func TestNoRuleIDLiterals(t *testing.T) {
	got, err := RuleIDLiterals("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`c/c.go:29: "see PL902"`}; !reflect.DeepEqual(got, want) {
		t.Errorf("RuleIDLiterals(testdata/mod) = %q, want %q", got, want)
	}
	got, err = RuleIDLiterals("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range got {
		t.Errorf("%s: a literal rule ID; refer to the rule by value (rules.X.ID)", l)
	}
}
