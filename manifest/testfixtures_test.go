package manifest

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestWalkSkipsTestFixtures: a walk leaves out testdata and hack folders
// and golden outputs, which repositories keep for their tests and
// development and nobody applies; the same folder or file named on the
// command line is linted.
func TestWalkSkipsTestFixtures(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"deploy/app.yaml",
		"deploy/testdata/bad.yaml",
		"pkg/testdata/nested/more.yaml",
		"out/install.golden.yaml",
		"out/install.GOLDEN.yml",
		"testdatax/kept.yaml",
		"hack/test-resources/pod.yaml",
		"deploy/hack/kind.yaml",
		"hacks/kept.yaml",
	} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(srcs []Source) []string {
		var out []string
		for _, s := range srcs {
			rel, _ := filepath.Rel(dir, s.Path)
			out = append(out, filepath.ToSlash(rel))
		}
		return out
	}
	srcs, _, errs := Discover([]string{dir}, nil, false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got, want := paths(srcs), []string{"deploy/app.yaml", "hacks/kept.yaml", "testdatax/kept.yaml"}; !reflect.DeepEqual(got, want) {
		t.Errorf("walk found %q, want %q", got, want)
	}
	srcs, _, errs = Discover([]string{filepath.Join(dir, "deploy/testdata"), filepath.Join(dir, "hack"), filepath.Join(dir, "out/install.golden.yaml")}, nil, false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got, want := paths(srcs), []string{"deploy/testdata/bad.yaml", "hack/test-resources/pod.yaml", "out/install.golden.yaml"}; !reflect.DeepEqual(got, want) {
		t.Errorf("named on the command line: found %q, want %q", got, want)
	}
}
