package render

import (
	"fmt"
	iofs "io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// Issue 21: a pull request must not get a byte from outside its
// repository into a report, whatever its charts and kustomizations say.

const topSecret = "TOPSECRET=hunter2"

// hostileRepo makes base/repo (holding .git) and base/secret.txt beside
// it, whose first line is topSecret, and returns write(rel, text) for
// files of the repository.
func hostileRepo(t *testing.T) (repo, secret string, write func(rel, text string) string) {
	t.Helper()
	base := t.TempDir()
	repo = filepath.Join(base, "repo")
	secret = filepath.Join(base, "secret.txt")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte(topSecret+"\nline two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	write = func(rel, text string) string {
		t.Helper()
		p := filepath.Join(repo, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return repo, secret, write
}

// copyHostile copies testdata/hostile/render/name into dir and returns
// the copy. Of those roots, fail-position is a chart whose {{ fail }} text
// holds "template: ../../secret.txt:1:1:", and kustomize-up a
// kustomization whose base is two folders up: both lead to the secret
// beside the repository. Inputs that need links, FIFOs, a listener or
// absolute paths are made by the tests themselves.
func copyHostile(t *testing.T, name, dir string) string {
	t.Helper()
	from := filepath.Join("..", "testdata", "hostile", "render", name)
	to := filepath.Join(dir, name)
	err := filepath.WalkDir(from, func(p string, d iofs.DirEntry, err error) error {
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
	return to
}

func hostileConfig() *analyzer.Linter {
	return analyzer.Default(analyzer.Enable(rules.All...))
}

// lintHostile lints a render root and fails the test if anything of the
// secret reaches a finding; it returns the findings.
func lintHostile(t *testing.T, src manifest.Source) []finding.Finding {
	t.Helper()
	fs, _, err := (&Options{KubeVersion: "1.30"}).Lint(hostileConfig(), src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if text := fmt.Sprintf("%+v", f); strings.Contains(text, "hunter2") {
			t.Errorf("the secret outside the repository reached a finding: %s", text)
		}
	}
	return fs
}

func renderErrorAt(fs []finding.Finding, file string) bool {
	for _, f := range fs {
		if f.RuleID == rules.ChartRenderError.ID && f.File == file {
			return true
		}
	}
	return false
}

// TestHostileHelmErrorNamesNoFileToRead: {{ fail }} text is the chart's
// own; a "template: FILE:LINE:COL:" in it made podlint quote that line of
// any file.
func TestHostileHelmErrorNamesNoFileToRead(t *testing.T) {
	repo, _, _ := hostileRepo(t)
	chart := copyHostile(t, "fail-position", repo)
	tpl := filepath.Join(chart, "templates", "fail.yaml")
	fs := lintHostile(t, manifest.Source{Path: chart, Render: manifest.RenderHelm})
	if !renderErrorAt(fs, tpl) {
		t.Errorf("findings %+v; want the render error at the failing template %s", fs, tpl)
	}
	for _, f := range fs {
		if strings.Contains(f.File, "secret") {
			t.Errorf("a finding is positioned in a file named by the chart's error text: %+v", f)
		}
	}
}

// TestHostileChartLinkRefusalQuotesNothing: the link guard's finding is at
// the link; reading the link for its source line quoted the target.
func TestHostileChartLinkRefusalQuotesNothing(t *testing.T) {
	repo, secret, write := hostileRepo(t)
	chart := filepath.Join(repo, "chart")
	write("chart/Chart.yaml", "apiVersion: v2\nname: evil\nversion: 0.1.0\n")
	link := filepath.Join(chart, "templates", "env.yaml")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(secret, link); err != nil {
		t.Skip(err)
	}
	fs := lintHostile(t, manifest.Source{Path: chart, Render: manifest.RenderHelm})
	if !renderErrorAt(fs, link) {
		t.Errorf("findings %+v; want the refusal at the link", fs)
	}
}

// TestHostileKustomizeReadsOnlyTheRepository: a kustomization that is a
// link out of the repository, and bases and resources outside it, are
// problems at the kustomization; nothing of them is read.
func TestHostileKustomizeReadsOnlyTheRepository(t *testing.T) {
	repo, secret, write := hostileRepo(t)
	outsideBase := filepath.Join(filepath.Dir(repo), "base")
	os.MkdirAll(outsideBase, 0o755)
	os.WriteFile(filepath.Join(outsideBase, "kustomization.yaml"), []byte("resources: [pod.yaml]\n"), 0o644)
	os.WriteFile(filepath.Join(outsideBase, "pod.yaml"), []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: hunter2}\nspec:\n  containers: [{name: a, image: x}, {name: a, image: x}]\n"), 0o644)

	linked := filepath.Join(repo, "linked")
	os.MkdirAll(linked, 0o755)
	if err := os.Symlink(secret, filepath.Join(linked, "kustomization.yaml")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink(outsideBase, filepath.Join(repo, "via-link")); err != nil {
		t.Fatal(err)
	}
	copyHostile(t, "kustomize-up", repo)
	write("through/kustomization.yaml", "resources:\n  - ../via-link\n")
	for _, dir := range []string{"linked", "kustomize-up", "through"} {
		t.Run(dir, func(t *testing.T) {
			src := manifest.Source{Path: filepath.Join(repo, dir), Render: manifest.RenderKustomize}
			fs := lintHostile(t, src)
			if !renderErrorAt(fs, filepath.Join(src.Path, "kustomization.yaml")) {
				t.Errorf("findings %+v; want a render error at the kustomization", fs)
			}
			if r := renderKustomization(src.Path, ""); len(r.Docs) != 0 {
				t.Errorf("rendered %d documents from outside the repository", len(r.Docs))
			}
		})
	}
}

// TestHostileSchemaRefIsNotFollowed: Helm's schema validator reads
// file:// references and fetches http:// ones with its own client; the
// listener must see no connection and the file must not be read.
func TestHostileSchemaRefIsNotFollowed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	repo, secret, write := hostileRepo(t)
	os.WriteFile(secret, []byte(`{"type": "object", "description": "hunter2", "required": ["hunter2"]}`), 0o600)
	write("chart/Chart.yaml", "apiVersion: v2\nname: evil\nversion: 0.1.0\n")
	write("chart/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
	for name, ref := range map[string]string{
		"file": "file://" + filepath.ToSlash(secret),
		"http": "http://" + ln.Addr().String() + "/schema.json",
		"meta": "", // an unknown $schema is a URL the validator loads too
	} {
		t.Run(name, func(t *testing.T) {
			schema := fmt.Sprintf(`{"type": "object", "properties": {"a": {"$ref": %q}}}`, ref)
			if ref == "" {
				schema = fmt.Sprintf(`{"$schema": "http://%s/meta.json", "type": "object"}`, ln.Addr())
			}
			sf := write("chart/values.schema.json", schema)
			fs := lintHostile(t, manifest.Source{Path: filepath.Join(repo, "chart"), Render: manifest.RenderHelm})
			if !renderErrorAt(fs, sf) {
				t.Errorf("findings %+v; want the refused reference at values.schema.json", fs)
			}
			if r := RenderChart(filepath.Join(repo, "chart"), HelmOptions{}); len(r.Docs) != 1 {
				t.Errorf("rendered %d documents; the chart renders without the schema", len(r.Docs))
			}
		})
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("%d connections to the schema's URL", n)
	}
}

// TestSchemaOfLatestDraftAlias checks that a values.schema.json whose
// $schema is the latest draft's alias (http://json-schema.org/schema#,
// which the validator holds itself) is used as Helm uses it: the chart
// renders with valid values and fails validation with invalid ones, with
// no problem about a schema outside the chart.
func TestSchemaOfLatestDraftAlias(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"Chart.yaml":         "apiVersion: v2\nname: alias\nversion: 0.1.0\n",
		"templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {n: \"{{ .Values.replicas }}\"}\n",
		"values.yaml":        "replicas: 2\n",
		"values.schema.json": `{"$schema": "http://json-schema.org/schema#", "type": "object", "properties": {"replicas": {"type": "integer"}}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := RenderChart(dir, HelmOptions{}); len(r.Docs) != 1 || len(r.Problems) != 0 {
		t.Errorf("valid values: %d documents, problems %+v; want 1 and none", len(r.Docs), r.Problems)
	}
	r := RenderChart(dir, HelmOptions{Set: []string{"replicas=two"}})
	if len(r.Problems) == 0 || strings.Contains(r.Problems[0].Message, "outside the chart") {
		t.Errorf("invalid values: problems %+v; want the schema's validation error", r.Problems)
	}
}
