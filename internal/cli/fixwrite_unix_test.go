//go:build unix

package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFixKeepsSpecialBitsAndOwner: the file fix rewrites keeps its
// setuid, setgid and sticky bits (docs/fix.md promises the mode) and its
// owner and group. Before, the rewritten file had mode 0755 and the
// owner and group of the user running podlint.
func TestFixKeepsSpecialBitsAndOwner(t *testing.T) {
	dir, path := writeFixture(t, 0o755|os.ModeSetgid|os.ModeSetuid)
	var owner *syscall.Stat_t
	if os.Geteuid() == 0 {
		// Only root may give a file away; then fix must give it back.
		if err := os.Chown(path, 4321, 8765); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o755|os.ModeSetgid|os.ModeSetuid); err != nil { // chown cleared them
			t.Fatal(err)
		}
	}
	before, _ := os.Stat(path)
	owner = before.Sys().(*syscall.Stat_t)
	if code, _, errs := run(t, dir, nil, "fix", "--no-config", "web.yaml"); code != 0 || !strings.Contains(errs, "PL113 fixed") {
		t.Fatalf("fix: exit %d, stderr:\n%s", code, errs)
	}
	after, _ := os.Stat(path)
	if os.SameFile(before, after) {
		t.Fatal("the file was not replaced")
	}
	if want := 0o755 | os.ModeSetgid | os.ModeSetuid; after.Mode() != want {
		t.Errorf("mode after the fix %v, want %v", after.Mode(), want)
	}
	st := after.Sys().(*syscall.Stat_t)
	if st.Uid != owner.Uid || st.Gid != owner.Gid {
		t.Errorf("owner after the fix %d:%d, want %d:%d", st.Uid, st.Gid, owner.Uid, owner.Gid)
	}
	if os.Geteuid() != 0 {
		t.Log("not root: the owner kept is the user's own; the case of another owner needs root")
	}
}

