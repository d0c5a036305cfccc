package render

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/manifest"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// MaxSourceFile bounds every file a render reads, as --max-file-size's
// default bounds a manifest: a chart file or patch is a few KB.
const MaxSourceFile = 64 << 20

// MaxChartFiles bounds the files of one chart: links inside the chart to
// its own folders (a -> ., b -> .) would otherwise list the same files an
// exponential number of times.
const MaxChartFiles = 10000

// sourceFiles reads the files findings quote and suppression comments are
// read from: only inside the repository root of the source, never through
// a link out of it, never a device or a kernel file. A file it cannot read
// that way is quoted as nothing.
type sourceFiles struct {
	root   *safefile.Root
	data   map[string][]byte
	edited map[string][]byte // manifest.Source.Edited
}

func newSourceFiles(src manifest.Source) *sourceFiles {
	root, _ := safefile.Open(src.Root, src.Path)
	return &sourceFiles{root: root, data: map[string][]byte{}, edited: src.Edited}
}

func (s *sourceFiles) read(p string) []byte {
	if d, ok := s.data[p]; ok || s.root == nil {
		return d
	}
	d, err := s.root.ReadFile(p, MaxSourceFile)
	if e, ok := s.edited[absPath(p)]; ok && err == nil {
		d = e
	}
	s.data[p] = d
	return d
}

// edited is, in a render child, the text podlint fix gave files of the
// root (childRequest.Edited), by absolute path.
var edited map[string][]byte

// maxEdited bounds the edited text a render request carries: the
// templates, values files and patches podlint fix changes are a few KB.
const maxEdited = 1 << 20

// ReadEdited reads p through root, as rendering reads every file, and
// returns the text podlint fix gave it instead when there is one: only a
// file the root lets rendering read is ever replaced.
func ReadEdited(root *safefile.Root, p string, max int64) ([]byte, error) {
	data, err := root.ReadFile(p, max)
	return WithEdits(p, data, err)
}

// WithEdits is data, read from p with err, or the text podlint fix gave
// p when there is one.
func WithEdits(p string, data []byte, err error) ([]byte, error) {
	if e, ok := edited[absPath(p)]; ok && err == nil {
		return e, nil
	}
	return data, err
}

func (s *sourceFiles) close() {
	if s.root != nil {
		s.root.Close()
	}
}

// RootProblem is the problem of a root whose repository cannot be worked
// out: nothing derived from it can be read then (fail closed).
func RootProblem(file string, err error) Problem {
	return NewProblem(file, 1, 1, "cannot confine rendering to the repository", err.Error(),
		"podlint reads the files of a chart or kustomization only inside the repository that holds it (the folder with .git, else the path given); nothing was rendered.")
}

// NotInReadSet: the file is left out because git does not vouch for it,
// not because it is hostile (a link to VCS metadata, which fails the
// chart with a problem naming the link).
func NotInReadSet(err error) bool {
	return errors.Is(err, safefile.ErrUntracked) || errors.Is(err, safefile.ErrNoIndex)
}

// Reason is why a file could not be read, without the path (the caller
// names the file as the chart or kustomization names it).
func Reason(err error) error {
	if errors.Is(err, safefile.ErrOutside) {
		return errors.New("it is outside the repository (through a symbolic link or ..), and podlint never reads there")
	}
	if errors.Is(err, safefile.ErrNeverRead) {
		return errors.New("it is (or leads to) VCS metadata or a credential file, which podlint never reads")
	}
	return unwrap(err)
}

// confinedFS is the disk as kustomize sees it when podlint builds a
// kustomization: files are read only inside the repository, never through
// a link out of it, never a device, FIFO or kernel file (a patch at
// ../../dev/zero, /proc/self/fd/1 as a resource), and nothing is written.
// kustomize's own load restrictions do not cover bases, and follow links.
type confinedFS struct {
	filesys.FileSystem
	root *safefile.Root
}

var errReadOnly = errors.New("podlint renders without writing or opening files for kustomize")

func (c confinedFS) ReadFile(p string) ([]byte, error) { return ReadEdited(c.root, p, MaxSourceFile) }

func (c confinedFS) Exists(p string) bool {
	_, err := c.root.Stat(p)
	return err == nil
}

func (c confinedFS) IsDir(p string) bool {
	fi, err := c.root.Stat(p)
	return err == nil && fi.IsDir()
}

func (c confinedFS) ReadDir(p string) ([]string, error) {
	es, err := c.root.ReadDir(p)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.Name()
	}
	return names, nil
}

func (c confinedFS) Walk(p string, fn filepath.WalkFunc) error {
	if !c.IsDir(p) {
		return c.FileSystem.Walk(p, func(string, fs.FileInfo, error) error { return errOutsideWalk })
	}
	return c.FileSystem.Walk(p, fn)
}

var errOutsideWalk = errors.New("podlint walks only folders of the repository")

func (c confinedFS) Open(string) (filesys.File, error)   { return nil, errReadOnly }
func (c confinedFS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (c confinedFS) WriteFile(string, []byte) error      { return errReadOnly }
func (c confinedFS) Mkdir(string) error                  { return errReadOnly }
func (c confinedFS) MkdirAll(string) error               { return errReadOnly }
func (c confinedFS) RemoveAll(string) error              { return errReadOnly }
