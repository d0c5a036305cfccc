package render

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

// FuzzRenderTree renders small generated chart and kustomization trees
// through the limited child process, as podlint check does: whatever the
// files hold, the run ends (a limit at worst), the child never dies in a
// way podlint does not recognize, every finding has a position, and a
// second run gives the same findings. Crashers are kept in testdata/fuzz/FuzzRenderTree/.
//
// Each input is a tree: helm picks a chart (values.yaml, a template and a
// helpers file) or a kustomization (kustomization.yaml, a resource, a
// patch and a base).
func FuzzRenderTree(f *testing.F) {
	f.Add(true, "replicas: 2\n", "apiVersion: v1\nkind: Pod\nmetadata: {name: {{ .Release.Name }}}\nspec:\n  containers: [{name: a, image: x, livenessProbe: {exec: {command: [x]}, periodSeconds: {{ .Values.replicas }}}}]\n", `{{- define "x" -}}y{{- end -}}`)
	f.Add(true, "", `{{ include "d" . }}`, `{{- define "d" -}}{{ include "d" . }}{{- end -}}`)
	f.Add(false, "resources: [pod.yaml]\npatches: [{path: patch.yaml}]\n", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: nginx}]\n", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  terminationGracePeriodSeconds: 5\n")
	f.Add(false, "resources: [pod.yaml, base]\nnamePrefix: p-\n", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "")
	f.Add(false, "resources: [github.com/org/repo]\n", "", "")
	f.Add(false, "patches: [{path: ../../dev/zero}]\nresources: [pod.yaml]\n", "kind: Pod\n", "")
	lim := Limits{CPU: time.Second, Memory: 256 << 20, Wall: 30 * time.Second, Output: 4 << 20}
	f.Fuzz(func(t *testing.T, helm bool, a, b, c string) {
		dir := t.TempDir()
		src := manifest.Source{Path: dir, Render: manifest.RenderKustomize}
		files := map[string]string{"kustomization.yaml": a, "pod.yaml": b, "patch.yaml": c,
			"base/kustomization.yaml": "resources: [cm.yaml]\n", "base/cm.yaml": c}
		if helm {
			src.Render = manifest.RenderHelm
			files = map[string]string{"Chart.yaml": "apiVersion: v2\nname: fuzz\nversion: 0.1.0\n", "values.yaml": a,
				"templates/a.yaml": b, "templates/_helpers.tpl": c}
		}
		for name, content := range files {
			writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
		}
		o := &Options{KubeVersion: "1.30", Limits: lim}
		first, _, err := o.Lint(lintConfig(), src)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range first {
			if fd.File == "" || fd.Line < 1 || fd.Column < 1 {
				t.Fatalf("finding without a position: %s:%d:%d %s", fd.File, fd.Line, fd.Column, fd.Message)
			}
			// The child died in a way podlint did not recognize.
			if strings.HasPrefix(fd.Message, "rendering crashed, so nothing") {
				t.Fatalf("%s: %s", fd.Message, fd.Detail)
			}
		}
		again, _, _ := o.Lint(lintConfig(), src)
		if !reflect.DeepEqual(first, again) && !limited(first) && !limited(again) {
			t.Fatalf("two runs differ:\n%s\n%s", dump(first), dump(again))
		}
	})
}

// limited reports whether a limit stopped rendering: which limit is hit
// first may depend on the machine's load.
func limited(fs []finding.Finding) bool {
	for _, f := range fs {
		if limitHit.MatchString(f.Message) {
			return true
		}
	}
	return false
}
