package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSubchartsAndExecutionErrors: subcharts under charts/ are rendered
// with the parent's values for them; a template failing at execution is a
// problem at the line and column Helm reports, and the others still render.
func TestSubchartsAndExecutionErrors(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"Chart.yaml":                      "apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n  - name: cache\n    version: 0.1.0\n",
		"values.yaml":                     "cache:\n  size: 2\n",
		"templates/pod.yaml":              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  containers:\n    - name: app\n      image: nginx\n",
		"templates/needs.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  token: {{ required \"token is required\" .Values.token }}\n",
		"charts/cache/Chart.yaml":         "apiVersion: v2\nname: cache\nversion: 0.1.0\n",
		"charts/cache/values.yaml":        "size: 1\n",
		"charts/cache/templates/sts.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: cache\nspec:\n  replicas: {{ .Values.size }}\n",
	})
	r := RenderChart(dir, HelmOptions{KubeVersion: "1.30"})
	if len(r.Problems) != 1 {
		t.Fatalf("problems %+v, want the required value", r.Problems)
	}
	p := r.Problems[0]
	if p.File != filepath.Join(dir, "templates/needs.yaml") || p.Line != 6 || p.Column < 10 || !strings.Contains(p.Message, "token is required") {
		t.Errorf("problem %+v, want templates/needs.yaml:6 token is required", p)
	}
	sources := map[string]string{}
	for _, d := range r.Docs {
		sources[d.Name] = d.Source
		if d.Name == "shop/charts/cache/templates/sts.yaml" && !strings.Contains(d.YAML, "replicas: 2") {
			t.Errorf("subchart rendered without the parent's values:\n%s", d.YAML)
		}
	}
	if sources["shop/charts/cache/templates/sts.yaml"] != filepath.Join(dir, "charts/cache/templates/sts.yaml") || sources["shop/templates/pod.yaml"] == "" {
		t.Errorf("rendered %v, want the pod and the subchart's StatefulSet", sources)
	}
}
