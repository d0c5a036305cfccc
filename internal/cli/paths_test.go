package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Issue 21: what a pull request derives (a configuration found in the
// repository, the values files it names) is read only inside the
// repository, and a path whose place cannot be worked out is refused.

// TestFoundConfigLinkOutIsNotQuoted: a .podlint.yaml that is a link to a
// file outside the repository had its parse error quote that file.
func TestFoundConfigLinkOutIsNotQuoted(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	writeFiles(t, top, map[string]string{
		"secret.yaml":    "TOPSECRET: hunter2\n",
		"repo/.git/HEAD": "ref: refs/heads/main\n",
		"repo/pod.yaml":  findingPod,
	})
	if err := os.Symlink(filepath.Join(top, "secret.yaml"), filepath.Join(repo, ".podlint.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	code, stdout, stderr := run(t, repo, nil, "check", "pod.yaml")
	if code != ExitError || !strings.Contains(stderr, "symbolic link out of the repository") {
		t.Errorf("exit %d, stderr %q; want exit 2 refusing the link", code, stderr)
	}
	if strings.Contains(stdout+stderr, "hunter2") || strings.Contains(stdout+stderr, "TOPSECRET") {
		t.Errorf("the linked file's content reached the output: %s%s", stdout, stderr)
	}
	// Named with --config, the same file is the user's choice.
	if code, _, stderr := run(t, repo, nil, "check", "--config", filepath.Join(top, "secret.yaml"), "pod.yaml"); code != ExitError || !strings.Contains(stderr, "TOPSECRET") {
		t.Errorf("--config: exit %d, stderr %q; want its own parse error", code, stderr)
	}
}

// TestConfigValuesThatDoNotResolveAreRefused: a values path that resolves
// to no file (a pipe's /proc/self/fd/N) passed the inside-the-repository
// check (fail open); a FIFO inside the repository is refused too.
func TestConfigValuesThatDoNotResolveAreRefused(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/fd is Linux's")
	}
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	chart, _ := filepath.Abs(filepath.Join(renderData, "helm", "podinfo"))
	writeFiles(t, top, map[string]string{"repo/.git/HEAD": "ref: refs/heads/main\n"})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	pipe := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
	if _, err := filepath.EvalSymlinks(pipe); err == nil {
		t.Skip("the pipe resolves to a path here")
	}
	cfg := "charts:\n  " + chart + ":\n    values: [" + pipe + "]\n"
	if err := os.WriteFile(filepath.Join(repo, ".podlint.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, repo, nil, "check", "--format", "json", chart)
	if code != ExitError || !strings.Contains(stderr, "values file") {
		t.Errorf("exit %d, stderr %q; want the values file refused", code, stderr)
	}
}

// TestPreCommitFileNamesAreNeverOptions (issue 21 item 6): pre-commit
// appends the staged file names after the hook's args, and the argument
// reordering that lets flags follow paths took a staged file named
// --output=victim.yaml as the flag, overwriting victim.yaml with the
// report. With the hook's --pre-commit, a name of an existing file is a
// path; the hook's own args still work.
func TestPreCommitFileNamesAreNeverOptions(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"--output=victim.yaml": findingPod,
		"-":                    findingPod,
		"--":                   findingPod,
		"victim.yaml":          "keep: me\n",
	})
	code, stdout, stderr := run(t, dir, nil, "check", "--pre-commit", "--format", "json", "--fail-on", "warning",
		"--output=victim.yaml", "-", "--", "victim.yaml")
	if data, _ := os.ReadFile(filepath.Join(dir, "victim.yaml")); string(data) != "keep: me\n" {
		t.Errorf("victim.yaml was overwritten: %q", data)
	}
	if code != ExitFindings || !strings.HasPrefix(strings.TrimSpace(stdout), "{") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the JSON report (the hook's args) with findings", code, stdout, stderr)
	}
	for _, name := range []string{"--output=victim.yaml", "./-", "--"} {
		if !strings.Contains(stdout, fmt.Sprintf("%q", name)) {
			t.Errorf("the staged file %s was not linted: %s", name, stdout)
		}
	}
}

// TestTimelineLongNamesFitTheFileSystem (issue 21 item 6): a valid object
// name of 253 characters in a namespace of 63 made `timeline -o DIR`
// fail with "file name too long" and write nothing. Two such names that
// differ only at the end stay two files.
func TestTimelineLongNamesFitTheFileSystem(t *testing.T) {
	dir := t.TempDir()
	ns := strings.Repeat("n", 63)
	var pods string
	for _, last := range []string{"a", "b"} {
		name := strings.Repeat("x", 252) + last
		pods += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec: {containers: [{name: c, image: nginx}]}\n"
	}
	writeFiles(t, dir, map[string]string{"pods.yaml": pods})
	code, _, stderr := run(t, dir, nil, "timeline", "--no-config", "-f", "svg", "-o", "out/", "pods.yaml")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "out"))
	if err != nil || len(entries) != 2 {
		t.Fatalf("out/ holds %v (%v); want two charts", entries, err)
	}
	for _, e := range entries {
		if len(e.Name()) > 255-20 {
			t.Errorf("%s: %d bytes, no room for the temporary file", e.Name(), len(e.Name()))
		}
	}
}
