package render

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/manifest"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/ignore"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// maxSourceFile bounds every file a render reads, as --max-file-size's
// default bounds a manifest: a chart file or patch is a few KB.
const maxSourceFile = 64 << 20

// maxChartFiles bounds the files of one chart: links inside the chart to
// its own folders (a -> ., b -> .) would otherwise list the same files an
// exponential number of times.
const maxChartFiles = 10000

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
	d, err := s.root.ReadFile(p, maxSourceFile)
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

// readEdited reads p through root, as rendering reads every file, and
// returns the text podlint fix gave it instead when there is one: only a
// file the root lets rendering read is ever replaced.
func readEdited(root *safefile.Root, p string, max int64) ([]byte, error) {
	data, err := root.ReadFile(p, max)
	return withEdits(p, data, err)
}

func withEdits(p string, data []byte, err error) ([]byte, error) {
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

// rootProblem is the problem of a root whose repository cannot be worked
// out: nothing derived from it can be read then (fail closed).
func rootProblem(file string, err error) Problem {
	return problem(file, 1, 1, "cannot confine rendering to the repository", err.Error(),
		"podlint reads the files of a chart or kustomization only inside the repository that holds it (the folder with .git, else the path given); nothing was rendered.")
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// loadChartDir is Helm's loader.LoadDir reading through root: a file is
// read only inside the repository, and only when it is a regular file of a
// disk file system (Helm's loader opens devices, FIFOs and /proc files
// behind a link and follows links anywhere).
//
// Files outside the read set of the repository (git does not track them:
// the CI job's own files in a checkout whose root is the chart) are left
// out of the chart, as if .helmignore named them, and said on standard
// error; VCS metadata and credential files are never even listed.
func loadChartDir(dir string, root *safefile.Root) (*chart.Chart, error) {
	rules := ignore.Empty()
	var untracked []string
	if ifile := filepath.Join(dir, ignore.HelmIgnore); exists(root, ifile) && root.Readable(ifile) == nil {
		data, err := root.ReadFile(ifile, maxSourceFile)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", ignore.HelmIgnore, reason(err))
		}
		if rules, err = ignore.Parse(bytes.NewReader(data)); err != nil {
			return nil, err
		}
	}
	rules.AddDefaults()
	var files []*loader.BufferedFile
	var walk func(d, rel string, ancestors []fs.FileInfo) error
	walk = func(d, rel string, ancestors []fs.FileInfo) error {
		entries, err := root.ReadDir(d)
		if err != nil {
			return fmt.Errorf("%s: %v", firstOf(rel, "."), reason(err))
		}
		for _, e := range entries {
			p, n := filepath.Join(d, e.Name()), path.Join(rel, e.Name())
			fi, err := root.Stat(p)
			if err != nil {
				return fmt.Errorf("%s: %v", n, reason(err))
			}
			if rules.Ignore(n, fi) {
				continue
			}
			if fi.IsDir() {
				if isAncestor(ancestors, fi) {
					continue // a link to a folder holding it: a loop
				}
				if !root.MayHold(p) {
					untracked = append(untracked, n+"/")
					continue
				}
				if err := walk(p, n, append(ancestors, fi)); err != nil {
					return err
				}
				continue
			}
			if err := root.Readable(p); notInReadSet(err) {
				untracked = append(untracked, n)
				continue
			}
			if len(files) >= maxChartFiles {
				return fmt.Errorf("the chart holds more than %d files", maxChartFiles)
			}
			data, err := readEdited(root, p, min(maxSourceFile, loader.MaxDecompressedFileSize))
			if err != nil {
				return fmt.Errorf("%s: %v", n, reason(err))
			}
			files = append(files, &loader.BufferedFile{Name: n, Data: bytes.TrimPrefix(data, utf8BOM)})
		}
		return nil
	}
	top, err := root.Stat(dir)
	if err != nil {
		return nil, reason(err)
	}
	if err := walk(dir, "", []fs.FileInfo{top}); err != nil {
		return nil, err
	}
	if _, said := hinted.LoadOrStore(dir, true); len(untracked) > 0 && !said {
		// Once per chart, through the logger: the render child forwards its records to
		// podlint's standard error, escaped.
		const show = 5
		more := ""
		if len(untracked) > show {
			more = fmt.Sprintf(" and %d more", len(untracked)-show)
		}
		log.Printf("hint: chart %s: left out %s%s: not tracked by git (podlint renders only tracked files; git add them, or name them with --read-untracked)",
			dir, strings.Join(untracked[:min(show, len(untracked))], ", "), more)
	}
	return loader.LoadFiles(files)
}

// hinted are the charts whose left-out files were said: a chart whose
// template fails is loaded again without it.
var hinted sync.Map

// notInReadSet: the file is left out because git does not vouch for it,
// not because it is hostile (a link to VCS metadata, which fails the
// chart with a problem naming the link).
func notInReadSet(err error) bool {
	return errors.Is(err, safefile.ErrUntracked) || errors.Is(err, safefile.ErrNoIndex)
}

func exists(root *safefile.Root, p string) bool {
	_, err := root.Lstat(p)
	return err == nil
}

func isAncestor(ancestors []fs.FileInfo, fi fs.FileInfo) bool {
	for _, a := range ancestors {
		if os.SameFile(a, fi) {
			return true
		}
	}
	return false
}

// reason is why a file could not be read, without the path (the caller
// names the file as the chart or kustomization names it).
func reason(err error) error {
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

func (c confinedFS) ReadFile(p string) ([]byte, error) { return readEdited(c.root, p, maxSourceFile) }

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
