package render

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testgit"
	"github.com/podlint/podlint/manifest"
)

// Issue 34: inside the repository, a render reads only what the pull
// request could have brought, not what the CI job keeps in its checkout.

const (
	checkoutToken = "ghs_CHECKOUTTOKENhunter3"
	checkoutCreds = "GCPPRIVATEKEYhunter4"
)

// checkout makes a checkout as actions/checkout leaves it, with the
// hostile root testdata/hostile/render/name at its top: every file of it
// tracked, the job's token in .git/config, and gha-creds-x.json that an
// earlier step wrote (untracked). leak.yaml, tracked, is a link to
// .git/config (as a pull request can commit it) when link is set, else a
// plain file.
func checkout(t *testing.T, name string, link bool) string {
	t.Helper()
	dir := copyHostile(t, name, t.TempDir())
	if link {
		if err := os.Symlink(".git/config", filepath.Join(dir, "leak.yaml")); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	} else if err := os.WriteFile(filepath.Join(dir, "leak.yaml"), []byte("plain: file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := testgit.InitAll(dir); err != nil {
		t.Fatal(err)
	}
	for p, s := range map[string]string{
		".git/config":      "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + checkoutToken + "\n",
		"gha-creds-x.json": `{"type": "service_account", "private_key": "` + checkoutCreds + `"}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// secretForms are the token and credential and what of them survives
// base64 at each of the three byte alignments, in the standard and URL
// alphabets.
func secretForms() []string {
	var out []string
	for _, s := range []string{checkoutToken, checkoutCreds} {
		out = append(out, s)
		for k := range 3 {
			b := []byte(s)[k:]
			b = b[:len(b)/3*3]
			out = append(out, base64.StdEncoding.EncodeToString(b), base64.URLEncoding.EncodeToString(b))
		}
	}
	return out
}

func leaked(text string) string {
	for _, f := range secretForms() {
		if strings.Contains(text, f) {
			return f
		}
	}
	return ""
}

func TestCheckoutRootRendersNoSecret(t *testing.T) {
	for _, c := range []struct {
		name, kind string
		link       bool
	}{
		{"checkout-chart", manifest.RenderHelm, false},
		{"checkout-chart", manifest.RenderHelm, true},
		{"checkout-kustomization", manifest.RenderKustomize, false},
		{"checkout-kustomization", manifest.RenderKustomize, true},
	} {
		t.Run(fmt.Sprintf("%s/link=%v", c.name, c.link), func(t *testing.T) {
			dir := checkout(t, c.name, c.link)
			src := manifest.Source{Path: dir, Render: c.kind, Root: dir}
			out, err := (&Options{KubeVersion: "1.30"}).Open(src)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Map.Close()
			text := string(out.Stream) + fmt.Sprintf("%+v", out.Problems)
			if f := leaked(text); f != "" {
				t.Errorf("the rendered output holds %q:\n%s", f, text)
			}
			fs := lintHostile(t, src)
			if f := leaked(fmt.Sprintf("%+v", fs)); f != "" {
				t.Errorf("a finding holds %q: %+v", f, fs)
			}
			if len(out.Problems) == 0 {
				t.Errorf("no problem says what was refused; rendered:\n%s", out.Stream)
			}
			for _, p := range out.Problems {
				t.Logf("%s:%d: %s %s", p.File, p.Line, p.Message, p.Detail)
			}
		})
	}
}

// A new chart nobody has added to git is not rendered, and the finding
// says so: not a silent skip.
func TestUntrackedChartIsSaidNotSkipped(t *testing.T) {
	dir := t.TempDir()
	if err := testgit.Init(dir, "other.yaml"); err != nil {
		t.Fatal(err)
	}
	chart := filepath.Join(dir, "new")
	if err := os.MkdirAll(filepath.Join(chart, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, s := range map[string]string{"Chart.yaml": "apiVersion: v2\nname: new\nversion: 1.0.0\n", "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"} {
		if err := os.WriteFile(filepath.Join(chart, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := RenderChart(chart, HelmOptions{Root: dir})
	if len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Message, "not tracked by git") || !strings.Contains(r.Problems[0].Detail, "git add") ||
		r.Problems[0].File != filepath.Join(chart, "Chart.yaml") {
		t.Fatalf("problems %+v, want one at Chart.yaml saying it is not tracked and to git add it", r.Problems)
	}
	// Added to the index (git add -N is enough), it renders.
	if err := testgit.Init(dir, "new/Chart.yaml", "new/templates/cm.yaml"); err != nil {
		t.Fatal(err)
	}
	if r := RenderChart(chart, HelmOptions{Root: dir}); len(r.Problems) != 0 || len(r.Docs) != 1 {
		t.Errorf("tracked chart: problems %+v, %d documents", r.Problems, len(r.Docs))
	}
}
