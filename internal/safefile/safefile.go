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
	"path"
	"path/filepath"
	"sort"
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
	set       *readSet
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
		return nil, fail(from, ErrOutside)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	return &Root{dir: root, lex: lex, real: real, r: r, set: loadReadSet(root)}, nil
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
		return "", fail(p, ErrOutside)
	}
	if rel, ok := within(r.dir, abs); ok {
		return filepath.ToSlash(rel), nil
	}
	if rel, err := filepath.Rel(r.lex, abs); err == nil && !filepath.IsAbs(rel) {
		if rel, ok := within(r.dir, filepath.Join(r.real, rel)); ok {
			return filepath.ToSlash(rel), nil
		}
	}
	return "", fail(p, ErrOutside)
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

// escapes is os.Root's error for a name or link leading out of the root
// (its variable is not exported; TestNothingOutsideTheRootIsRead pins it).
const escapes = "path escapes from parent"

// fail makes every refusal a *fs.PathError naming p, so that callers can
// name the file their own way and show only why.
func fail(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if err.Error() == escapes {
		err = ErrOutside
	}
	return &fs.PathError{Op: "open", Path: p, Err: err}
}

// resolve returns rel with every symbolic link resolved inside the root,
// as os.Root would follow them, so that the read set judges the file a
// link leads to (leak.yaml -> .git/config), not the link's name.
func (r *Root) resolve(rel string) (string, error) {
	var done []string
	todo := strings.Split(rel, "/")
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", ErrOutside
			}
			done = done[:len(done)-1]
			continue
		}
		cur := strings.Join(append(done, c), "/")
		fi, err := r.r.Lstat(cur)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, c)
			continue
		}
		if links++; links > 40 {
			return "", errors.New("too many levels of symbolic links")
		}
		t, err := r.r.Readlink(cur)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(t) || filepath.VolumeName(t) != "" {
			return "", ErrOutside
		}
		todo = append(strings.Split(filepath.ToSlash(t), "/"), todo...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return strings.Join(done, "/"), nil
}

// neverRead refuses p (as named, and with its links resolved) when it is
// VCS metadata or a credential file; what else follows from p's name
// comes from the read set. It returns the resolved name.
func (r *Root) neverRead(p, rel string) (string, error) {
	real, err := r.resolve(rel)
	if err != nil {
		return "", fail(p, err)
	}
	if NeverRead(rel) || NeverRead(real) {
		return "", fail(p, ErrNeverRead)
	}
	return real, nil
}

// Readable says why the file p is not in the read set of the repository
// (see readset.go), or nil: a walk uses it to skip a file with a hint
// rather than fail reading it.
func (r *Root) Readable(p string) error {
	rel, err := r.Rel(p)
	if err != nil {
		return err
	}
	real, err := r.neverRead(p, rel)
	if err != nil {
		return err
	}
	if err := r.set.allows(real); err != nil {
		return fail(p, err)
	}
	return nil
}

// MayHold reports whether the folder p can hold a file of the read set:
// a walk need not list an untracked folder (node_modules, a build's
// output) it could read nothing of.
func (r *Root) MayHold(p string) bool {
	rel, err := r.Rel(p)
	if err != nil {
		return false
	}
	real, err := r.neverRead(p, rel)
	return err == nil && r.set.mayHold(real)
}

// Stat is os.Stat confined to the root: a link is followed only inside it.
// VCS metadata and credential files do not exist for it.
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	if _, err := r.neverRead(p, rel); err != nil {
		return nil, err
	}
	fi, err := r.r.Stat(rel)
	if err != nil {
		return nil, fail(p, err)
	}
	return fi, nil
}

// Lstat is os.Lstat confined to the root.
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return nil, err
	}
	if NeverRead(rel) {
		return nil, fail(p, ErrNeverRead)
	}
	if dir, base := path.Split(rel); dir != "" {
		if real, err := r.resolve(dir); err == nil && NeverRead(path.Join(real, base)) {
			return nil, fail(p, ErrNeverRead)
		}
	}
	fi, err := r.r.Lstat(rel)
	if err != nil {
		return nil, fail(p, err)
	}
	return fi, nil
}

// ReadDir lists a folder of the root, sorted by name as os.ReadDir,
// without the VCS metadata and credential files in it.
func (r *Root) ReadDir(p string) ([]fs.DirEntry, error) {
	f, err := r.openDir(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	es, err := f.ReadDir(-1)
	kept := es[:0]
	for _, e := range es {
		if !NeverRead(e.Name()) {
			kept = append(kept, e)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Name() < kept[j].Name() })
	return kept, err
}

func (r *Root) openDir(p string) (*os.File, error) {
	fi, err := r.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fail(p, errors.New("not a folder"))
	}
	rel, _ := r.Rel(p)
	f, err := r.r.Open(rel)
	if err != nil {
		return nil, fail(p, err)
	}
	return f, nil
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
	return r.readFile(p, max, true)
}

// ReadFileUntracked is ReadFile without the read set's git rule: a
// configuration found by searching is podlint's own input, not a file a
// render reads, and a local user's new .podlint.yaml is not yet tracked.
// VCS metadata and credential files are still refused.
func (r *Root) ReadFileUntracked(p string, max int64) ([]byte, error) {
	return r.readFile(p, max, false)
}

func (r *Root) readFile(p string, max int64, git bool) ([]byte, error) {
	before, err := r.Stat(p)
	if err != nil {
		return nil, err
	} else if !before.Mode().IsRegular() {
		return nil, fail(p, fmt.Errorf("%w (%s)", ErrNotRegular, Kind(before.Mode())))
	}
	rel, _ := r.Rel(p)
	real, err := r.neverRead(p, rel)
	if err != nil {
		return nil, err
	}
	if err := r.set.allows(real); err != nil && git {
		return nil, fail(p, err)
	}
	// The name judged has no link left; os.Root would still follow one
	// swapped in meanwhile, and the same-file check below refuses that.
	f, err := r.r.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, fail(p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fail(p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fail(p, fmt.Errorf("%w (%s)", ErrNotRegular, Kind(fi.Mode())))
	}
	if !os.SameFile(fi, before) {
		return nil, fail(p, errors.New("the file changed while podlint opened it"))
	}
	if err := checkFS(f); err != nil {
		return nil, fail(p, err)
	}
	if fi.Size() > max {
		return nil, fail(p, fmt.Errorf("%w (%d bytes, at most %d)", ErrTooBig, fi.Size(), max))
	}
	// One buffer of the size fstat gave, plus a byte to see the file grew.
	data := make([]byte, 0, fi.Size()+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):min(int64(cap(data)), max+1)])
		data = data[:len(data)+n]
		if err == io.EOF || int64(len(data)) > max {
			break
		}
		if err != nil {
			return nil, fail(p, err)
		}
	}
	if int64(len(data)) > max {
		return nil, fail(p, fmt.Errorf("%w (it grew past %d bytes while read)", ErrTooBig, max))
	}
	return data, nil
}

// Kind names a file type for a message: "named pipe", "character
// device", …
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "irregular file"
}
