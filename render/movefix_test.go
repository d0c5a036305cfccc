package render

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testgit"
	"github.com/podlint/podlint/manifest"
)

// TestEditedTextOnlyForReadableFiles: the text podlint fix hands the render
// child (Source.Edited) replaces a file of the repository the child reads,
// and nothing else: an entry for a file outside the repository, named by
// the kustomization, is refused as the file itself is, and its text never
// reaches the rendered output.
func TestEditedTextOnlyForReadableFiles(t *testing.T) {
	top := t.TempDir()
	repo := filepath.Join(top, "repo")
	app := filepath.Join(repo, "app")
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: NAME}\nspec:\n  selector: {matchLabels: {app: a}}\n" +
		"  template:\n    metadata: {labels: {app: a}}\n    spec:\n      containers: [{name: a, image: nginx}]\n"
	files := map[string]string{
		filepath.Join(app, "kustomization.yaml"):          "resources:\n  - deployment.yaml\n",
		filepath.Join(repo, "leak", "kustomization.yaml"): "resources:\n  - ../../outside.yaml\n",
		filepath.Join(app, "deployment.yaml"):             strings.Replace(deploy, "NAME", "on-disk", 1),
		filepath.Join(top, "outside.yaml"):                strings.Replace(deploy, "NAME", "outside", 1),
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := testgit.InitAll(repo); err != nil {
		t.Fatal(err)
	}
	src := manifest.Source{Path: app, Render: manifest.RenderKustomize, Root: repo, Edited: map[string][]byte{
		filepath.Join(app, "deployment.yaml"): []byte(strings.Replace(deploy, "NAME", "edited", 1)),
		filepath.Join(top, "outside.yaml"):    []byte(strings.Replace(deploy, "NAME", "smuggled", 1)),
	}}
	r, err := (&Options{Limits: testLimits}).Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Map.Close()
	if stream := string(r.Stream); !strings.Contains(stream, "name: edited") || strings.Contains(stream, "on-disk") {
		t.Errorf("the edited text did not replace the file's:\n%s\n%+v", stream, r.Problems)
	}
	if got := string(r.Map.File(filepath.Join(app, "deployment.yaml"))); !strings.Contains(got, "name: edited") {
		t.Errorf("the source map reads %q, not the edited text", got)
	}
	src.Path = filepath.Join(repo, "leak")
	r, err = (&Options{Limits: testLimits}).Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Map.Close()
	if stream := string(r.Stream); strings.Contains(stream, "smuggled") || strings.Contains(stream, "name: outside") {
		t.Errorf("a file outside the repository was rendered:\n%s", stream)
	}
	refused := false
	for _, p := range r.Problems {
		refused = refused || strings.Contains(p.Message, "outside the repository")
	}
	if !refused {
		t.Errorf("problems %+v: want the outside resource refused", r.Problems)
	}
}

// TestScalarToken: the value a fix replaces on a template, values or patch
// line is a plain or quoted scalar of its own; an action, a tag, an anchor,
// an alias, a block scalar or text that is not one scalar are refused.
func TestScalarToken(t *testing.T) {
	for _, c := range []struct {
		line, want string
		action     bool
	}{
		{line: "successThreshold: 3   # literal", want: "3"},
		{line: `timeout: "8"`, want: `"8"`},
		{line: `policy: 'On''Failure' # c`, want: `'On''Failure'`},
		{line: "probe: {periodSeconds: 5, timeoutSeconds: 8}", want: "5"},
		{line: "timeout: {{ .Values.timeout }}", action: true},
		{line: "timeout: 8{{ if .Values.x }}0{{ end }}", action: true},
		{line: "timeout: !!int 8"},
		{line: "timeout: &t 8"},
		{line: "timeout: *t"},
		{line: "timeout: |"},
		{line: "timeout: 8 seconds"},
		{line: "timeout: a:b"},
		{line: `timeout: "8`},
	} {
		at := strings.Index(c.line, ": ") + 2
		if strings.HasPrefix(c.line, "probe:") {
			at = strings.Index(c.line, "5")
		}
		start, end, _, err := scalarToken(c.line, at)
		switch {
		case c.want != "" && (err != nil || c.line[start:end] != c.want):
			t.Errorf("%q: token %q, %v; want %q", c.line, c.line[start:end], err, c.want)
		case c.want == "" && err == nil:
			t.Errorf("%q: token %q accepted", c.line, c.line[start:end])
		case c.want == "" && c.action != errors.Is(err, errAction):
			t.Errorf("%q: %v; want an action error: %v", c.line, err, c.action)
		}
	}
}

// TestWriteScalar: the new value keeps the old one's quoting, and a plain
// value that would not read back as itself is quoted.
func TestWriteScalar(t *testing.T) {
	for _, c := range []struct {
		value string
		quote byte
		want  string
	}{
		{"1", 0, "1"}, {"Always", 0, "Always"}, {"1", '"', `"1"`}, {"It's", '\'', `'It''s'`}, {"a b", 0, `"a b"`},
	} {
		if got, err := writeScalar(c.value, c.quote); err != nil || got != c.want {
			t.Errorf("writeScalar(%q, %q) = %q, %v; want %q", c.value, c.quote, got, err, c.want)
		}
	}
	if _, err := writeScalar("a\nb", 0); err == nil {
		t.Error("a value with a line break was written")
	}
}
