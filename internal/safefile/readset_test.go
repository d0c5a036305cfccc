package safefile

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testgit"
)

// The files every fixture of testdata/gitindex tracks (gen.sh).
var gitFixtureFiles = []string{"chart/Chart.yaml", "chart/templates/deployment.yaml", "deep/a/b/c/d/e/f.yaml", "link.yaml", "odd dir/ünï code.yaml"}

func TestDecodeIndexOfGit(t *testing.T) {
	for _, c := range []struct {
		name   string
		intent bool // intent.yaml added with git add -N
	}{{"v2", false}, {"v3", true}, {"v4", true}, {"sha256", true}} {
		data, err := os.ReadFile(filepath.Join("testdata/gitindex", c.name+".index"))
		if err != nil {
			t.Fatal(err)
		}
		idx, err := decodeIndex(data)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want := append([]string(nil), gitFixtureFiles...)
		if c.intent {
			want = append(want, "intent.yaml")
		}
		want = sortedUnique(want)
		if !reflect.DeepEqual(idx.files, want) || !reflect.DeepEqual(idx.gitlinks, []string{"sub"}) {
			t.Errorf("%s: files %q, gitlinks %q; want %q and [sub]", c.name, idx.files, idx.gitlinks, want)
		}
	}
}

// A split index keeps most entries in a shared index: read alone it
// would vouch for too few files, and its required "link" extension says
// so. Every damaged index is an error, never a shorter list.
func TestDecodeIndexRefusesWhatItCannotReadWhole(t *testing.T) {
	data, err := os.ReadFile("testdata/gitindex/split.index")
	if err != nil {
		t.Fatal(err)
	}
	if idx, err := decodeIndex(data); err == nil {
		t.Errorf("split index decodes to %q", idx.files)
	}
	v4, err := os.ReadFile("testdata/gitindex/v4.index")
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(v4) {
		if idx, err := decodeIndex(v4[:n]); err == nil {
			t.Fatalf("the first %d of %d bytes decode to %q", n, len(v4), idx.files)
		}
		flipped := append([]byte(nil), v4...)
		flipped[n] ^= 0x40
		if idx, err := decodeIndex(flipped); err == nil {
			t.Fatalf("byte %d flipped decodes to %q", n, idx.files)
		}
	}
}

func FuzzDecodeIndex(f *testing.F) {
	for _, n := range []string{"v2", "v3", "v4", "sha256", "split"} {
		if data, err := os.ReadFile(filepath.Join("testdata/gitindex", n+".index")); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := decodeIndex(data)
		if err == nil && len(idx.files)+len(idx.gitlinks) > len(data)/62 {
			t.Fatalf("%d entries from %d bytes", len(idx.files)+len(idx.gitlinks), len(data))
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x00\x1b") {
			t.Fatalf("error quotes the index: %q", err)
		}
	})
}

func TestNeverReadNames(t *testing.T) {
	for _, p := range []string{".git/config", "a/b/.git/HEAD", ".GIT/config", ".git./config", "GIT~1/config", ".hg/hgrc",
		"x/.svn/entries", "gha-creds-3f2a.json", "sub/GHA-CREDS-x.json", ".git-credentials", ".netrc", "a/.aws/credentials",
		".docker/config.json", ".kube/config", ".config/gcloud/credentials.db", "keys/id_ed25519", "ci.kubeconfig", ".git"} {
		if !NeverRead(p) {
			t.Errorf("NeverRead(%q) = false", p)
		}
	}
	for _, p := range []string{"chart/Chart.yaml", "gitops/app.yaml", "files/tls.key", "id_rsa.pub", "my.git/x", "docs/.github/w.yml", ".gitignore", ".gitkeep"} {
		if NeverRead(p) {
			t.Errorf("NeverRead(%q) = true", p)
		}
	}
}

// tree makes a checkout as the Action sees it: tracked files, a token in
// .git/config, and files an earlier step wrote that git does not track.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range map[string]string{
		"Chart.yaml":                "apiVersion: v2\n",
		"templates/a.yaml":          "a: 1\n",
		"sub/dir/b.yaml":            "b: 1\n",
		"untracked.yaml":            "u: 1\n",
		"gha-creds-1.json":          `{"token": "` + secret + `"}`,
		"vendor/charts/dep-1.tgz":   "archive",
		"charts/dep-1.tgz":          "archive",
		"charts/other/x.tgz":        "archive",
		"named/by/workflow.yaml":    "n: 1\n",
		"vendor/Chart.yaml":         "apiVersion: v2\n",
		"node_modules/m/index.json": "{}",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, p), s)
	}
	if err := testgit.Init(dir, "Chart.yaml", "templates/a.yaml", "sub/dir/b.yaml", "Chart.lock", "gha-creds-1.json", "vendor/Chart.yaml"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".git/config"), "[http]\n\textraheader = AUTHORIZATION: basic "+secret+"\n")
	write(t, filepath.Join(dir, "Chart.lock"), "dependencies: []\n")
	return dir
}

