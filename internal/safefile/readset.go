package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// The read set: inside the repository, a derived path is read only when
// the pull request could have brought it. The checkout holds more than the
// pull request: actions/checkout keeps the job's token in .git/config,
// google-github-actions/auth writes gha-creds-*.json into the workspace,
// and a chart at the repository root makes the whole checkout its Files.
// So a derived read is refused when
//   - a component of the path (links resolved) is VCS metadata, or the file
//     or a folder above it has a well-known credential name (neverRead),
//     whatever git says;
//   - the repository root is a git work tree and git does not track the
//     file, unless the workflow named it (SetUntracked) or it is a
//     dependency archive beside a tracked Chart.lock (charts/*.tgz, which
//     `helm dependency build` writes and .gitignore usually hides).
// An index podlint cannot read vouches for nothing: only the files the
// workflow named are read then (the strict rule).

// ErrNeverRead is returned for VCS metadata and credential files.
var ErrNeverRead = errors.New("VCS metadata or a credential file, which podlint never reads")

// ErrUntracked is returned for a file git does not track in a repository
// whose index podlint read.
var ErrUntracked = errors.New("not tracked by git: podlint reads only the files git tracks (git add it, or name it with --read-untracked)")

// ErrNoIndex is returned for every file not named with --read-untracked
// in a git work tree whose index podlint cannot read.
var ErrNoIndex = errors.New("the repository's git index cannot be read, so podlint reads only the files named with --read-untracked")

// vcsDirs are the metadata folders of version control systems: they hold
// remotes with tokens, hooks, and the history of every file.
var vcsDirs = []string{".git", ".hg", ".svn", ".bzr", "_darcs", "cvs", ".pijul", ".jj", ".sl", ".fslckout", "_fossil_"}

// credentialDirs hold credentials of tools a CI job logs in with.
var credentialDirs = []string{".aws", ".azure", ".docker", ".kube", ".ssh", ".gnupg", ".gcloud"}

// credentialFiles are names (path.Match patterns, lower case) of files a
// CI step or a developer keeps credentials in. Generic names a chart
// legitimately ships (*.pem, *.key, tls.crt) are not here: a tracked
// file with one of these names is refused too.
var credentialFiles = []string{
	"gha-creds-*.json",                     // google-github-actions/auth
	"application_default_credentials.json", // gcloud auth application-default
	"credentials.json", "client_secret*.json",
	".git-credentials", ".gitconfig", // git credential store, url.insteadOf with a token
	".netrc", "_netrc",
	".npmrc", ".pypirc", ".yarnrc.yml", ".gem-credentials",
	".dockercfg", "kubeconfig", "*.kubeconfig",
	".vault-token", ".terraformrc", "terraform.rc", ".pgpass",
	"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
}

// NeverRead reports whether the slash-separated path rel names VCS
// metadata or a credential file at any depth. Names compare as a
// case-insensitive file system (macOS, Windows) resolves them, and as
// Windows drops trailing dots and spaces (".git." is .git there).
func NeverRead(rel string) bool {
	parts := strings.Split(rel, "/")
	for i, c := range parts {
		c = strings.ToLower(strings.TrimRight(c, ". "))
		if c == "" {
			continue
		}
		if c == "git~1" || contains(vcsDirs, c) || (i < len(parts)-1 && contains(credentialDirs, c)) {
			return true
		}
		if c == "gcloud" && i > 0 && strings.ToLower(parts[i-1]) == ".config" {
			return true
		}
		if i == len(parts)-1 {
			for _, pat := range credentialFiles {
				if matchName(pat, c) {
					return true
				}
			}
			if contains(credentialDirs, c) {
				return true
			}
		}
	}
	return false
}

// matchName is path.Match(pat, name) for a name without a slash and a
// pattern with at most one '*' and no other wildcard, as every pattern of
// credentialFiles is (TestCredentialPatternsAreSimple): NeverRead runs on
// every name a walk meets, and path.Match cost 1 % of a run.
func matchName(pat, name string) bool {
	before, after, star := strings.Cut(pat, "*")
	if !star {
		return name == pat
	}
	return len(name) >= len(before)+len(after) && strings.HasPrefix(name, before) && strings.HasSuffix(name, after)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

var untracked struct {
	sync.RWMutex
	patterns []string
}

// SetUntracked sets the patterns of files git does not track that derived
// reads may still read (--read-untracked: written by an earlier step of
// the workflow, which the pull request does not control). A pattern is a
// slash-separated path relative to the repository root; * ? and [...]
// match within a name, ** any number of folders. The VCS metadata and
// credential names are refused whatever a pattern says.
func SetUntracked(patterns []string) error {
	for _, p := range patterns {
		if err := checkPattern(p); err != nil {
			return err
		}
	}
	untracked.Lock()
	untracked.patterns = append([]string(nil), patterns...)
	untracked.Unlock()
	return nil
}

// Untracked returns the patterns SetUntracked set.
func Untracked() []string {
	untracked.RLock()
	defer untracked.RUnlock()
	return append([]string(nil), untracked.patterns...)
}

func checkPattern(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || filepath.IsAbs(p) || strings.Contains(p, "\\") {
		return fmt.Errorf("%q: want a path relative to the repository root, with slashes", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%q: want a path relative to the repository root without empty, . or .. parts", p)
		}
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("%q: %v", p, err)
		}
	}
	return nil
}

