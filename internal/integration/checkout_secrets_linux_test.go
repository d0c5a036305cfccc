package integration

import (
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/podlint/podlint/internal/testgit"
	"github.com/podlint/podlint/report"
	"golang.org/x/sys/unix"
)

// Issue 34, defect 1: the Action's default (paths: .) on a checkout that
// holds the job's token in .git/config and a credential file an earlier
// step wrote (google-github-actions/auth's gha-creds-*.json, untracked),
// with a pull request that adds a hostile chart or kustomization at the
// repository root, or a link to .git/config for the walk. No podlint
// process may open either file (inotify IN_OPEN sees every process, and
// needs no privilege), and no byte of either secret, plain or in base64,
// may reach the log, the annotations, the SARIF file, the job summary, or
// any format of check and timeline.

const (
	e2eToken = "ghs_E2ECHECKOUTTOKENhunter5"
	e2eCreds = "E2EGCPKEYhunter6"
)

func e2eSecretForms() []string {
	// actions/checkout writes base64("x-access-token:TOKEN").
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + e2eToken))
	var out []string
	for _, s := range []string{e2eToken, e2eCreds, header} {
		out = append(out, s)
		for k := range 3 {
			b := []byte(s)[k:]
			b = b[:len(b)/3*3]
			out = append(out, base64.StdEncoding.EncodeToString(b), base64.URLEncoding.EncodeToString(b))
		}
	}
	return out
}

// copyTree copies the folder from into to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// secretCheckout makes the workspace: the pull request's files (tracked),
// then what actions/checkout and the auth step leave there.
func secretCheckout(t *testing.T, hostile string, files map[string]string, links map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	if hostile != "" {
		copyTree(t, filepath.Join(repoRoot(t), "testdata", "hostile", "render", hostile), ws)
	}
	writeFiles(t, ws, files)
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := testgit.InitAll(ws); err != nil {
		t.Fatal(err)
	}
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + e2eToken))
	writeFiles(t, ws, map[string]string{
		".git/config": "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = https://github.com/o/r\n" +
			"[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + header + "\n",
		"gha-creds-x.json": `{"type": "service_account", "private_key": "` + e2eCreds + `", "token": "` + e2eToken + `"}` + "\n",
	})
	return ws
}