func TestReadSetOfAGitWorkTree(t *testing.T) {
	dir := tree(t)
	symlink(t, ".git/config", filepath.Join(dir, "leak.yaml"))
	symlink(t, ".git", filepath.Join(dir, "meta"))
	defer SetUntracked(nil)
	if err := SetUntracked([]string{"named/**/*.yaml"}); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir, filepath.Join(dir, "sub"))
	for p, want := range map[string]error{
		"Chart.yaml":              nil,
		"sub/dir/b.yaml":          nil,
		"charts/dep-1.tgz":        nil, // beside a tracked Chart.lock
		"named/by/workflow.yaml":  nil,
		"untracked.yaml":          ErrUntracked,
		"vendor/charts/dep-1.tgz": ErrUntracked, // vendor has no Chart.lock
		"charts/other/x.tgz":      ErrUntracked,
		"gha-creds-1.json":        ErrNeverRead, // even though tracked
		".git/config":             ErrNeverRead,
		"leak.yaml":               ErrNeverRead,
		"meta/config":             ErrNeverRead,
		"sub/../.git/config":      ErrNeverRead,
	} {
		_, err := r.ReadFile(filepath.Join(dir, p), 1<<20)
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("ReadFile(%s): %v, want %v", p, err, want)
		}
		if err := r.Readable(filepath.Join(dir, p)); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("Readable(%s): %v, want %v", p, err, want)
		}
	}
	es, err := r.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Name() == ".git" || strings.HasPrefix(e.Name(), "gha-creds") {
			t.Errorf("ReadDir lists %s", e.Name())
		}
	}
	if _, err := r.Stat(filepath.Join(dir, "meta")); !errors.Is(err, ErrNeverRead) {
		t.Errorf("Stat(meta -> .git): %v", err)
	}
	if r.MayHold(filepath.Join(dir, "node_modules")) || !r.MayHold(filepath.Join(dir, "sub")) || !r.MayHold(filepath.Join(dir, "named/by")) {
		t.Errorf("MayHold: node_modules %v, sub %v, named/by %v", r.MayHold(filepath.Join(dir, "node_modules")),
			r.MayHold(filepath.Join(dir, "sub")), r.MayHold(filepath.Join(dir, "named/by")))
	}
}

// The read set comes from the work tree's top, wherever the root given
// is: a root inside the work tree (podlint started in a subfolder) still
// reads only tracked files.
func TestReadSetFromASubfolder(t *testing.T) {
	dir := tree(t)
	write(t, filepath.Join(dir, "sub/dir/new.yaml"), "n: 1\n")
	r := open(t, filepath.Join(dir, "sub"), filepath.Join(dir, "sub/dir"))
	if _, err := r.ReadFile(filepath.Join(dir, "sub/dir/b.yaml"), 1<<20); err != nil {
		t.Errorf("tracked file: %v", err)
	}
	if _, err := r.ReadFile(filepath.Join(dir, "sub/dir/new.yaml"), 1<<20); !errors.Is(err, ErrUntracked) {
		t.Errorf("untracked file: %v", err)
	}
}

// An index podlint cannot read vouches for nothing: only what the
// workflow names is read (the strict rule).
func TestUnreadableIndexIsTheStrictRule(t *testing.T) {
	for name, damage := range map[string]func(dir string) error{
		"garbage": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".git/index"), []byte("DIRC garbage"), 0o644)
		},
		"link to the index": func(dir string) error {
			idx := filepath.Join(dir, ".git/index")
			if err := os.Rename(idx, idx+".real"); err != nil {
				return err
			}
			return os.Symlink("index.real", idx)
		},
		"FIFO": func(dir string) error {
			idx := filepath.Join(dir, ".git/index")
			if err := os.Remove(idx); err != nil {
				return err
			}
			return mkfifo(idx)
		},
		"gitdir to /dev": func(dir string) error {
			if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /dev/zero\n"), 0o644)
		},
		"gitdir to /proc": func(dir string) error {
			if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: /proc/self\n"), 0o644)
		},
		"empty .git file": func(dir string) error {
			if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, ".git"), nil, 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := tree(t)
			if err := damage(dir); err != nil {
				t.Skip(err)
			}
			r := open(t, dir, dir)
			if _, err := r.ReadFile(filepath.Join(dir, "Chart.yaml"), 1<<20); !errors.Is(err, ErrNoIndex) {
				t.Errorf("tracked file with an unreadable index: %v, want ErrNoIndex", err)
			}
			defer SetUntracked(nil)
			if err := SetUntracked([]string{"Chart.yaml"}); err != nil {
				t.Fatal(err)
			}
			if _, err := r.ReadFile(filepath.Join(dir, "Chart.yaml"), 1<<20); err != nil {
				t.Errorf("a file named with --read-untracked: %v", err)
			}
		})
	}
}

