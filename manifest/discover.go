package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
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
}

// Hint is advice about an input that is not an error, such as a Helm chart
// directory.
type Hint struct {
	Path    string
	Message string
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
	kinds := map[string]string{} // RootKind per folder
	if render {
		defer func() { srcs = mergeRoots(srcs) }()
	}
	ex, err := compileGlobs(excludes)
	if err != nil {
		return nil, nil, []error{err}
	}
	for _, p := range paths {
		if p == "-" {
			continue // standard input is read by the caller
		}
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, pathError(p, err))
			continue
		}
		if !info.IsDir() {
			if render && !ex.match(p) {
				if root, ok := enclosingRoot(p, kinds); ok {
					srcs = append(srcs, root)
					continue
				}
			}
			if !ex.match(p) {
				srcs = append(srcs, Source{Path: p, Explicit: true})
			}
			continue
		}
		var found []string
		walkErr := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, pathError(path, err))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			name := d.Name()
			if d.IsDir() {
				if path != p && (strings.HasPrefix(name, ".") || ex.match(path)) {
					return fs.SkipDir
				}
				if k := RootKind(path); render && k != "" {
					srcs = append(srcs, Source{Path: path, Render: k, Explicit: path == p})
					return fs.SkipDir
				}
				if h := chartHint(path); h != "" {
					hints = append(hints, Hint{Path: path, Message: h})
				}
				return nil
			}
			// Hidden files (.podlint.yaml, .gitlab-ci.yml, .pre-commit-config.yaml)
			// are tool configuration, never manifests.
			if !hasManifestExt(name) || strings.HasPrefix(name, ".") || ex.match(path) {
				return nil
			}
			if !d.Type().IsRegular() {
				// A symbolic link to a regular file is fine; FIFOs, devices
				// and sockets could block or never end.
				if d.Type()&fs.ModeSymlink == 0 {
					return nil
				}
				fi, err := os.Stat(path)
				if err != nil || !fi.Mode().IsRegular() {
					return nil
				}
			}
			found = append(found, path)
			return nil
		})
		if walkErr != nil {
			errs = append(errs, pathError(p, walkErr))
		}
		sort.Strings(found)
		for _, f := range found {
			srcs = append(srcs, Source{Path: f})
		}
	}
	return srcs, hints, errs
}

func hasManifestExt(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml" || ext == ".json"
}

func chartHint(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err == nil {
		return fmt.Sprintf("%s is a Helm chart: its templates are reported as helm-template; lint the rendered chart instead: helm template RELEASE %s | podlint check -", dir, dir)
	}
	for _, k := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if _, err := os.Stat(filepath.Join(dir, k)); err == nil {
			return fmt.Sprintf("%s is a kustomization: podlint lints its files one by one, without patches applied; to lint what is deployed run: kustomize build %s | podlint check -", dir, dir)
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

// ReadCapped reads r (standard input) up to max bytes.
func ReadCapped(r io.Reader, path string, max int64) ([]byte, bool, error) {
	return readCapped(r, path, max, 0)
}

// readCapped reads r until EOF or max+1 bytes, into a buffer of size hint
// when the size is known.
func readCapped(r io.Reader, path string, max, hint int64) ([]byte, bool, error) {
	if hint <= 0 || hint > max+1 {
		hint = min(max+1, 64<<10)
	}
	data := make([]byte, 0, hint)
	lr := io.LimitReader(r, max+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // grow as append does
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
