package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalkedFileIsReadInsideTheRepository (issue 21): a file found by
// walking is checked when found, and read through internal/safefile, so
// that a file swapped for a link out of the repository after the walk is
// refused, not read; a file named on the command line is read as given.
func TestWalkedFileIsReadInsideTheRepository(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	secret := filepath.Join(base, "secret.yaml")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.WriteFile(secret, []byte("TOPSECRET: hunter2\n"), 0o600)
	pod := filepath.Join(repo, "pod.yaml")
	os.WriteFile(pod, []byte("kind: Pod\n"), 0o644)
	srcs, _, errs := Discover([]string{repo}, nil, false)
	if len(errs) > 0 || len(srcs) != 1 || srcs[0].Root == "" {
		t.Fatalf("Discover = %+v, %v", srcs, errs)
	}
	if data, _, err := srcs[0].Read(1 << 20); err != nil || string(data) != "kind: Pod\n" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	os.Remove(pod)
	if err := os.Symlink(secret, pod); err != nil {
		t.Skip(err)
	}
	data, _, err := srcs[0].Read(1 << 20)
	if err == nil || strings.Contains(string(data), "hunter2") {
		t.Errorf("Read after the swap = %q, %v; want it refused", data, err)
	}
	named := Source{Path: pod, Explicit: true}
	if data, _, err := named.Read(1 << 20); err != nil || !strings.Contains(string(data), "hunter2") {
		t.Errorf("a named file is read as given: %q, %v", data, err)
	}
}