// A worktree's or submodule's .git is a file naming the git folder, and a
// submodule's files are tracked by its own index.
func TestReadSetOfWorktreesAndSubmodules(t *testing.T) {
	base := t.TempDir()
	top, gitdir := filepath.Join(base, "top"), filepath.Join(base, "elsewhere/worktrees/top")
	subgit := filepath.Join(base, "elsewhere/modules/sub")
	for _, d := range []string{top + "/sub/templates", gitdir, subgit} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(top, "a.yaml"), "a: 1\n")
	write(t, filepath.Join(top, "b.yaml"), "b: 1\n")
	write(t, filepath.Join(top, "sub/templates/t.yaml"), "t: 1\n")
	write(t, filepath.Join(top, "sub/templates/u.yaml"), "u: 1\n")
	if err := os.RemoveAll(filepath.Join(top, ".git")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(top, ".git"), "gitdir: "+gitdir+"\n")
	write(t, filepath.Join(gitdir, "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(subgit, "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(gitdir, "index"), string(testgit.Index(map[string]uint32{"a.yaml": testgit.File, "sub": testgit.Gitlink})))
	write(t, filepath.Join(top, "sub/.git"), "gitdir: ../../elsewhere/modules/sub\n")
	write(t, filepath.Join(subgit, "index"), string(testgit.Index(map[string]uint32{"templates/t.yaml": testgit.File})))
	r := open(t, top, top)
	for p, want := range map[string]error{"a.yaml": nil, "b.yaml": ErrUntracked, "sub/templates/t.yaml": nil, "sub/templates/u.yaml": ErrUntracked, "sub/.git": ErrNeverRead} {
		if _, err := r.ReadFile(filepath.Join(top, p), 1<<20); !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Errorf("ReadFile(%s): %v, want %v", p, err, want)
		}
	}
	if got := IndexPaths(filepath.Join(top, "sub")); len(got) != 2 || got[1] != filepath.Join(base, "elsewhere/modules/sub/index") {
		t.Errorf("IndexPaths(sub) = %q", got)
	}
}

func TestUntrackedPatterns(t *testing.T) {
	for _, bad := range []string{"", "/abs", "../x", "a//b", "a/./b", `a\b`, "[a"} {
		if err := SetUntracked([]string{bad}); err == nil {
			t.Errorf("SetUntracked(%q) accepted", bad)
		}
	}
	for _, c := range []struct {
		pat, p string
		want   bool
	}{{"charts/*.tgz", "charts/a.tgz", true}, {"charts/*.tgz", "x/charts/a.tgz", false}, {"**/charts/*.tgz", "x/y/charts/a.tgz", true},
		{"**/charts/*.tgz", "charts/a.tgz", true}, {"gen/**", "gen/a/b", true}, {"gen/**", "gen", true}, {"*.yaml", "a/b.yaml", false}} {
		if got := matchPattern(c.pat, c.p); got != c.want {
			t.Errorf("matchPattern(%q, %q) = %v", c.pat, c.p, got)
		}
	}
}

// matchName stands in for path.Match only for patterns of its shape, and
// agrees with it there.
func TestCredentialPatternsAreSimple(t *testing.T) {
	names := []string{"", "x", "kubeconfig", "a.kubeconfig", ".kubeconfig", "kubeconfig.bak", "gha-creds-1.json",
		"gha-creds-.json", "gha-creds-1.json.bak", "client_secret.json", "client_secret_x.json", "credentials.json",
		"id_rsa", "id_rsa.pub", ".netrc", "x.netrc", "client_secretjson", "gha-creds-json"}
	for _, pat := range credentialFiles {
		if strings.Count(pat, "*") > 1 || strings.ContainsAny(pat, `?[\/`) {
			t.Errorf("%q: matchName handles at most one '*' and no other wildcard", pat)
		}
		for _, n := range append(names, pat) {
			want, _ := path.Match(pat, n)
			if got := matchName(pat, n); got != want {
				t.Errorf("matchName(%q, %q) = %v, path.Match says %v", pat, n, got, want)
			}
		}
	}
}
