package render

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/podlint/podlint/manifest"
	yaml "go.yaml.in/yaml/v3"
)

var segRE = regexp.MustCompile(`([^.\[\]]+)|\[(\d+)\]`)

// segsFor turns "a.b[0].c" into a path through the rendered node n.
func segsFor(t *testing.T, n *yaml.Node, path string) []seg {
	t.Helper()
	var out []seg
	cur := deref(n)
	for _, m := range segRE.FindAllStringSubmatch(path, -1) {
		if m[1] != "" {
			out = append(out, seg{key: m[1], index: -1})
			_, cur = MapGet(cur, m[1])
			continue
		}
		i, _ := strconv.Atoi(m[2])
		if cur == nil || cur.Kind != yaml.SequenceNode || i >= len(cur.Content) {
			t.Fatalf("%s: no item %d", path, i)
		}
		out = append(out, seg{index: i, item: cur.Content[i]})
		cur = deref(cur.Content[i])
	}
	return out
}

const tmpl = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  template:
    spec:
      {{- with .Values.tolerations }}
      tolerations: {{ toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: sidecar
          image: busybox
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image }}"
          {{- if .Values.probe }}
          livenessProbe:
            {{- toYaml .Values.probe | nindent 12 }}
          {{- end }}
          readinessProbe:
            httpGet:
              path: /ready
              port: http
`

const rendered = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: sidecar
          image: busybox
        - name: app
          image: "nginx"
          livenessProbe:
            httpGet:
              path: /healthz
              port: 80
            initialDelaySeconds: 5
          readinessProbe:
            httpGet:
              path: /ready
              port: http
`

func TestLocateTemplate(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(rendered), &n); err != nil {
		t.Fatal(err)
	}
	tl := scanTemplate([]byte(tmpl))
	for _, tc := range []struct {
		path   string
		line   int
		exact  bool
		values string
	}{
		{"spec.template.spec.containers[1].readinessProbe.httpGet.port", 23, true, ""},
		{"spec.template.spec.containers[0].image", 13, true, ""},
		{"spec.template.spec.containers[1].image", 15, true, "image"},
		{"spec.template.spec.containers[1]", 14, true, ""},
		// Written by toYaml: the nearest literal key, and the values path.
		{"spec.template.spec.containers[1].livenessProbe.initialDelaySeconds", 17, false, "probe"},
		{"spec.template.spec.containers[1].livenessProbe", 17, true, "probe"},
		{"metadata.name", 4, true, ""},
	} {
		idx, _, depth := locateTemplate(tl, segsFor(t, &n, tc.path))
		p := segsFor(t, &n, tc.path)
		if idx+1 != tc.line || (depth == len(p)) != tc.exact {
			t.Errorf("%s: line %d exact %v, want %d %v", tc.path, idx+1, depth == len(p), tc.line, tc.exact)
		}
		vp := valuesPath(tl, idx)
		if got := joinDot(vp); got != tc.values {
			t.Errorf("%s: values %q, want %q", tc.path, got, tc.values)
		}
	}
}

func joinDot(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += "."
		}
		out += x
	}
	return out
}

// TestPathAt: positions the analyzer reports resolve to field paths; a list
// item resolves to the item, not its first key.
func TestPathAt(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(rendered), &n); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line, col int
		want      string
	}{
		{11, 11, "spec.template.spec.containers[1]"},
		{17, 34, "spec.template.spec.containers[1].livenessProbe.initialDelaySeconds"},
		{13, 11, "spec.template.spec.containers[1].livenessProbe"},
		{1, 1, ""},
	} {
		if got := pathString(pathAt(&n, tc.line, tc.col)); got != tc.want {
			t.Errorf("%d:%d = %q, want %q", tc.line, tc.col, got, tc.want)
		}
	}
}

