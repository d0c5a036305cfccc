package manifest

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/internal/textsafe"
)

// Source is one input to lint.
type Source struct {
	Path string // as shown in findings
	// Data is set for standard input, which is read before linting starts.
	Data []byte
	// Explicit sources were named on the command line; an empty one is
	// reported, while empty files found by walking a directory are not.
	Explicit bool
	// Render is set when Path is a folder to render (RenderHelm,
	// RenderKustomize) rather than a file; Named are the files given on the
	// command line inside it, whose findings alone are reported, and
	// Through the kustomizations of the run that it renders as bases.
	Render  string
	Named   []string
	Through []string
	// Root is the repository root of the path given that this source was
	// found from (the folder holding .git at or above it, else the path
	// itself, links resolved): every file podlint derives from the source
	// (a chart's files, a kustomization's bases and patches) must be in it.
	// "" stands for the repository root of Path itself.
	Root string
	// Edited holds, by absolute path, the text podlint fix gave files of
	// a render root: rendering reads it instead of the file on disk (for
	// a file it may read at all), so that a fix to a template, values
	// file or patch is verified by rendering the root again before
	// anything is written.
	Edited map[string][]byte
}

// Hint is advice about an input that is not an error, such as a Helm chart
// directory, or a file a directory walk skipped (a symbolic link out of the
// tree, a device, a FIFO).
type Hint struct {
	Path    string
	Message string
	// Empty is set for a directory that yielded no file at all: a run
	// that lints nothing must not pass silently (see --allow-empty).
	Empty bool
}

// Discover expands paths into sources: files as named, directories walked
// for .yaml, .yml and .json files (hidden files and folders, non-regular files and
// symbolic links to folders are skipped, so loops cannot hang the walk).
// Errors name the path and do not stop the other paths.
//
// With render set, a folder holding a Helm chart or a kustomization is one
// source to render (Source.Render), its files are not linted one by one,
// and a file named inside one renders the enclosing root.
func Discover(paths []string, excludes []string, render bool) (srcs []Source, hints []Hint, errs []error) {
	return DiscoverTrace(paths, excludes, render, nil)
}

// DiscoverTrace is Discover telling trace, when set, what it reads and
// skips and why (podlint --debug), in walk order.
func DiscoverTrace(paths []string, excludes []string, render bool, trace func(format string, args ...any)) (srcs []Source, hints []Hint, errs []error) {
	if trace == nil {
		trace = func(string, ...any) {}
	}
	ex, err := compileGlobs(excludes)
	if err != nil {
		return nil, nil, []error{err}
	}
	d := &discovery{render: render, trace: trace, ex: ex, kinds: map[string]string{}}
	for _, p := range paths {
		if p == "-" {
			continue // standard input is read by the caller
		}
		info, err := os.Stat(p)
		switch {
		case err != nil:
			d.errs = append(d.errs, pathError(p, err))
		case !info.IsDir():
			d.named(p)
		default:
			d.walk(p)
		}
	}
	if render {
		d.srcs = mergeRoots(d.srcs)
	}
	return d.srcs, d.hints, d.errs
}

// discovery is what DiscoverTrace gathers, path after path.
type discovery struct {
	render bool
	trace  func(format string, args ...any)
	ex     globs
	kinds  map[string]string // RootKind per folder
	srcs   []Source
	hints  []Hint
	errs   []error
}

// named adds a file named on the command line: always linted (an exclude
// pattern, from a config the user may not know about, must not silently
// skip it), or the chart or kustomization holding it rendered.
func (d *discovery) named(p string) {
	if d.ex.match(p) {
		d.hints = append(d.hints, Hint{Path: p, Message: fmt.Sprintf("%s is linted although an exclude pattern matches it, because it was named on the command line", textsafe.Quote(p))})
	}
	if d.render {
		if root, ok := enclosingRoot(p, d.kinds); ok {
			d.trace("discover %s: inside %s %s, which is rendered instead (its findings in this file are reported)", p, rootName(root.Render), root.Path)
			// The root holds the file named: what it derives is
			// bounded by its own repository (or itself).
			root.Root = repoRoot(root.Path)
			d.srcs = append(d.srcs, root)
			return
		}
	}
	d.trace("discover %s: a file named on the command line: linted", p)
	d.srcs = append(d.srcs, Source{Path: p, Explicit: true})
}