// TestFixKeepsSpecialBitsUnprivileged: run by a user that is not root
// (nobody, on its own file in its own group), fix still keeps the setuid
// and setgid bits. The kernel clears both when such a user writes to the
// file, so the mode is set after the data; root keeps them either way.
func TestFixKeepsSpecialBitsUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run podlint as another user")
	}
	const nobody = 65534
	dir, err := os.MkdirTemp("", "podlint-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "podlint.test")
	path := filepath.Join(dir, "web.yaml")
	want := 0o755 | os.ModeSetgid | os.ModeSetuid
	for _, err := range []error{
		os.Chmod(dir, 0o777),
		os.WriteFile(bin, self, 0o755),
		os.WriteFile(path, []byte(fixable), 0o644),
		os.Chown(path, nobody, nobody),
		os.Chmod(path, want),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "fix", "--no-config", "web.yaml")
	cmd.Dir = dir
	cmd.Env = []string{asPodlint + "=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, Groups: []uint32{}}}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PL113 fixed") {
		t.Fatalf("fix as nobody: %v\n%s", err, out)
	}
	fi, _ := os.Stat(path)
	if fi.Mode() != want {
		t.Errorf("mode after the fix by nobody %v, want %v", fi.Mode(), want)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != nobody || st.Gid != nobody {
		t.Errorf("owner after the fix %d:%d, want nobody", st.Uid, st.Gid)
	}
}

// TestFixRefusesReadOnlyFiles: a read-only file (0444) is not replaced,
// even though the folder would let a rename do it: exit 2 with a message
// naming the file, and the other file of the run is still fixed. --diff
// still shows its changes. Before, the file was rewritten (and made 0444
// again).
func TestFixRefusesReadOnlyFiles(t *testing.T) {
	dir, ro := writeFixture(t, 0o444)
	rw := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(rw, []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, dir, nil, "fix", "--no-config", "web.yaml", "other.yaml")
	if code != ExitError || !strings.Contains(errs, "web.yaml: read-only (mode 0444); not fixed") {
		t.Errorf("fix: exit %d, want 2 and the read-only file named; stderr:\n%s", code, errs)
	}
	// Nothing of the refused file is said to be fixed or counted.
	if strings.Count(errs, "PL113 fixed: ") != 1 || !strings.Contains(errs, "other.yaml:14:31: PL113 fixed: ") || !strings.Contains(errs, "fixed 1 finding(s) in 1 file(s)") {
		t.Errorf("the refused file's fix is reported as applied:\n%s", errs)
	}
	if got, _ := os.ReadFile(ro); string(got) != fixable {
		t.Errorf("the read-only file was changed:\n%s", got)
	}
	if got, _ := os.ReadFile(rw); !strings.Contains(string(got), "successThreshold: 1") {
		t.Errorf("the writable file was not fixed:\n%s", got)
	}
	if code, out, _ := run(t, dir, nil, "fix", "--diff", "--no-config", "web.yaml"); code != ExitFindings || !strings.Contains(out, "+            successThreshold: 1") {
		t.Errorf("fix --diff of the read-only file: exit %d, want 1 (a fix would change it), diff:\n%s", code, out)
	}
}

// asPodlint, set in the environment of the test binary, makes it run as
// podlint (TestMain); set to stopBeforeRename, podlint prints its
// temporary file's name and waits, forever, just before the rename: the
// test then signals it at that point.
const (
	asPodlint        = "PODLINT_TEST_AS_PODLINT"
	stopBeforeRename = "stop-before-rename"
)

// TestSignalRemovesTheTemporaryFile: podlint fix stopped by SIGTERM (or
// SIGINT) between writing its temporary file and renaming it leaves no
// ".web.yaml.*.tmp" in the folder, the file as it was, and exits as a
// shell reports a command the signal killed (143, 130). The run is stopped at that point by a hook, not by timing.
// Before, the temporary file stayed in the repository.
func TestSignalRemovesTheTemporaryFile(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		dir, path := writeFixture(t, 0o644)
		cmd := exec.Command(os.Args[0], "fix", "--no-config", "web.yaml")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), asPodlint+"="+stopBeforeRename)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		tmp := ""
		for sc.Scan() {
			if name, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				tmp = name
				break
			}
		}
		if tmp == "" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: podlint ended before the rename", sig)
		}
		if _, err := os.Stat(filepath.Join(dir, tmp)); err != nil {
			t.Fatalf("%v: the temporary file %s is not there at the rename: %v", sig, tmp, err)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
			t.Errorf("%v: podlint ended with %v, want exit status %d", sig, err, 128+int(sig))
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("%v: files left in the folder: %v", sig, names)
		}
		if got, _ := os.ReadFile(path); string(got) != fixable {
			t.Errorf("%v: the file changed", sig)
		}
	}
}

// TestFixDiffEscapesFileNames: the "--- a/" and "+++ b/" lines of
// `podlint fix --diff` show a file name escaped as every other output does:
// a name cannot forge a "+++" line, start a workflow command, link (OSC 8)
// or reorder the line (U+202E). Before, the name was written raw.
func TestFixDiffEscapesFileNames(t *testing.T) {
	dir := t.TempDir()
	name := "x\x1b]8;;mailto:a@evil.example\x1b\\y\n+++ forged\n::error::INJECTED\u202e\u3164.yaml"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(fixable), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, dir, nil, "fix", "--diff", "--no-config", name)
	if code != ExitFindings || !strings.Contains(out, "+            successThreshold: 1") {
		t.Fatalf("fix --diff: exit %d, want 1 (a fix would change the file)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if m := rawControl.FindString(out + errs); m != "" {
		t.Errorf("a raw %q reaches the output:\n%q", m, out)
	}
	var plus int
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "+++ ") {
			plus++
		}
		if strings.HasPrefix(l, "::") {
			t.Errorf("a line starts a workflow command: %q", l)
		}
	}
	if plus != 1 {
		t.Errorf("%d \"+++\" lines, want 1:\n%s", plus, out)
	}
	if want := `+++ b/x\x1b]8;;mailto:a@evil.example\x1b\y\n+++ forged\n::error::INJECTED\u202e\u3164.yaml`; !strings.Contains(out, want+"\n") {
		t.Errorf("the name is not shown escaped (%s):\n%s", want, out)
	}
}