// watchOpens reports every open of the files from now on, by any process.
func watchOpens(t *testing.T, files ...string) func() []string {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Skip("no inotify here:", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	names := map[int32]string{}
	for _, f := range files {
		wd, err := unix.InotifyAddWatch(fd, f, unix.IN_OPEN)
		if err != nil {
			t.Fatalf("inotify watch %s: %v", f, err)
		}
		names[int32(wd)] = f
	}
	return func() []string {
		var opened []string
		buf := make([]byte, 64<<10)
		for {
			n, err := unix.Read(fd, buf)
			if errors.Is(err, unix.EAGAIN) || n <= 0 {
				return opened
			}
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				if ev.Mask&unix.IN_OPEN != 0 {
					opened = append(opened, names[ev.Wd])
				}
				off += unix.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}

func TestActionDefaultPathReadsNoCheckoutSecret(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	root := repoRoot(t)
	a, _ := loadAction(t, filepath.Join(root, "action.yml"))
	brokenYAML := "apiVersion: v1\nkind: Pod\nmetadata: {name: x\n"
	for _, c := range []struct {
		name    string
		hostile string
		files   map[string]string
		links   map[string]string
	}{
		{"root chart", "checkout-chart", map[string]string{"leak.yaml": "plain: file\n"}, nil},
		{"root chart with a link", "checkout-chart", nil, map[string]string{"leak.yaml": ".git/config"}},
		{"root kustomization", "checkout-kustomization", map[string]string{"leak.yaml": "plain: file\n"}, nil},
		{"root kustomization with a link", "checkout-kustomization", nil, map[string]string{"leak.yaml": ".git/config"}},
		// The walk: a link to .git/config and one to the credential file
		// (a YAML error quotes its line), and the credential file itself,
		// a .json file at the root.
		{"walk", "", map[string]string{"k8s/app.yaml": goodPod, "k8s/broken.yaml": brokenYAML},
			map[string]string{"k8s/leak.yaml": "../.git/config", "k8s/creds.yaml": "../gha-creds-x.json", "config.json": ".git/config"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := secretCheckout(t, c.hostile, c.files, c.links)
			opened := watchOpens(t, filepath.Join(ws, ".git/config"), filepath.Join(ws, "gha-creds-x.json"))
			r := releasedRunner(t, a, root, ws, nil)
			r.run()
			outputs := map[string]string{"the action's log": r.log.String(), "the job summary": r.summaryText()}
			for _, f := range []string{r.output("sarif-file"), filepath.Join(r.temp, "podlint-out", "annotations"), filepath.Join(r.temp, "podlint-out", "github.stderr")} {
				if b, err := os.ReadFile(f); err == nil {
					outputs[f] = string(b)
				}
			}
			if r.output("exit-code") == "" || !strings.Contains(outputs[r.output("sarif-file")], `"version": "2.1.0"`) {
				t.Fatalf("the action did not lint (exit-code %q):\n%s", r.output("exit-code"), &r.log)
			}
			bin := filepath.Join(r.temp, "podlint")
			runs := [][]string{}
			for _, f := range report.Formats {
				runs = append(runs, []string{"check", "-f", f, "."})
			}
			for _, f := range []string{"text", "json", "mermaid"} {
				runs = append(runs, []string{"timeline", "-f", f, "."})
			}
			runs = append(runs, []string{"timeline", "-f", "svg", "-o", t.TempDir() + "/", "."}, []string{"fix", "--diff", "."})
			for _, args := range runs {
				cmd := exec.Command(bin, args...)
				cmd.Dir = ws
				var out, errb strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errb
				_ = cmd.Run()
				outputs[strings.Join(args, " ")] = out.String() + "\n--- stderr ---\n" + errb.String()
				if args[0] == "timeline" && args[2] == "svg" {
					svgs, _ := filepath.Glob(filepath.Join(args[4], "*"))
					for _, s := range svgs {
						b, _ := os.ReadFile(s)
						outputs[s] = string(b)
					}
				}
			}
			for where, text := range outputs {
				for _, f := range e2eSecretForms() {
					if i := strings.Index(text, f); i >= 0 {
						t.Errorf("%s holds %q: …%s…", where, f, text[max(0, i-200):min(len(text), i+len(f)+100)])
						break
					}
				}
			}
			if got := opened(); len(got) > 0 {
				t.Errorf("a process opened %q", got)
			}
			if c.name == "walk" && (!strings.Contains(outputs["check -f text ."], "broken.yaml:") ||
				!strings.Contains(outputs["check -f text ."], `"k8s/leak.yaml": skipped: it is (or leads to) VCS metadata`)) {
				// The walk went on: the broken file is reported, the link skipped with a hint.
				t.Errorf("check -f text .: %s", outputs["check -f text ."])
			}
		})
	}
}

// TestCIDocGitHubReadUntracked runs the action as the read-untracked
// example configures it: a manifest an earlier step generated, which git
// does not track, is linted only because the workflow names it; without
// the input the log says why it was skipped.
func TestCIDocGitHubReadUntracked(t *testing.T) {
	_, with := snippetWorkflow(t, "github-read-untracked")
	root := repoRoot(t)
	a, _ := loadAction(t, filepath.Join(root, "action.yml"))
	for _, named := range []bool{true, false} {
		ws := secretCheckout(t, "", map[string]string{"k8s/web.yaml": goodPod}, nil)
		writeFiles(t, ws, map[string]string{"generated/api.yaml": badPod}) // after the index: untracked
		inputs := map[string]string{}
		if named {
			inputs = with
		}
		r := releasedRunner(t, a, root, ws, inputs)
		r.run()
		log := r.log.String()
		annotated := strings.Contains(log, "::error file=generated/api.yaml,")
		switch {
		case named && (!annotated || r.output("exit-code") != "1"):
			t.Errorf("read-untracked %q: exit-code %q, want the generated file's finding:\n%s", with["read-untracked"], r.output("exit-code"), log)
		case !named && (annotated || !strings.Contains(log, `"generated": skipped: git tracks no file in it`)):
			t.Errorf("without read-untracked the untracked file was linted, or skipped without a word:\n%s", log)
		}
	}
}