// walk adds the manifests, charts and kustomizations of the folder p.
func (d *discovery) walk(p string) {
	repo := repoRoot(p)
	d.trace("discover %s: walking the folder (repository root %s)", p, firstNonEmpty(repo, p))
	// The tree's real location: a symbolic link found in the walk may
	// point at a file inside it, never outside (a link to
	// /proc/self/environ printed the CI's secrets into the report).
	root, err := filepath.EvalSymlinks(p)
	if err == nil {
		root, err = filepath.Abs(root)
	}
	if err != nil {
		d.errs = append(d.errs, pathError(p, err))
		return
	}
	if systemPath(root) {
		d.trace("discover %s: skipped: a kernel file system", p)
		d.hints = append(d.hints, Hint{Path: p, Empty: true, Message: fmt.Sprintf("%s holds no file podlint reads: podlint does not walk %s", textsafe.Quote(p), systemDirs)})
		return
	}
	w := &folderWalk{discovery: d, top: p, root: root, repo: repo}
	// The read set of the repository (internal/safefile): in a git work
	// tree only tracked files, never VCS metadata or credential files.
	// A file outside it is skipped with a hint, not read.
	if repo != "" {
		if w.set, err = safefile.Open(repo, p); err == nil {
			defer w.set.Close()
		} else {
			w.set = nil
		}
	}
	walkErr := filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
		switch {
		case err != nil:
			d.errs = append(d.errs, pathError(path, err))
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		case e.IsDir():
			return w.folder(path, e.Name())
		}
		w.file(path, e)
		return nil
	})
	if walkErr != nil {
		d.errs = append(d.errs, pathError(p, walkErr))
	}
	if len(w.found) == 0 && w.roots == 0 && walkErr == nil {
		d.hints = append(d.hints, Hint{Path: p, Empty: true, Message: fmt.Sprintf("%s holds no .yaml, .yml or .json file to lint (hidden files and folders, testdata and hack folders, golden files and excluded paths are skipped)", textsafe.Quote(p))})
	}
	sort.Strings(w.found)
	for _, f := range w.found {
		d.srcs = append(d.srcs, Source{Path: f, Root: repo})
	}
}

// folderWalk is the walk of one folder named on the command line.
type folderWalk struct {
	*discovery
	top   string // the folder as named
	root  string // its real, absolute location
	repo  string
	set   *safefile.Root // the repository's read set, or nil
	found []string
	roots int // charts and kustomizations to render
}

// folder decides on a folder of the walk: skipped, rendered as one
// source, or walked.
func (w *folderWalk) folder(path, name string) error {
	if path != w.top && strings.HasPrefix(name, ".") {
		w.trace("discover %s: skipped: hidden folder", path)
		return fs.SkipDir
	}
	if path != w.top && w.ex.match(path) {
		w.trace("discover %s: skipped: matches an exclude pattern", path)
		return fs.SkipDir
	}
	if path != w.top && (name == "testdata" || name == "hack") {
		// testdata is Go's convention, which most repositories follow:
		// test fixtures, often invalid on purpose, that nobody applies.
		// hack is Kubernetes' (and kubebuilder's, operator-sdk's): the
		// scripts and throwaway resources of development and CI, never
		// what a project ships. Named on the command line, either is
		// linted.
		w.trace("discover %s: skipped: a %s folder (name it to lint it)", path, name)
		return fs.SkipDir
	}
	if k := RootKind(path); w.render && k != "" {
		w.trace("discover %s: %s: rendered as one source, its files are not linted one by one", path, rootName(k))
		w.srcs = append(w.srcs, Source{Path: path, Render: k, Explicit: path == w.top, Root: w.repo})
		w.roots++
		return fs.SkipDir
	}
	if path != w.top && w.set != nil && !w.set.MayHold(path) {
		w.trace("discover %s: skipped: no file git tracks", path)
		w.hints = append(w.hints, Hint{Path: path, Message: fmt.Sprintf("%s: skipped: git tracks no file in it (podlint reads only tracked files; git add them, or name them with --read-untracked)", textsafe.Quote(path))})
		return fs.SkipDir
	}
	if h := chartHint(path); h != "" {
		w.hints = append(w.hints, Hint{Path: path, Message: h})
	}
	return nil
}

