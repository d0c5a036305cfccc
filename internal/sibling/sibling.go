// Package sibling finds the executables podlint starts from its own folder:
// podlint-render (render) and podlint-observe (internal/observe), which
// `go install github.com/podlint/podlint/cmd/...`, the release archives and
// the image install beside it.
//
// Like every package of podlint, it makes no API promise.
package sibling

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Path is the executable name (with .exe on Windows) in the folder of this
// process's executable, links resolved, so that a podlint linked into a bin
// folder finds the one installed with it. When it is not a regular file,
// Path still returns where it looked, for the message, with the reason
// (without the path the caller names).
func Path(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe := filepath.Join(filepath.Dir(self), name)
	fi, err := os.Stat(exe)
	if err == nil && !fi.Mode().IsRegular() {
		err = errors.New("not a file")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return exe, err
}