// matchPattern matches the slash-separated path against a pattern of
// SetUntracked.
func matchPattern(pat, p string) bool {
	return matchSegs(strings.Split(pat, "/"), strings.Split(p, "/"))
}

func matchSegs(pat, p []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchSegs(pat[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], p[0]); !ok {
			return false
		}
		pat, p = pat[1:], p[1:]
	}
	return len(p) == 0
}

// readSet is what git says about the files below one folder.
type readSet struct {
	dir string // the git work tree's top folder, or the root's own
	// prefix is the root's place below dir ("" or "a/b/"): the root may
	// be a folder inside the work tree, and the index names paths from
	// its top.
	prefix string
	git    bool // dir is a git work tree: only tracked files are read
	// idx is nil when the index could not be read (err says why).
	idx *gitIndex
	err error
	sub *sync.Map // gitlink → *readSet of the submodule
}

type cachedIndex struct {
	idx *gitIndex
	err error
}

var indexCache sync.Map // index file identity → cachedIndex

// loadReadSet works out the read set of the folder root (real, absolute)
// from the git work tree holding it: the nearest folder at or above it
// that is one.
func loadReadSet(root string) *readSet {
	for d := root; ; {
		if s := loadWorkTree(d); s.git {
			if rel, ok := within(d, root); ok && rel != "." {
				s.prefix = filepath.ToSlash(rel) + "/"
			}
			return s
		}
		parent := filepath.Dir(d)
		if parent == d {
			return &readSet{dir: root}
		}
		d = parent
	}
}

// loadWorkTree reads the index of dir when dir is a git work tree. A
// .git folder holding HEAD or an index, or a .git file naming one
// ("gitdir: …", worktrees and submodules), makes it one; a folder without
// either (a test's marker) does not.
func loadWorkTree(dir string) *readSet {
	indexPath, isGit, err := IndexFile(dir)
	if !isGit {
		return &readSet{dir: dir}
	}
	s := &readSet{dir: dir, git: true, sub: &sync.Map{}}
	if err != nil {
		s.err = err
		return s
	}
	f, fi, err := openRegular(indexPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// A repository with nothing added yet: git reads a missing index
		// as an empty one.
		s.idx = &gitIndex{}
		return s
	case err != nil:
		s.err = fmt.Errorf("%w (%v)", ErrNoIndex, err)
		return s
	}
	defer f.Close()
	key := fmt.Sprintf("%s\x00%d\x00%d", indexPath, fi.Size(), fi.ModTime().UnixNano())
	if v, ok := indexCache.Load(key); ok {
		c := v.(cachedIndex)
		s.idx, s.err = c.idx, c.err
		return s
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIndexSize+1))
	switch {
	case err != nil:
		s.err = fmt.Errorf("%w (cannot read it)", ErrNoIndex)
	case len(data) > maxIndexSize:
		s.err = fmt.Errorf("%w (%v: more than %d bytes)", ErrNoIndex, ErrTooBig, maxIndexSize)
	default:
		if s.idx, err = decodeIndex(data); err != nil {
			s.err = fmt.Errorf("%w (%v)", ErrNoIndex, err)
		}
	}
	indexCache.Store(key, cachedIndex{s.idx, s.err})
	return s
}

// IndexPaths lists what reading the read set of root needs besides the
// root itself: the .git file and index of the work tree holding it, which
// a worktree or submodule keeps elsewhere. The render child, confined to
// the repository, is allowed to read these too.
func IndexPaths(root string) []string {
	for d := root; ; {
		if p, isGit, err := IndexFile(d); isGit {
			if err != nil {
				return nil
			}
			return []string{filepath.Join(d, ".git"), p}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		d = parent
	}
}

// IndexFile finds the git index of the work tree rooted at dir: isGit
// says whether dir is a git work tree at all, err why its index cannot be
// located. podlint reads the .git file of a worktree or submodule itself
// (a short "gitdir: PATH"); it never runs git.
func IndexFile(dir string) (index string, isGit bool, err error) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return "", false, nil
	}
	switch {
	case fi.IsDir():
		if !existsIn(dotgit, "HEAD") && !existsIn(dotgit, "index") {
			return "", false, nil
		}
		return filepath.Join(dotgit, "index"), true, nil
	case fi.Mode().IsRegular():
		data, err := readRegular(dotgit, 4096)
		if err != nil {
			return "", true, fmt.Errorf("%w (.git: %v)", ErrNoIndex, err)
		}
		line, _, _ := bytes.Cut(data, []byte("\n"))
		gitdir, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("gitdir: "))
		if !ok || len(gitdir) == 0 || bytes.IndexByte(gitdir, 0) >= 0 {
			return "", true, fmt.Errorf("%w (.git is a file that names no gitdir)", ErrNoIndex)
		}
		g := filepath.FromSlash(string(gitdir))
		if !filepath.IsAbs(g) {
			g = filepath.Join(dir, g)
		}
		if fi, err := os.Stat(g); err != nil || !fi.IsDir() || !existsIn(g, "HEAD") {
			return "", true, fmt.Errorf("%w (the gitdir .git names is not a git folder)", ErrNoIndex)
		}
		return filepath.Join(g, "index"), true, nil
	}
	return "", true, fmt.Errorf("%w (.git is a %s)", ErrNoIndex, Kind(fi.Mode()))
}

