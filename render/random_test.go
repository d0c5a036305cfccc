package render

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestRandomFunctionsRepeat: a chart that names its Pods with Sprig's random
// functions renders the same names in every run, also while other charts
// render at the same time, so findings and SARIF fingerprints stay put.
func TestRandomFunctionsRepeat(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: rnd\nversion: 0.1.0\n",
		"templates/pod.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: test-{{ randAlphaNum 5 | lower }}-{{ randAlpha 3 | lower }}-{{ randNumeric 3 }}
  annotations:
    id: {{ uuidv4 | quote }}
    bytes: {{ randBytes 8 | quote }}
    ascii: {{ randAscii 8 | quote }}
spec:
  containers:
    - {name: app, image: app:1}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	render := func() string {
		r := RenderChart(dir, HelmOptions{KubeVersion: "1.33"})
		if len(r.Problems) > 0 || len(r.Docs) != 1 {
			t.Fatalf("rendered %d documents, problems %+v", len(r.Docs), r.Problems)
		}
		return r.Docs[0].YAML
	}
	first := render()
	if strings.Contains(first, "{{") || !strings.Contains(first, "name: test-") {
		t.Fatalf("not rendered:\n%s", first)
	}
	var wg sync.WaitGroup
	got := make([]string, 6)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				got[i] = render()
				return
			}
			RenderChart(filepath.Join("testdata", "helm", "podinfo"), HelmOptions{KubeVersion: "1.33"})
		}()
	}
	wg.Wait()
	for i := 0; i < len(got); i += 2 {
		if got[i] != first {
			t.Errorf("render %d differs from the first:\n%s\n---\n%s", i, got[i], first)
		}
	}
}
