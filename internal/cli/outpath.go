package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/internal/textsafe"
)

// Where podlint writes (-o FILE, timeline -o DIR/, the files fix rewrites)
// is named by the user, but in CI the folders on the way may come from the
// pull request: a committed `reports -> ../../x` would make
// `-o reports/podlint.sarif` write outside the repository, or over a file
// of the repository elsewhere. So the part of an output path inside the
// working tree (what a pull request can commit) is opened folder by folder
// without following symbolic links; the part outside it ($RUNNER_TEMP,
// $GITHUB_STEP_SUMMARY, /tmp, which is a link on macOS) is the user's and
// is used as given.

// errLinkInTree is the refusal of a folder of an output path that is a
// symbolic link inside the working tree.
var errLinkInTree = errors.New("a symbolic link inside the working tree; podlint does not write through links a pull request could have committed (remove it, or write elsewhere)")

// outDir is the folder an output file is written in.
type outDir struct {
	name string   // the folder as given ("." for the working directory)
	f    *os.File // the folder opened without following links, or nil: name is used as given
}

func (d *outDir) close() {
	if d.f != nil {
		d.f.Close()
	}
}

// plainDir is a folder used as given: one named outside the working tree,
// or the folder of a file fix rewrites (which it has read from there).
func plainDir(dir string) *outDir {
	if dir == "" {
		dir = "."
	}
	return &outDir{name: dir}
}

// workTree is the folder a pull request controls: the git work tree
// holding the working directory (the nearest folder at or above it, links
// resolved, that holds .git), else the working directory itself.
func workTree() (string, error) { return safefile.RepoRoot(".") }

// linkError names the component of an output path that is a link.
type linkError struct{ path string }

func (e *linkError) Error() string { return textsafe.Quote(e.path) + " is " + errLinkInTree.Error() }

func (e *linkError) Unwrap() error { return errLinkInTree }

// openOutDir opens the folder dir of an output path. Its components from
// the first one inside the working tree on are opened one by one, each
// without following a symbolic link, and created when create is set; a
// folder wholly outside the working tree is used as given.
func openOutDir(dir string, create bool) (*outDir, error) {
	if dir == "" {
		dir = "."
	}
	tree, err := workTree()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	vol := filepath.VolumeName(abs)
	var parts []string
	for _, p := range strings.Split(abs[len(vol):], string(filepath.Separator)) {
		if p != "" {
			parts = append(parts, p)
		}
	}
	// The first prefix of the path whose real location is in the working
	// tree: what is above it is the user's, what is below it the tree's.
	cur := vol + string(filepath.Separator)
	for i := 0; ; i++ {
		real, err := filepath.EvalSymlinks(cur)
		if err != nil {
			// Missing (or unreadable) above the working tree: the
			// user's path, which the write reports as it fails.
			if create && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			return plainOrCreated(dir, create)
		}
		if inside(tree, real) {
			return walkOutDir(dir, real, cur, parts[i:], create)
		}
		if i == len(parts) {
			return plainOrCreated(dir, create)
		}
		cur = filepath.Join(cur, parts[i])
	}
}

func plainOrCreated(dir string, create bool) (*outDir, error) {
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	return plainDir(dir), nil
}

// walkOutDir opens anchor (a real path in the working tree, reached as
// lex) and then each of rest without following links.
func walkOutDir(dir, anchor, lex string, rest []string, create bool) (*outDir, error) {
	f, err := os.Open(anchor)
	if err != nil {
		return nil, err
	}
	for _, name := range rest {
		lex = filepath.Join(lex, name)
		next, err := openComponent(f, lex, name, create)
		f.Close()
		if err != nil {
			return nil, err
		}
		f = next
	}
	return &outDir{name: dir, f: f}, nil
}

// inside reports whether p is dir or below it (both real and absolute).
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
