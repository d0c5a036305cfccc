package manifest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testgit"
)

// TestWalkReadsOnlyTheReadSet (issue 34): walking a checkout finds only
// the files the pull request could have brought. A link to .git/config
// inside the tree (its YAML error quoted the token) and the credential
// file an earlier step wrote (a .json file) are skipped with a hint and
// never read, tracked or not; untracked files are skipped with a hint
// that says how to lint them; a subfolder walked alone follows the same
// read set, computed from the repository root.
func TestWalkReadsOnlyTheReadSet(t *testing.T) {
	repo := t.TempDir()
	const token = "ghs_WALKTOKENhunter7"
	for p, s := range map[string]string{
		"k8s/pod.yaml":                "kind: Pod\n",
		"k8s/new.yaml":                "kind: Pod\n",
		"gha-creds-x.json":            `{"private_key": "` + token + `"}`,
		"node_modules/m/package.json": "{}",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../.git/config", filepath.Join(repo, "k8s/leak.yaml")); err != nil {
		t.Skip(err)
	}
	if err := testgit.InitModes(repo, map[string]uint32{"k8s/pod.yaml": testgit.File, "k8s/leak.yaml": testgit.Link, "gha-creds-x.json": testgit.File}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git/config"), []byte("[http]\n\textraheader = AUTHORIZATION: basic "+token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{repo, filepath.Join(repo, "k8s")} {
		srcs, hints, errs := Discover([]string{from}, nil, true)
		var found []string
		for _, s := range srcs {
			rel, _ := filepath.Rel(repo, s.Path)
			found = append(found, filepath.ToSlash(rel))
			data, _, err := s.Read(1 << 20)
			if err != nil || strings.Contains(string(data), token) {
				t.Errorf("%s: read %q, %v", s.Path, data, err)
			}
		}
		if !slices.Equal(found, []string{"k8s/pod.yaml"}) || len(errs) > 0 {
			t.Errorf("walking %s found %q, errors %v; want only the tracked k8s/pod.yaml", from, found, errs)
		}
		text := ""
		for _, h := range hints {
			text += h.Message + "\n"
		}
		wants := []string{`leak.yaml": skipped: `, `new.yaml": skipped: not tracked by git`}
		if from == repo { // walking k8s alone, the link leads out of the tree walked
			wants = append(wants, `leak.yaml": skipped: it is (or leads to) VCS metadata`, `gha-creds-x.json": skipped: it is (or leads to) VCS metadata or a credential file`)
		}
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("walking %s: no hint %q in:\n%s", from, want, text)
			}
		}
		if strings.Contains(text, token) {
			t.Errorf("a hint holds the token:\n%s", text)
		}
	}
	// Read refuses the link even for a source a caller built itself.
	leak := Source{Path: filepath.Join(repo, "k8s/leak.yaml"), Root: repo}
	if data, _, err := leak.Read(1 << 20); err == nil || strings.Contains(string(data), token) {
		t.Errorf("Read(leak.yaml) = %q, %v; want it refused", data, err)
	}
}