// file decides on a file of the walk: linted, or skipped with the reason
// traced (and given as a hint where the user may not expect it).
func (w *folderWalk) file(path string, e fs.DirEntry) {
	name := e.Name()
	// Hidden files (.podlint.yaml, .gitlab-ci.yml, .pre-commit-config.yaml)
	// are tool configuration, never manifests.
	switch {
	case !hasManifestExt(name):
		w.trace("discover %s: skipped: not .yaml, .yml or .json", path)
		return
	case strings.HasPrefix(name, "."):
		w.trace("discover %s: skipped: hidden file", path)
		return
	case w.ex.match(path):
		w.trace("discover %s: skipped: matches an exclude pattern", path)
		return
	case isGolden(name):
		w.trace("discover %s: skipped: a test's golden output (name it to lint it)", path)
		return
	}
	if why := w.unreadable(path, e.Type()); why != "" {
		w.trace("discover %s: skipped: %s", path, why)
		w.hints = append(w.hints, Hint{Path: path, Message: fmt.Sprintf("%s: skipped: %s", textsafe.Quote(path), why)})
		return
	}
	w.trace("discover %s: linted", path)
	w.found = append(w.found, path)
}

// isGolden tells a test's expected output (deploy.golden.yaml): what a
// generator printed once, not a manifest anyone applies.
func isGolden(name string) bool {
	return strings.Contains(strings.ToLower(name), ".golden.")
}

// unreadable says why a file of the walk is not read, or "". FIFOs,
// devices and sockets could block or never end, and a symbolic link is
// followed only to a regular file inside the tree; what is left out is
// said, not silently dropped. Outside the read set is outside too.
func (w *folderWalk) unreadable(path string, mode fs.FileMode) string {
	if !mode.IsRegular() {
		if mode&fs.ModeSymlink == 0 {
			return fmt.Sprintf("not a regular file (%s)", safefile.Kind(mode))
		}
		if why := linkProblem(w.root, path); why != "" {
			return why
		}
	}
	if w.set != nil {
		if err := w.set.Readable(path); err != nil {
			return readSetReason(err)
		}
	}
	return ""
}

// readSetReason says why a file found in a walk is outside the read set.
func readSetReason(err error) string {
	switch {
	case errors.Is(err, safefile.ErrNeverRead):
		return "it is (or leads to) VCS metadata or a credential file, which podlint never reads"
	case errors.Is(err, safefile.ErrUntracked):
		return "not tracked by git (podlint reads only tracked files; git add it, or name it with --read-untracked)"
	case errors.Is(err, safefile.ErrNoIndex):
		return "the repository's git index cannot be read, so podlint reads only files named with --read-untracked"
	case errors.Is(err, safefile.ErrOutside):
		return "outside the repository being checked"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// repoRoot is safefile.RepoRoot, or "" (the source's own) when the path
// cannot be resolved, which its walk reports.
func repoRoot(p string) string {
	r, err := safefile.RepoRoot(p)
	if err != nil {
		return ""
	}
	return r
}

// systemDirs are the kernel's file systems: their files claim to be
// regular but hold process state (environment, memory maps) or never end.
const systemDirs = "/proc, /sys or /dev"

func systemPath(abs string) bool {
	for _, d := range []string{"/proc", "/sys", "/dev"} {
		if abs == d || strings.HasPrefix(abs, d+"/") {
			return true
		}
	}
	return false
}

// linkProblem says why the symbolic link at path, found while walking the
// tree whose real absolute path is root, is not followed, or "".
func linkProblem(root, path string) string {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "broken symbolic link"
	}
	if target, err = filepath.Abs(target); err != nil {
		return "broken symbolic link"
	}
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) || systemPath(target) {
		return "symbolic link to a file outside the tree being checked (name the file on the command line to lint it)"
	}
	fi, err := os.Stat(target)
	if err != nil {
		return "broken symbolic link"
	}
	if !fi.Mode().IsRegular() {
		return "symbolic link to something that is not a regular file (" + safefile.Kind(fi.Mode().Type()) + ")"
	}
	return ""
}