// TestInlineJSONPatch: a field set by an inline JSON 6902 patch in the
// kustomization points at the patch's value line there.
func TestInlineJSONPatch(t *testing.T) {
	r := RenderKustomization("testdata/kustomize/probe-patch/overlay")
	if len(r.Problems) > 0 || len(r.Docs) != 1 {
		t.Fatalf("problems %v, %d docs", r.Problems, len(r.Docs))
	}
	m := &mapper{r: r, starts: []int{1}, files: newSourceFiles(manifest.Source{Path: "testdata/kustomize/probe-patch/overlay"})}
	for _, tc := range []struct {
		path      string
		file      string
		line, col int
		exact     bool
	}{
		{"spec.template.spec.containers[0].image", "overlay/kustomization.yaml", 12, 16, true},
		{"spec.template.spec.containers[0].livenessProbe.initialDelaySeconds", "overlay/slow-start.yaml", 12, 34, true},
		{"spec.template.spec.containers[0].readinessProbe.httpGet.port", "base/deployment.yaml", 22, 21, true},
		// A field no source holds (it is defaulted): its parent, not exact.
		{"spec.template.spec.containers[0].readinessProbe.timeoutSeconds", "base/deployment.yaml", 19, 11, false},
	} {
		w := m.locateKustomize(&r.Docs[0], segsFor(t, m.node(0), tc.path), "")
		want := filepath.Join("testdata/kustomize/probe-patch", tc.file)
		if w.file != want || w.line != tc.line || w.col != tc.col || w.exact != tc.exact {
			t.Errorf("%s: %s:%d:%d exact %v, want %s:%d:%d %v", tc.path, w.file, w.line, w.col, w.exact, want, tc.line, tc.col, tc.exact)
		}
	}
}

// TestPlan: bases of overlays in the same run are rendered through them.
func TestPlan(t *testing.T) {
	k := func(p string) manifest.Source {
		return manifest.Source{Path: filepath.Join("testdata/kustomize", p), Render: manifest.RenderKustomize}
	}
	named := k("ldap/base")
	named.Named = []string{"testdata/kustomize/ldap/base/deployment.yaml"}
	staging := k("ldap/overlays/staging")
	staging.Named = []string{"testdata/kustomize/ldap/overlays/staging/deployment.yaml"}
	got := Plan([]manifest.Source{named, k("ldap/overlays/production"), staging, k("helloWorld")})
	if len(got) != 3 {
		t.Fatalf("%d roots: %+v", len(got), got)
	}
	for _, s := range got[:2] {
		if len(s.Through) != 1 || s.Through[0] != named.Path {
			t.Errorf("%s: through %v, want the base", s.Path, s.Through)
		}
	}
	if got[0].Named != nil {
		t.Errorf("production was given whole: named %v", got[0].Named)
	}
	if len(got[1].Named) != 2 {
		t.Errorf("staging: named %v, want its file and the base's", got[1].Named)
	}
	if got[2].Path != k("helloWorld").Path || got[2].Through != nil {
		t.Errorf("helloWorld: %+v", got[2])
	}
}

func TestNameMatch(t *testing.T) {
	for _, tc := range []struct {
		name, part string
		want       bool
	}{
		{"prod-api-v2", "api", true},
		{"prod-api-v2", "api-v2", true},
		{"prod-api-v2", "pi", false},
		{"api", "api", true},
	} {
		if got := nameMatch(tc.name, regexp.QuoteMeta(tc.part)); got != tc.want {
			t.Errorf("nameMatch(%q, %q) = %v", tc.name, tc.part, got)
		}
	}
}

// TestDropPatches: a file that a kustomization of the run applies as a
// patch is never linted as a whole object, whether the kustomization is
// rendered or (--render=never) linted file by file; named on the command
// line, it joins the files its kustomization reports on.
func TestDropPatches(t *testing.T) {
	const dir = "testdata/kustomize/patch-file"
	patch := filepath.Join(dir, "patches", "web.yaml")
	srcs, _, errs := manifest.Discover([]string{dir}, nil, false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if !slices.ContainsFunc(srcs, func(s manifest.Source) bool { return s.Path == patch }) {
		t.Fatalf("discovery without rendering does not list %s: %+v", patch, srcs)
	}
	for _, s := range DropPatches(srcs) {
		if s.Path == patch {
			t.Errorf("--render=never: %s is linted whole", patch)
		}
	}
	if got := DropPatches(srcs); len(got) != len(srcs)-1 {
		t.Errorf("--render=never: %d sources left of %d, want all but the patch", len(got), len(srcs))
	}

	root := manifest.Source{Path: dir, Render: manifest.RenderKustomize, Named: []string{filepath.Join(dir, "deployment.yaml")}}
	got := Plan([]manifest.Source{{Path: patch, Explicit: true}, root})
	if len(got) != 1 || got[0].Path != dir {
		t.Fatalf("rendering: %+v, want the kustomization alone", got)
	}
	if want := []string{filepath.Join(dir, "deployment.yaml"), patch}; !slices.Equal(got[0].Named, want) {
		t.Errorf("rendering: named %q, want %q", got[0].Named, want)
	}
}