func existsIn(dir, name string) bool {
	_, err := os.Lstat(filepath.Join(dir, name))
	return err == nil
}

// openRegular opens the index as ReadFile opens a derived file (no final
// link, no FIFO, no device, no kernel file), wherever a .git file says it
// is: only its names are used, and they are never shown.
func openRegular(p string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|openFlags|noFollow, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, os.ErrNotExist
		}
		return nil, nil, errors.New("cannot open it")
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = ErrNotRegular
	}
	if err == nil {
		err = checkFS(f)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func readRegular(p string, max int64) ([]byte, error) {
	f, fi, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%w (%d bytes, at most %d)", ErrTooBig, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(data)) > max {
		return nil, errors.New("cannot read it")
	}
	return data, nil
}

// maxSubmoduleDepth bounds submodules inside submodules.
const maxSubmoduleDepth = 8

// allows says why the file rel (slash-separated, relative to the root,
// links resolved) is not in the read set, or nil.
func (s *readSet) allows(rel string) error {
	if NeverRead(rel) {
		return ErrNeverRead
	}
	return s.allowsAt(s.prefix+rel, 0)
}

func (s *readSet) allowsAt(rel string, depth int) error {
	if NeverRead(rel) {
		return ErrNeverRead
	}
	if !s.git || s.included(rel) {
		return nil
	}
	if s.idx == nil {
		return s.err
	}
	if has(s.idx.files, rel) {
		return nil
	}
	// A file of a submodule is tracked by the submodule's index.
	for i := strings.IndexByte(rel, '/'); i >= 0 && depth < maxSubmoduleDepth; {
		if has(s.idx.gitlinks, rel[:i]) {
			sub := s.submodule(rel[:i])
			if !sub.git {
				return ErrUntracked // not checked out: nothing there is the pull request's
			}
			return sub.allowsAt(rel[i+1:], depth+1)
		}
		j := strings.IndexByte(rel[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ErrUntracked
}

func (s *readSet) submodule(rel string) *readSet {
	if v, ok := s.sub.Load(rel); ok {
		return v.(*readSet)
	}
	sub := loadWorkTree(filepath.Join(s.dir, filepath.FromSlash(rel)))
	s.sub.Store(rel, sub)
	return sub
}

// included: named by the workflow, or a dependency archive that helm
// dependency build wrote beside a tracked Chart.lock.
func (s *readSet) included(rel string) bool {
	for _, p := range Untracked() {
		if matchPattern(p, rel) {
			return true
		}
	}
	dir, name := path.Split(rel)
	if !strings.HasSuffix(name, ".tgz") || path.Base(strings.TrimSuffix(dir, "/")) != "charts" {
		return false
	}
	chart := path.Dir(strings.TrimSuffix(dir, "/"))
	if chart == "." {
		chart = ""
	} else {
		chart += "/"
	}
	return s.idx != nil && (has(s.idx.files, chart+"Chart.lock") || has(s.idx.files, chart+"requirements.lock"))
}

// mayHold reports whether the folder rel can hold a file of the read set,
// so that a walk need not list what it could never read (an untracked
// node_modules beside a chart at the repository root).
func (s *readSet) mayHold(rel string) bool {
	if rel == "." {
		rel = ""
	}
	if NeverRead(rel + "/x") {
		return false
	}
	rel = strings.TrimSuffix(s.prefix+rel, "/")
	if !s.git || s.idx == nil {
		return true
	}
	if rel == "" || rel == "." || hasUnder(s.idx.files, rel) || hasUnder(s.idx.gitlinks, rel) || has(s.idx.gitlinks, rel) || path.Base(rel) == "charts" {
		return true
	}
	for _, p := range Untracked() {
		if mayMatchUnder(p, rel) {
			return true
		}
	}
	return false
}

// mayMatchUnder reports whether pattern can match a path below dir.
func mayMatchUnder(pat, dir string) bool {
	ps, ds := strings.Split(pat, "/"), strings.Split(dir, "/")
	for i, d := range ds {
		if i >= len(ps) {
			return false
		}
		if ps[i] == "**" {
			return true
		}
		if ok, _ := path.Match(ps[i], d); !ok {
			return false
		}
	}
	return len(ps) > len(ds)
}
