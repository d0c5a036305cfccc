package render

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/podlint/podlint/manifest"
)

// unlinked runs f as in podlint itself, which links no engine.
func unlinked(t *testing.T, f func()) {
	t.Helper()
	saved := linked
	linked = nil
	defer func() { linked = saved }()
	f()
}

// TestRenderExecutableMissing: a podlint without podlint-render beside it
// says which file it looked for and how to install it, and lints nothing
// of the root rather than rendering it some other way.
func TestRenderExecutableMissing(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	real, _ := filepath.EvalSymlinks(self)
	want := filepath.Join(filepath.Dir(real), RenderCommand)
	if runtime.GOOS == "windows" {
		want += ".exe"
	}
	if _, err := os.Stat(want); err == nil {
		t.Skipf("%s exists", want)
	}
	unlinked(t, func() {
		o := &Options{}
		_, err := o.Open(manifest.Source{Path: filepath.Join("testdata", "helm", "podinfo"), Render: manifest.RenderHelm})
		if err == nil {
			t.Fatal("Open without an engine or a render executable succeeded")
		}
		msg := err.Error()
		for _, w := range []string{"testdata/helm/podinfo: cannot render", want, "go install github.com/podlint/podlint/cmd/...@"} {
			if !strings.Contains(msg, w) && !strings.Contains(msg, filepath.FromSlash(w)) {
				t.Errorf("error %q does not say %q", msg, w)
			}
		}
	})
}

// TestRenderInProcessUnlinked: rendering in a process without an engine is
// a problem at the root, not a crash.
func TestRenderInProcessUnlinked(t *testing.T) {
	unlinked(t, func() {
		for _, r := range []*Output{
			RenderChart(filepath.Join("testdata", "helm", "podinfo"), HelmOptions{}),
			RenderKustomization(filepath.Join("testdata", "kustomize", "helloWorld")),
		} {
			if len(r.Docs) != 0 || len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "does not link Helm's engine or kustomize") {
				t.Errorf("rendered %d documents, problems %+v; want one problem saying no engine is linked", len(r.Docs), r.Problems)
			}
		}
	})
}
