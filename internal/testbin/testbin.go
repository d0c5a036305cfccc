// Package testbin keeps the executables that tests build between test runs:
// `go build -o` then finds an unchanged podlint up to date and links
// nothing. Linking the 75 MB executable costs several CPU-seconds, while
// the compiled packages come from the build cache anyway.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Dir returns the folder where the tests of package pkg keep the
// executables they build from the checkout at root: one folder per
// checkout and package in the user's cache directory, so that two
// checkouts, or two test packages run at the same time, never write the
// same file. go build checks the build ID of what it finds there and links
// again when the sources, flags or toolchain changed, so a stale file is
// never used. Where the user has no cache directory, Dir makes a temporary
// folder instead and temporary is true: the caller removes it.
func Dir(root, pkg string) (dir string, temporary bool, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", false, err
	}
	if cache, err := os.UserCacheDir(); err == nil {
		sum := sha256.Sum256([]byte(abs))
		dir = filepath.Join(cache, "podlint-tests", hex.EncodeToString(sum[:8]), pkg)
		if err := os.MkdirAll(dir, 0o755); err == nil {
			return dir, false, nil
		}
	}
	dir, err = os.MkdirTemp("", "podlint-"+pkg+"-")
	return dir, true, err
}

// BuildPodlint builds podlint and the executables it starts, for charts and
// kustomizations (cmd/podlint-render) and for a live cluster
// (cmd/podlint-observe), side by side in the folder
// of the tests of package pkg, as `go install ./cmd/...` installs them, and
// returns podlint's path; the rest is as Build.
func BuildPodlint(root, pkg string) (path string, temporary bool, out []byte, err error) {
	dir, temporary, err := Dir(root, pkg)
	if err != nil {
		return "", false, nil, err
	}
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./cmd/podlint", "./cmd/podlint-render", "./cmd/podlint-observe")
	cmd.Dir = root
	out, err = cmd.CombinedOutput()
	name := "podlint"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(dir, name), temporary, out, err
}
