package analyzer

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// fakeMap is a source map that moves every field to t.yaml, 100 lines
// down, approximate for timeoutSeconds, and records what it was asked.
type fakeMap struct {
	paths  []string
	closed int
	panics bool
}

func (m *fakeMap) Locate(line, col int, path string) manifest.Mapped {
	if m.panics {
		panic("template too unusual")
	}
	m.paths = append(m.paths, path)
	return manifest.Mapped{File: "chart/templates/t.yaml", Line: line + 100, Column: col, Path: path, Template: "chart/templates/t.yaml",
		Approximate: strings.HasSuffix(path, "timeoutSeconds")}
}
func (m *fakeMap) File(string) []byte { return nil }
func (m *fakeMap) Close()             { m.closed++ }

const renderedStream = `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: example/web:1
          livenessProbe:
            httpGet: {path: /, port: 80}
            periodSeconds: 10
            timeoutSeconds: 20
`

// TestRootLintsRenderedDocuments: a render root is linted through the
// render stage's output like a file (cfg.Open), and each finding is moved
// by the source map, asked by the finding's field path; the map's
// approximate flag becomes Rendered.Approximate, and the message and
// detail stay the rule's (the writers add the words). A panic in the map
// becomes one chart-render-error at the root.
func TestRootLintsRenderedDocuments(t *testing.T) {
	t.Parallel()
	src := manifest.Source{Path: "chart", Render: manifest.RenderHelm}
	m := &fakeMap{}
	cfg := Default(Only(rules.ProbeTimeoutExceedsPeriod, rules.ChartRenderError))
	cfg.Open = func(s manifest.Source) (*manifest.RenderedRoot, error) {
		return &manifest.RenderedRoot{Label: "chart (helm chart)", RootFile: "chart/Chart.yaml", Stream: []byte(renderedStream), Paths: []string{"/repo/chart/templates/deployment.yaml"}, Map: m}, nil
	}
	fs, sum, err := cfg.Root(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].RuleID != rules.ProbeTimeoutExceedsPeriod.ID {
		t.Fatalf("findings %+v, want one %s", fs, rules.ProbeTimeoutExceedsPeriod.ID)
	}
	f := fs[0]
	want := "spec.template.spec.containers[0].livenessProbe.timeoutSeconds"
	if f.File != "chart/templates/t.yaml" || f.Line != 116 || f.Rendered == nil || f.Rendered.Root != "chart" || f.Rendered.Path != want ||
		f.Rendered.Name != "chart/templates/t.yaml" || !f.Rendered.Approximate {
		t.Errorf("finding at %s:%d rendered %+v, want chart/templates/t.yaml:116, root chart, path %s, approximate", f.File, f.Line, f.Rendered, want)
	}
	if len(m.paths) != 1 || m.paths[0] != want {
		t.Errorf("the map was asked for %q, want the finding's path %q", m.paths, want)
	}
	if strings.Contains(f.Message, "rendered output") || strings.Contains(f.Detail, "closest one found") || strings.Contains(f.Detail, "Rendered from") {
		t.Errorf("the loader edited the text: %q %q", f.Message, f.Detail)
	}
	if !strings.HasSuffix(f.Headline(), " (in the rendered output)") {
		t.Errorf("headline %q", f.Headline())
	}
	if sum.Files != 1 || sum.Workloads != 1 || len(sum.Rendered) != 1 || sum.Rendered[0] != "chart (helm chart)" {
		t.Errorf("summary %+v", sum)
	}
	if m.closed != 1 {
		t.Errorf("map closed %d times, want 1", m.closed)
	}

	m.panics = true
	fs, _, err = cfg.Root(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].RuleID != rules.ChartRenderError.ID || fs[0].File != "chart/Chart.yaml" || fs[0].Message != "rendering crashed inside helm" {
		t.Errorf("after a panic in the map: %+v", fs)
	}
}
