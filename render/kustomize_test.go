package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoNetwork: a remote base is refused before kustomize runs (it would
// clone with git), and a URL elsewhere (a patch) fails to fetch instead of
// fetching: both are problems, positioned at the kustomization.
func TestNoNetwork(t *testing.T) {
	r := RenderKustomization(filepath.Join("testdata", "kustomize", "remote-base"))
	if len(r.Problems) != 1 || r.Problems[0].Line != 2 || r.Problems[0].Column != 5 || !strings.Contains(r.Problems[0].Message+" "+r.Problems[0].Detail, "remote base") || len(r.Docs) != 0 {
		t.Errorf("remote base: problems %+v, %d docs", r.Problems, len(r.Docs))
	}
	dir := t.TempDir()
	pod, err := os.ReadFile(filepath.Join("testdata", "kustomize", "remote-base", "pod.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "pod.yaml"), pod, 0o644)
	os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n  - pod.yaml\npatches:\n  - path: https://podlint.invalid/patch.yaml\n"), 0o644)
	r = RenderKustomization(dir)
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message+" "+r.Problems[0].Detail, "podlint never fetches over the network (podlint.invalid)") {
		t.Errorf("remote patch: problems %+v", r.Problems)
	}
}
