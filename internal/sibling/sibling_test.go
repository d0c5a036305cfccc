package sibling

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Path looks in the test binary's own folder and says why it cannot use
// what it finds there; the name gains .exe on Windows.
func TestPath(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	dir := filepath.Dir(self)
	name := "sibling-test-" + strings.Repeat("x", 8)
	want := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		want += ".exe"
	}
	got, err := Path(name)
	if got != want || !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), dir) {
		t.Errorf("missing: Path = %q, %v; want %q and the bare not-exist reason", got, err, want)
	}
	if err := os.Mkdir(want, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(want)
	if _, err := Path(name); err == nil || err.Error() != "not a file" {
		t.Errorf("a folder: %v; want not a file", err)
	}
	os.Remove(want)
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := Path(name); got != want || err != nil {
		t.Errorf("present: Path = %q, %v", got, err)
	}
}