func hasManifestExt(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml" || ext == ".json"
}

func chartHint(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err == nil {
		return fmt.Sprintf("%s is a Helm chart: its templates are reported as helm-template; lint the rendered chart instead: helm template RELEASE %s | podlint check -", textsafe.Quote(dir), textsafe.Quote(dir))
	}
	for _, k := range KustomizationFiles {
		if _, err := os.Stat(filepath.Join(dir, k)); err == nil {
			return fmt.Sprintf("%s is a kustomization: podlint lints its files one by one, without patches applied; to lint what is deployed run: kustomize build %s | podlint check -", textsafe.Quote(dir), textsafe.Quote(dir))
		}
	}
	return ""
}

func pathError(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such file or directory", p)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: permission denied", p)
	}
	return fmt.Errorf("%s: %v", p, err)
}

// Read reads a source that is not standard input. A file found by walking
// a folder is a derived path: it is read only inside the repository root
// (internal/safefile: no link out of it, no device, FIFO or kernel file,
// even one swapped in after the walk looked). A file named on the command
// line is read as given (ReadSource).
func (s Source) Read(max int64) (data []byte, tooBig bool, err error) {
	if s.Explicit || s.Root == "" || s.Render != "" {
		return ReadSource(s.Path, max)
	}
	root, err := safefile.Open(s.Root, filepath.Dir(s.Path))
	if err != nil {
		return nil, false, pathError(s.Path, err)
	}
	defer root.Close()
	data, err = root.ReadFile(s.Path, max)
	switch {
	case errors.Is(err, safefile.ErrTooBig):
		return nil, true, nil
	case errors.Is(err, safefile.ErrOutside), errors.Is(err, safefile.ErrNeverRead), errors.Is(err, safefile.ErrUntracked), errors.Is(err, safefile.ErrNoIndex):
		return nil, false, fmt.Errorf("%s: %s; not read", s.Path, readSetReason(err))
	case err != nil:
		return nil, false, pathError(s.Path, err)
	}
	return data, false, nil
}

// ReadSource reads a file, refusing more than max bytes. tooBig is set when
// the file was cut; the error is for I/O failures.
func ReadSource(path string, max int64) (data []byte, tooBig bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, pathError(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && fi.Mode().IsRegular() {
		if fi.Size() > max {
			return nil, true, nil
		}
		// Read a regular file into a buffer of its size (plus one byte to
		// see it grew meanwhile) instead of growing one while reading.
		return readCapped(f, path, max, fi.Size()+1)
	}
	return readCapped(f, path, max, 0)
}

// ReadCapped reads r (standard input) up to max bytes. Standard input
// redirected from a regular file is read like one, into a buffer of the
// size left to read; a pipe into blocks joined at the end.
func ReadCapped(r io.Reader, path string, max int64) ([]byte, bool, error) {
	var hint int64
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := f.Seek(0, io.SeekCurrent); err == nil && off <= fi.Size() {
				if fi.Size()-off > max {
					return nil, true, nil
				}
				hint = fi.Size() - off + 1
			}
		}
	}
	return readCapped(r, path, max, hint)
}

// packAbove is how much of an input of unknown size (a pipe) readCapped
// holds as read before it compresses what it holds. The pipe from `helm
// template` of a large chart otherwise peaked at twice its size (the blocks
// and the joined copy); compressing at flate's fastest level costs a
// fraction of a second of CPU for 60 MB (BenchmarkReadCappedPipe: 0.1 s
// for 66 MB of repeated manifests, against 0.02 s to join them as read).
var packAbove int64 = 8 << 20

// chunks is an in-memory file of 1 MB pieces: unlike a bytes.Buffer it
// never copies what it holds to grow.
type chunks [][]byte

