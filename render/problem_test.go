package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestProblemShape holds every render problem to the shape of a finding:
// a headline of one sentence, at most headlineMax characters, no trailing
// period; a detail, when there is one, in full sentences.
func TestProblemShape(t *testing.T) {
	tmp := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("nochart/Chart.yaml", "apiVersion: v2\nname: x\n")
	write("badvalues/Chart.yaml", "apiVersion: v2\nname: x\nversion: 0.1.0\n")
	bad := write("badvalues/bad.yaml", "a: [\n")
	write("missing/kustomization.yaml", "resources:\n  - "+strings.Repeat("very-long-name-", 8)+".yaml\n")
	write("remote/kustomization.yaml", "resources:\n  - https://github.com/"+strings.Repeat("org/", 20)+"base?ref=v1\n")
	cases := map[string]*Output{
		"subchart":      RenderChart(filepath.Join("testdata", "helm", "subchart"), HelmOptions{KubeVersion: "1.30"}),
		"missing-dep":   RenderChart(filepath.Join("testdata", "helm", "missing-dep"), HelmOptions{}),
		"syntax-error":  RenderChart(filepath.Join("testdata", "helm", "syntax-error"), HelmOptions{}),
		"no-version":    RenderChart(filepath.Join(tmp, "nochart"), HelmOptions{}),
		"bad-values":    RenderChart(filepath.Join(tmp, "badvalues"), HelmOptions{Values: []string{bad, filepath.Join(tmp, "absent.yaml")}, Set: []string{"a[=1"}}),
		"remote-base":   RenderKustomization(filepath.Join("testdata", "kustomize", "remote-base")),
		"missing-entry": RenderKustomization(filepath.Join(tmp, "missing")),
		"long-remote":   RenderKustomization(filepath.Join(tmp, "remote")),
	}
	n := 0
	for name, r := range cases {
		if len(r.Problems) == 0 {
			t.Errorf("%s: no problem", name)
		}
		for _, p := range r.Problems {
			n++
			t.Logf("%s: %s | %s", name, p.Message, p.Detail)
			where := name + ": headline " + p.Message
			if c := utf8.RuneCountInString(p.Message); c == 0 || c > headlineMax {
				t.Errorf("%s: %d characters", where, c)
			}
			if strings.ContainsAny(p.Message, ";\n") || strings.HasSuffix(p.Message, ".") {
				t.Errorf("%s: not one sentence without a final period", where)
			}
			if p.Detail != "" && !strings.HasSuffix(p.Detail, ".") {
				t.Errorf("%s: detail %q does not end with a period", where, p.Detail)
			}
		}
	}
	t.Logf("%d problems checked", n)
}
