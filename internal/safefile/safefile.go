// Package safefile opens the files podlint derives from its inputs (files
// found by walking a folder, a chart's files, a kustomization's resources,
// bases and patches, values files named in a configuration) so that a pull
// request cannot make podlint read anything but a regular file of its own
// repository: not a secret outside it through a symbolic link or "../..",
// not a device or FIFO that never ends or blocks, not /proc or /sys, whose
// files claim to be regular and empty but hold the process's environment.
//
// Paths the user names (command-line arguments, --config, --values) are not
// derived and are read as given; they never go through this package.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is returned for a path that leaves the repository root, or
// whose place relative to it cannot be worked out.
var ErrOutside = errors.New("outside the repository being checked")

// Root is the folder every derived path must stay in: the repository
// holding a path given on the command line.
type Root struct {
	dir string // real absolute path, no symbolic links
	// A derived path is written relative to the path it was derived from
	// as given (lexical, maybe through a symbolic link); lex is that path
	// made absolute and real the same folder with links resolved, so that
	// a derived path is placed in dir without resolving its own links.
	lex, real string
	r         *os.Root
}

// RepoRoot is the folder that bounds what podlint derives from the path
// given on the command line: the nearest folder at or above it (links
// resolved) holding .git, or the path itself (its folder for a file) when
// there is none.
func RepoRoot(given string) (string, error) {
	real, err := realAbs(given)
	if err != nil {
		return "", err
	}
	start := real
	if fi, err := os.Stat(real); err == nil && !fi.IsDir() {
		start = filepath.Dir(real)
	}
	for d := start; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return start, nil
		}
		d = parent
	}
}

// Open returns the root for paths derived from from (a folder podlint
// renders or walks), bounded by root (from RepoRoot; "" computes it from
// from). It fails when from is not inside root: nothing derived from it
// could be read then.
func Open(root, from string) (*Root, error) {
	var err error
	if root == "" {
		if root, err = RepoRoot(from); err != nil {
			return nil, err
		}
	}
	if root, err = realAbs(root); err != nil {
		return nil, err
	}
	lex, err := filepath.Abs(from)
	if err != nil {
		return nil, err
	}
	real, err := realAbs(from)
	if err != nil {
		return nil, err
	}
	if _, ok := within(root, real); !ok {
		return nil, fmt.Errorf("%s: %w", from, ErrOutside)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	return &Root{dir: root, lex: lex, real: real, r: r}, nil
}

// Close releases the root's folder handle.
func (r *Root) Close() error { return r.r.Close() }

// Dir is the root folder, links resolved.
func (r *Root) Dir() string { return r.dir }

func realAbs(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(a)
}

// within returns p relative to dir when p is dir or below it.
func within(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// Rel places a derived path in the root: the name os.Root resolves, link
// by link, without leaving the root. An absolute path is taken as written
// (it is inside the root only if it names a place below it); a relative
// one is relative to the working directory, as paths podlint builds are.
func (r *Root) Rel(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, ErrOutside)
	}
	cand := abs
	if rel, err := filepath.Rel(r.lex, abs); err == nil && !filepath.IsAbs(rel) {
		cand = filepath.Join(r.real, rel)
	}
	rel, ok := within(r.dir, cand)
	if !ok {
		return "", fmt.Errorf("%s: %w", p, ErrOutside)
	}
	return filepath.ToSlash(rel), nil
}

// Contains reports whether p, links resolved inside the root, stays in it
// and exists.
func (r *Root) Contains(p string) bool {
	rel, err := r.Rel(p)
	if err != nil {
		return false
	}
	_, err = r.r.Stat(rel)
	return err == nil
}

// Stat is os.Stat confined to the root: a link is followed only inside it.
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	return r.r.Stat(rel)
}

// Lstat is os.Lstat confined to the root.
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	return r.r.Lstat(rel)
}

// ReadDir lists a folder of the root.
func (r *Root) ReadDir(p string) ([]fs.DirEntry, error) {
	f, err := r.openDir(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (r *Root) openDir(p string) (*os.File, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	fi, err := r.r.Stat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a folder", p)
	}
	return r.r.Open(rel)
}

// ErrNotRegular is returned for what is not a plain file: a folder, device,
// FIFO, socket, or a file of a kernel file system (/proc, /sys).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooBig is returned for a file larger than the size asked for.
var ErrTooBig = errors.New("file too large")

// ReadFile reads a regular file of the root of at most max bytes.
//
// The file is checked before it is opened (a device can act on open) and
// opened without blocking (a FIFO with no writer would block the open
// forever), and the opened file is checked again (fstat: regular; fstatfs
// on Linux: not a kernel file system) before anything is read, so that a
// file swapped in between is refused too.
func (r *Root) ReadFile(p string, max int64) ([]byte, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	if fi, err := r.r.Stat(rel); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", p, ErrNotRegular, kind(fi.Mode()))
	}
	f, err := r.r.OpenFile(rel, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s)", p, ErrNotRegular, kind(fi.Mode()))
	}
	if err := checkFS(f); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, at most %d)", p, ErrTooBig, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (grew past %d bytes while read)", p, ErrTooBig, max)
	}
	return data, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "irregular file"
}
