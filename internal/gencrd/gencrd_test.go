package gencrd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSameAsScript compares with the files the shared script wrote, when
// PODLINT_GENCRD_SCRIPT_DIR names them (python3 gen-crd-kustomization.py DIR 4 2.8):
// the benchmark's root is then the one the issue measured.
func TestSameAsScript(t *testing.T) {
	want := os.Getenv("PODLINT_GENCRD_SCRIPT_DIR")
	if want == "" {
		t.Skip("PODLINT_GENCRD_SCRIPT_DIR not set")
	}
	dir := t.TempDir()
	if err := Write(dir, 4, 2_800_000); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"base/crd-0.yaml", "base/crd-3.yaml", "base/deployment.yaml", "base/service.yaml", "base/kustomization.yaml", "overlay/kustomization.yaml"} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(want, f))
		if string(a) != string(b) {
			t.Errorf("%s: %d bytes, the script's %d", f, len(a), len(b))
		}
	}
}

// TestSize: a CRD is at least the size asked for, and not twice it (the
// tree widens one step at a time).
func TestSize(t *testing.T) {
	for _, size := range []int{100_000, 1_000_000} {
		n := len(CRD(1, size))
		if n < size || n > 2*size {
			t.Errorf("CRD of %d bytes asked: %d", size, n)
		}
	}
}
