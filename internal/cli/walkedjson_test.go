package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalkedJSONSkipped checks that a folder walk skips, and counts, the
// .json files that are not Kubernetes objects (a package.json, a tsconfig
// with comments, a JSON schema, the report a previous run wrote) while a
// broken JSON manifest is still reported, and a non-manifest .json named on
// the command line is still an error.
func TestWalkedJSONSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"package.json":       `{"name": "site", "version": "1.0.0"}`,
		"tsconfig.json":      "{\n  // strict mode\n  \"compilerOptions\": {\"strict\": true}\n}\n",
		"schema/values.json": `{"$schema": "http://json-schema.org/schema#", "properties": {"kind": {"type": "string"}}}`,
		"k8s/cm.json":        `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}`,
	})
	// The report of a run over the folder, written into it.
	code, _, stderr := run(t, "", nil, "check", "--no-config", "-f", "json", "-o", filepath.Join(dir, "report.json"), dir)
	if code != 0 {
		t.Fatalf("clean folder: exit %d, %s", code, stderr)
	}
	out, code, stderr := checkJSON(t, dir)
	if code != 0 || len(out.Findings) != 0 {
		t.Errorf("walked non-manifest JSON: exit %d, findings %+v, stderr %s", code, out.Findings, stderr)
	}
	var sum struct {
		Summary struct{ Files, Skipped, Objects int }
	}
	_, stdout, _ := run(t, "", nil, "check", "--no-config", "-f", "json", dir)
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Summary.Files != 1 || sum.Summary.Skipped != 4 || sum.Summary.Objects != 1 {
		t.Errorf("summary %+v (%v); want 1 file, 4 skipped, 1 object", sum.Summary, err)
	}
	if _, text, _ := run(t, "", nil, "check", "--no-config", dir); !strings.Contains(text, "1 file, 1 object (0 workloads), 4 JSON files skipped (not Kubernetes objects): no findings") {
		t.Errorf("text summary:\n%s", text)
	}

	writeFiles(t, dir, map[string]string{"k8s/broken.json": `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"`})
	out, code, _ = checkJSON(t, dir)
	if code != 1 || len(out.Findings) != 1 || out.Findings[0].ID != "PL001" || !strings.HasSuffix(out.Findings[0].File, "broken.json") {
		t.Errorf("a broken JSON manifest must still be reported: exit %d, %+v", code, out.Findings)
	}
	out, code, _ = checkJSON(t, filepath.Join(dir, "tsconfig.json"))
	if code != 1 || len(out.Findings) != 1 || out.Findings[0].ID != "PL001" {
		t.Errorf("tsconfig.json named on the command line: exit %d, %+v; want PL001", code, out.Findings)
	}
}
