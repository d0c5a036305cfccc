package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestTimelineGolden pins `podlint timeline` on the shipped examples in every
// format. Regenerate with go test ./internal/cli -run TestTimelineGolden -update.
func TestTimelineGolden(t *testing.T) {
	golden, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	withProfiles(t, observedDay)
	t.Chdir(filepath.Join("..", ".."))
	// With a profile: the storefront and the model server are in it, the
	// api is not.
	observed := []string{"--observed", observedProfile, "testdata/examples/web-deployment.yaml", "testdata/examples/model-server.yaml", "testdata/examples/healthy-deployment.yaml"}
	cases := []struct {
		name string
		args []string
	}{
		{"timeline.txt", []string{"timeline", "--no-config", "--color", "never", "testdata/examples"}},
		{"timeline.json", []string{"timeline", "--no-config", "-f", "json", "testdata/examples"}},
		{"timeline.mermaid.md", []string{"timeline", "--no-config", "-f", "mermaid", "testdata/examples"}},
		{"timeline-web.svg", []string{"timeline", "--no-config", "-f", "svg", "testdata/examples/web-deployment.yaml"}},
		{"timeline-observed.txt", append([]string{"timeline", "--no-config", "--color", "never"}, observed...)},
		{"timeline-observed.json", append([]string{"timeline", "--no-config", "-f", "json"}, observed...)},
		{"timeline-observed.mermaid.md", append([]string{"timeline", "--no-config", "-f", "mermaid"}, observed...)},
		{"timeline-web-observed.svg", []string{"timeline", "--no-config", "-f", "svg", "--observed", observedProfile, "testdata/examples/web-deployment.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Run(append([]string{"podlint"}, tc.args...), strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			path := filepath.Join(golden, tc.name)
			if *update {
				os.MkdirAll(golden, 0o755)
				if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output differs from %s (run with -update to accept):\n%s", path, out.String())
			}
			if strings.HasSuffix(tc.name, ".svg") {
				dec := xml.NewDecoder(bytes.NewReader(out.Bytes()))
				for {
					if _, err := dec.Token(); err == io.EOF {
						break
					} else if err != nil {
						t.Fatalf("SVG is not well-formed XML: %v", err)
					}
				}
			}
		})
	}
}

// TestTimelineSVGDirectory writes one chart per workload with -o DIR.
func TestTimelineSVGDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(filepath.Join("..", ".."))
	var out, errb bytes.Buffer
	if code := Run([]string{"podlint", "timeline", "--no-config", "-f", "svg", "-o", dir, "testdata/examples"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.svg"))
	examples, _ := filepath.Glob(filepath.Join("testdata", "examples", "*.yaml"))
	if len(examples) < 2 || len(files) != len(examples) {
		t.Errorf("wrote %d charts, want one per example workload (%d, one a file): %v", len(files), len(examples), files)
	}
	if code := Run([]string{"podlint", "timeline", "--no-config", "-f", "svg", "testdata/examples"}, strings.NewReader(""), &out, &errb); code != 2 {
		t.Errorf("several workloads without -o DIR: exit %d, want 2", code)
	}
}

// TestTimelineRenders: `podlint timeline` renders a Helm chart or a
// kustomization as check does, and names for each workload the file that
// declares it (the template, the base resource, not a patch); --render
// never keeps the old hint.
func TestTimelineRenders(t *testing.T) {
	type item struct {
		File string `json:"file"`
		Line int    `json:"line"`
		Kind string `json:"kind"`
		Name string `json:"name"`
	}
	for _, tc := range []struct {
		dir, file, name string
		values          []string
	}{
		{renderData + "/helm/podinfo", renderData + "/helm/podinfo/templates/deployment.yaml", "release-name-podinfo", nil},
		{renderData + "/helm/podinfo", renderData + "/helm/podinfo/templates/deployment.yaml", "shop-podinfo", []string{"--release-name", "shop"}},
		{renderData + "/kustomize/features/overlay", renderData + "/kustomize/features/base/deployment.yaml", "prod-app", nil},
	} {
		args := append(append([]string{"podlint", "timeline", "--no-config", "-f", "json"}, tc.values...), tc.dir)
		var out, errb bytes.Buffer
		if code := Run(args, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var doc struct {
			Objects []item `json:"objects"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		var found bool
		for _, o := range doc.Objects {
			if o.Kind == "Deployment" && o.Name == tc.name {
				found = true
				if o.File != tc.file || o.Line != 2 {
					t.Errorf("%v: %s at %s:%d, want %s:2 (its kind)", args, o.Name, o.File, o.Line, tc.file)
				}
			}
		}
		if !found {
			t.Errorf("%v: no Deployment %s in %+v", args, tc.name, doc.Objects)
		}
	}
	var out, errb bytes.Buffer
	Run([]string{"podlint", "timeline", "--no-config", "--render", "never", renderData + "/helm/podinfo"}, strings.NewReader(""), &out, &errb)
	if !strings.Contains(errb.String(), "is a Helm chart") {
		t.Errorf("--render never: stderr %q, want the hint that the folder is a chart", errb.String())
	}
}
