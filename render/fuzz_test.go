package render

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/testgit"
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
// patch and a base). gitMode makes the tree a checkout (issue 34): bits
// 0-1 pick no git, a .git folder whose index tracks every file, one whose
// index leaves the template or resource out, or one whose index is the
// patch's text (mostly not an index: the strict rule); bit 2 adds a
// tracked leak.yaml -> .git/config, bit 3 a .git folder inside the tree.
// A checkout holds a token in .git/config and an untracked
// gha-creds-f.json, and no finding may hold either, plain or in base64.
func FuzzRenderTree(f *testing.F) {
	f.Add(true, "replicas: 2\n", "apiVersion: v1\nkind: Pod\nmetadata: {name: {{ .Release.Name }}}\nspec:\n  containers: [{name: a, image: x, livenessProbe: {exec: {command: [x]}, periodSeconds: {{ .Values.replicas }}}}]\n", `{{- define "x" -}}y{{- end -}}`, uint8(0))
	f.Add(true, "", `{{ include "d" . }}`, `{{- define "d" -}}{{ include "d" . }}{{- end -}}`, uint8(0))
	f.Add(false, "resources: [pod.yaml]\npatches: [{path: patch.yaml}]\n", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: nginx}]\n", "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  terminationGracePeriodSeconds: 5\n", uint8(0))
	f.Add(false, "resources: [pod.yaml, base]\nnamePrefix: p-\n", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "", uint8(1))
	f.Add(false, "resources: [github.com/org/repo]\n", "", "", uint8(0))
	f.Add(false, "patches: [{path: ../../dev/zero}]\nresources: [pod.yaml]\n", "kind: Pod\n", "", uint8(0))
	f.Add(true, "", `{{ fail (printf "%s %s" (.Files.Get ".git/config" | b64enc) (.Files.Get "leak.yaml")) }}`, `{{ range $p, $_ := .Files.Glob "**" }}{{ $.Files.Get $p }}{{ end }}`, uint8(1|4))
	f.Add(true, "", `a: {{ range $p, $_ := .Files.Glob "**" }}{{ $p }}{{ $.Files.Get $p | b64enc }}{{ end }}`, "", uint8(2|8))
	f.Add(false, "configMapGenerator: [{name: c, files: [.git/config, gha-creds-f.json, leak.yaml]}]\nresources: [pod.yaml]\n", "kind: Pod\n", "", uint8(1|4))
	f.Add(false, "configMapGenerator: [{name: c, envs: [.git/config]}]\nresources: [templates/.git/config]\n", "kind: Pod\n", "DIRC", uint8(3|8))
	lim := Limits{CPU: time.Second, Memory: 256 << 20, Wall: 30 * time.Second, Output: 4 << 20}
	f.Fuzz(func(t *testing.T, helm bool, a, b, c string, gitMode uint8) {
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
		if gitMode&3 != 0 {
			fuzzCheckout(t, dir, files, gitMode, c)
		}
		src.Root = dir
		o := &Options{KubeVersion: "1.30", Limits: lim}
		first, _, err := o.Lint(lintConfig(), src)
		if err != nil {
			t.Fatal(err)
		}
		if f := leaked(fmt.Sprintf("%+v", first)); f != "" {
			t.Fatalf("a finding holds %q: %s", f, dump(first))
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

// fuzzCheckout makes dir a checkout of the files (see FuzzRenderTree).
func fuzzCheckout(t *testing.T, dir string, files map[string]string, gitMode uint8, index string) {
	tracked := map[string]uint32{}
	for name := range files {
		tracked[name] = testgit.File
	}
	if gitMode&3 == 2 {
		delete(tracked, "templates/a.yaml")
		delete(tracked, "pod.yaml")
	}
	if gitMode&4 != 0 {
		if err := os.Symlink(".git/config", filepath.Join(dir, "leak.yaml")); err != nil {
			t.Skip("no symbolic links here:", err)
		}
		tracked["leak.yaml"] = testgit.Link
	}
	if err := testgit.InitModes(dir, tracked); err != nil {
		t.Fatal(err)
	}
	if gitMode&3 == 3 {
		writeFile(t, filepath.Join(dir, ".git/index"), index)
	}
	secret := "[http]\n\textraheader = AUTHORIZATION: basic " + checkoutToken + "\n"
	writeFile(t, filepath.Join(dir, ".git/config"), secret)
	if gitMode&8 != 0 {
		writeFile(t, filepath.Join(dir, "templates/.git/config"), secret)
	}
	writeFile(t, filepath.Join(dir, "gha-creds-f.json"), `{"private_key": "`+checkoutCreds+`"}`)
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
