package rulestest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/rules/rulestest"
)

// fakeT records what the harness reports instead of failing the test.
type fakeT struct{ errs []string }

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// pod has two containers named app: PL010 (duplicate-container-name)
// reports the second's name at line 7, column 14.
const pod = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - {name: app, image: nginx}
    - {name: app, image: nginx}%s
`

// TestRunFailsOnMismatch: the harness passes a file whose wants are its
// findings, and fails, saying which and where, a finding no want expects,
// a want no finding meets (wrong text, column, line or rule) and a want it
// cannot read.
func TestRunFailsOnMismatch(t *testing.T) {
	dup := rules.DuplicateContainerName
	for _, tc := range []struct {
		name, comment string
		want          []string // substrings of the errors, one per error
	}{
		{"met", ` # want PL010:14 "already used"`, nil},
		{"met by name, any column", ` # want duplicate-container-name "app"`, nil},
		{"met from the line below", "\n# want -1 PL010 \"^error: \"", nil},
		{"no want", "", []string{`p.yaml:7:14: unexpected finding PL010 (duplicate-container-name)`}},
		{"wrong text", ` # want PL010 "restart"`, []string{"unexpected finding PL010", `p.yaml:7: no finding matched want PL010 "restart"`}},
		{"wrong column", ` # want PL010:7 "already used"`, []string{"unexpected finding PL010", "no finding matched want PL010:7"}},
		{"wrong line", ` # want +1 PL010 "already used"`, []string{"unexpected finding PL010", "p.yaml:8: no finding matched want +1 PL010"}},
		{"wrong rule", ` # want PL101 "already used"`, []string{"unexpected finding PL010", "no finding matched want PL101"}},
		{"two want comments, one finding", ` # want PL010 "app" # want PL010:14 "used"`, []string{`no finding matched want PL010:14 "used"`}},
		{"two wants, one finding", ` # want PL010 "already used" PL010 "app"`, []string{`no finding matched want PL010 "app"`}},
		{"unknown rule", ` # want PL999 "x"`, []string{`want names unknown rule "PL999"`}},
		{"malformed", ` # want PL010 already`, []string{"malformed want"}},
		{"bad regexp", ` # want PL010 "("`, []string{"bad regexp in want"}},
		{"bad setup", "\n# podlint-test: kube-version=one", []string{"p.yaml:8: kube-version:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.yaml")
			if err := os.WriteFile(path, []byte(fmt.Sprintf(pod, tc.comment)), 0o644); err != nil {
				t.Fatal(err)
			}
			ft := &fakeT{}
			rulestest.Run(ft, analyzer.Default(analyzer.Only(dup)), path)
			if len(ft.errs) != len(tc.want) {
				t.Fatalf("errors %q, want %d containing %q", ft.errs, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(ft.errs[i], w) {
					t.Errorf("error %d: %q, want it to contain %q", i+1, ft.errs[i], w)
				}
			}
		})
	}
}

// TestRunSetup: a podlint-test line enables a rule for its file only, and
// Run returns what each file ran with, found and expected.
func TestRunSetup(t *testing.T) {
	dir := t.TempDir()
	// PL601 (best-effort-qos), off by default, reports at the container.
	const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api%s
          image: example/api:3
`
	on, off := filepath.Join(dir, "on.yaml"), filepath.Join(dir, "off.yaml")
	for path, comment := range map[string]string{on: " # want PL601:11 \"BestEffort\"\n# podlint-test: enable=PL601", off: ""} {
		if err := os.WriteFile(path, []byte(fmt.Sprintf(deployment, comment)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ft := &fakeT{}
	l := analyzer.Default()
	res := rulestest.Run(ft, l, on, off)
	if len(ft.errs) != 0 {
		t.Fatalf("errors: %q", ft.errs)
	}
	if len(res) != 2 || len(res[0].Findings) != 1 || len(res[0].Wants) != 1 || len(res[1].Findings) != 0 || len(res[1].Wants) != 0 {
		t.Fatalf("results %+v", res)
	}
	if res[0].Linter == l || !res[0].Linter.Enabled(rules.BestEffortQoS) || l.Enabled(rules.BestEffortQoS) || res[1].Linter != l {
		t.Error("the podlint-test line did not change a copy of the Linter for its file only")
	}
}

// TestRunSource: the wants of every file under a render root are checked
// against the findings of the whole root, placed in those files by the
// root's source map; here a toy renderer, which concatenates the files.
func TestRunSource(t *testing.T) {
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "a.yaml"), filepath.Join(dir, "sub", "b.yaml")}
	for i, data := range []string{fmt.Sprintf(pod, ` # want PL010:14 "already used"`), fmt.Sprintf(pod, "")} {
		if err := os.MkdirAll(filepath.Dir(files[i]), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(files[i], []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := analyzer.Default(analyzer.Only(rules.DuplicateContainerName))
	l.Open = func(src manifest.Source) (*manifest.RenderedRoot, error) {
		m := &concatMap{}
		var stream []byte
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			stream = append(stream, "---\n"...)
			m.add(f, strings.Count(string(stream), "\n"), strings.Count(string(data), "\n"))
			stream = append(stream, data...)
		}
		return &manifest.RenderedRoot{Label: dir, RootFile: files[0], Stream: stream, Paths: files, Map: m}, nil
	}
	ft := &fakeT{}
	found := rulestest.RunSource(ft, l, manifest.Source{Path: dir, Render: manifest.RenderKustomize})
	if len(found) != 2 || len(ft.errs) != 1 || !strings.Contains(ft.errs[0], filepath.Join("sub", "b.yaml")+":7:14: unexpected finding PL010") {
		t.Errorf("%d findings, errors %q; want 2 findings and one error, the finding in sub/b.yaml no want expects", len(found), ft.errs)
	}
}

// concatMap places the lines of a stream of concatenated files in them.
type concatMap struct {
	files       []string
	first, last []int // the stream lines of each file
}

func (m *concatMap) add(file string, before, lines int) {
	m.files = append(m.files, file)
	m.first, m.last = append(m.first, before+1), append(m.last, before+lines)
}

func (m *concatMap) Locate(line, col int, path string) manifest.Mapped {
	for i, f := range m.files {
		if m.first[i] <= line && line <= m.last[i] {
			return manifest.Mapped{File: f, Line: line - m.first[i] + 1, Column: col, CodePointColumn: col, Path: path, Doc: i}
		}
	}
	return manifest.Mapped{Doc: -1}
}

func (m *concatMap) File(p string) []byte {
	data, _ := os.ReadFile(p)
	return data
}

func (m *concatMap) Close() {}
