package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const secret = "SECRET=hunter2"

// repo makes a repository (a folder with .git) and, beside it, a secret
// file it must never read.
func repo(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "repo")
	outside = filepath.Join(base, "secret.yaml")
	for _, d := range []string{".git", "chart/templates"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, outside, secret)
	write(t, filepath.Join(dir, "chart/values.yaml"), "a: 1\n")
	return dir, outside
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
}

func open(t *testing.T, root, from string) *Root {
	t.Helper()
	r, err := Open(root, from)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRepoRootIsTheFolderHoldingGit(t *testing.T) {
	dir, _ := repo(t)
	got, err := RepoRoot(filepath.Join(dir, "chart/templates"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(dir)
	if got != want {
		t.Errorf("RepoRoot = %s, want %s", got, want)
	}
	// Without .git, the path given bounds what is derived from it.
	plain := t.TempDir()
	os.Mkdir(filepath.Join(plain, "sub"), 0o755)
	got, _ = RepoRoot(filepath.Join(plain, "sub"))
	if want, _ := filepath.EvalSymlinks(filepath.Join(plain, "sub")); got != want {
		t.Errorf("RepoRoot without .git = %s, want %s", got, want)
	}
}

func TestReadFileInsideTheRoot(t *testing.T) {
	dir, _ := repo(t)
	write(t, filepath.Join(dir, "base.yaml"), "kind: Base\n")
	symlink(t, "../values.yaml", filepath.Join(dir, "chart/templates/link.yaml"))
	r := open(t, "", filepath.Join(dir, "chart"))
	for p, want := range map[string]string{
		filepath.Join(dir, "chart/values.yaml"):         "a: 1\n",
		filepath.Join(dir, "chart/../base.yaml"):        "kind: Base\n",
		filepath.Join(dir, "chart/templates/link.yaml"): "a: 1\n", // a link inside the root is followed
	} {
		got, err := r.ReadFile(p, 1<<20)
		if err != nil || string(got) != want {
			t.Errorf("ReadFile(%s) = %q, %v; want %q", p, got, err, want)
		}
	}
}

func TestNothingOutsideTheRootIsRead(t *testing.T) {
	dir, outside := repo(t)
	symlink(t, outside, filepath.Join(dir, "chart/templates/abs.yaml"))
	symlink(t, "../../../secret.yaml", filepath.Join(dir, "chart/templates/rel.yaml"))
	r := open(t, "", filepath.Join(dir, "chart"))
	for _, p := range []string{
		outside,
		filepath.Join(dir, "chart/../../secret.yaml"),
		filepath.Join(dir, "chart/templates/abs.yaml"),
		filepath.Join(dir, "chart/templates/rel.yaml"),
		"/etc/passwd",
	} {
		got, err := r.ReadFile(p, 1<<20)
		if !errors.Is(err, ErrOutside) || strings.Contains(string(got), secret) {
			t.Errorf("ReadFile(%s) = %q, %v; want ErrOutside", p, got, err)
		}
		if r.Contains(p) {
			t.Errorf("Contains(%s) = true", p)
		}
	}
}

func TestOpenFailsClosed(t *testing.T) {
	dir, outside := repo(t)
	if _, err := Open("", filepath.Join(dir, "missing")); err == nil {
		t.Error("Open of a path that does not resolve succeeded")
	}
	if _, err := Open(dir, filepath.Dir(outside)); !errors.Is(err, ErrOutside) {
		t.Errorf("Open of a folder outside the root = %v, want ErrOutside", err)
	}
}

func TestReadFileRefusesKernelFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("procfs and sysfs checks are Linux only")
	}
	// /proc/self/environ says it is a regular file of size 0: only the
	// file system type tells it apart.
	r := open(t, "/proc/self", "/proc/self")
	if fi, err := r.Stat("/proc/self/environ"); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("Stat(/proc/self/environ) = %v, %v; the test needs a regular-looking file", fi, err)
	}
	data, err := r.ReadFile("/proc/self/environ", 1<<20)
	if !errors.Is(err, ErrNotRegular) || len(data) > 0 {
		t.Errorf("ReadFile(/proc/self/environ) = %d bytes, %v; want ErrNotRegular", len(data), err)
	}
}

func TestReadFileCapsTheSize(t *testing.T) {
	dir, _ := repo(t)
	big := filepath.Join(dir, "big.yaml")
	write(t, big, strings.Repeat("x", 100))
	r := open(t, "", dir)
	if _, err := r.ReadFile(big, 99); !errors.Is(err, ErrTooBig) {
		t.Errorf("ReadFile over the cap = %v, want ErrTooBig", err)
	}
	if got, err := r.ReadFile(big, 100); err != nil || len(got) != 100 {
		t.Errorf("ReadFile at the cap = %d bytes, %v", len(got), err)
	}
}

func TestPathsGivenThroughALinkArePlacedInTheRealRoot(t *testing.T) {
	dir, _ := repo(t)
	link := filepath.Join(t.TempDir(), "checkout")
	symlink(t, dir, link)
	r := open(t, "", filepath.Join(link, "chart"))
	if got, err := r.ReadFile(filepath.Join(link, "chart/values.yaml"), 1<<20); err != nil || string(got) != "a: 1\n" {
		t.Errorf("ReadFile through the linked checkout = %q, %v", got, err)
	}
}