func (c *chunks) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(*c) == 0 || len((*c)[len(*c)-1]) == cap((*c)[len(*c)-1]) {
			*c = append(*c, make([]byte, 0, 1<<20))
		}
		last := &(*c)[len(*c)-1]
		k := min(len(p), cap(*last)-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

func (c chunks) reader() io.Reader {
	rs := make([]io.Reader, len(c))
	for i, b := range c {
		rs[i] = bytes.NewReader(b)
	}
	return io.MultiReader(rs...)
}

// readCapped reads r until EOF or max+1 bytes, into a buffer of size hint
// when the size is known. Otherwise it reads into blocks of at most 1 MB
// and joins them once at the end, at the exact size: growing one buffer by
// doubling peaked at four times --max-file-size on an endless stream
// (/dev/zero, yes), and this peaks at one times when the stream is too big
// and two when it fits.
func readCapped(r io.Reader, path string, max, hint int64) ([]byte, bool, error) {
	max = min(max, math.MaxInt64-2) // max+1 must not overflow (--max-file-size 9223372036854775807)
	lr := io.LimitReader(r, max+1)
	if hint > 0 && hint <= max+1 {
		data := make([]byte, 0, hint)
		for {
			if len(data) == cap(data) {
				data = append(data, 0)[:len(data)] // it grew meanwhile
			}
			n, err := lr.Read(data[len(data):cap(data)])
			data = data[:len(data)+n]
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, false, pathError(path, err)
			}
		}
		if int64(len(data)) > max {
			return nil, true, nil
		}
		return data, false, nil
	}
	var blocks [][]byte
	var total int64
	// Past packAbove bytes the blocks are kept compressed, so that joining
	// them peaks at about 1.2 times the input instead of twice.
	var packed chunks
	var zw *flate.Writer
	size := int64(64 << 10)
	for {
		b := make([]byte, min(size, max+1-total+1))
		n, err := io.ReadFull(lr, b)
		if n > 0 {
			blocks = append(blocks, b[:n])
			total += int64(n)
		}
		if total > packAbove && total <= max {
			if zw == nil {
				zw, _ = flate.NewWriter(&packed, flate.BestSpeed) // a valid level: no error
			}
			for _, b := range blocks {
				zw.Write(b) // into memory: no error
			}
			clear(blocks)
			blocks = blocks[:0]
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, false, pathError(path, err)
		}
		size = min(size*2, 1<<20)
	}
	if total > max {
		return nil, true, nil
	}
	if zw != nil {
		zw.Close()
		data := make([]byte, total)
		if _, err := io.ReadFull(flate.NewReader(packed.reader()), data); err != nil {
			return nil, false, pathError(path, err)
		}
		return data, false, nil
	}
	if len(blocks) == 1 {
		return blocks[0], false, nil
	}
	data := make([]byte, 0, total)
	for _, b := range blocks {
		data = append(data, b...)
	}
	return data, false, nil
}

// globs matches slash paths against patterns where ** spans folders.
type globs []*regexp.Regexp

func compileGlobs(patterns []string) (globs, error) {
	var g globs
	for _, p := range patterns {
		var b strings.Builder
		b.WriteString(`^`)
		for i := 0; i < len(p); i++ {
			switch c := p[i]; c {
			case '*':
				if i+1 < len(p) && p[i+1] == '*' {
					b.WriteString(`.*`)
					i++
					if i+1 < len(p) && p[i+1] == '/' {
						i++
						b.WriteString(`/?`)
					}
				} else {
					b.WriteString(`[^/]*`)
				}
			case '?':
				b.WriteString(`[^/]`)
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		b.WriteString(`$`)
		re, err := regexp.Compile(b.String())
		if err != nil {
			return nil, fmt.Errorf("exclude pattern %q: %v", p, err)
		}
		g = append(g, re)
	}
	return g, nil
}

// match tries the whole cleaned path and then every suffix after a "/", so
// "vendor/**" excludes ./vendor and deploy/vendor alike.
func (g globs) match(p string) bool {
	if len(g) == 0 {
		return false
	}
	p = filepath.ToSlash(filepath.Clean(p))
	for _, re := range g {
		s := p
		for {
			if re.MatchString(s) {
				return true
			}
			i := strings.IndexByte(s, '/')
			if i < 0 {
				break
			}
			s = s[i+1:]
		}
	}
	return false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// rootName is how a trace names a kind of render root.
func rootName(kind string) string {
	if kind == RenderHelm {
		return "a Helm chart"
	}
	return "a kustomization"
}
