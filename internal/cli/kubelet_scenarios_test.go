package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestKubeletScenarioPredictions keeps the predictions the real-kubelet
// harness's recorded runs are evaluated against (e2e/kubelet/testdata/quiet:
// NAME.yaml, the scenario's manifest, and NAME.json) equal to what
// `podlint timeline -f json --no-config -` computes now, as the harness
// calls it. e2e/kubelet's TestQuietRun then holds the observations of a
// real kubelet against them; that module cannot import podlint, so this
// test is the link. -update rewrites NAME.json.
func TestKubeletScenarioPredictions(t *testing.T) {
	dir := filepath.Join("..", "..", "e2e", "kubelet", "testdata", "quiet")
	manifests, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(manifests) < 4 {
		t.Fatalf("%d scenario manifests in %s, want the 4 of the quiet run: %v", len(manifests), dir, err)
	}
	for _, m := range manifests {
		name := strings.TrimSuffix(filepath.Base(m), ".yaml")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := Run([]string{"podlint", "timeline", "-f", "json", "--no-config", "-"}, bytes.NewReader(in), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var doc struct{ Objects []any }
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil || len(doc.Objects) != 1 {
				t.Fatalf("%d objects, want 1: %v", len(doc.Objects), err)
			}
			file := filepath.Join(dir, name+".json")
			if *update {
				b, err := json.MarshalIndent(doc.Objects[0], "", " ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if !reflect.DeepEqual(doc.Objects[0], want) {
				t.Errorf("%s is not what podlint predicts now (go test ./internal/cli -run TestKubeletScenarioPredictions -update rewrites it; then e2e/kubelet's TestQuietRun checks the observations against it)", file)
			}
		})
	}
}
