package fix_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
)

// probeJSON is a Deployment written as kubectl writes JSON, whose liveness
// probe times out after its period (PL106: two unsafe fixes, one of which
// inserts periodSeconds) and whose readiness probe has a successThreshold
// PL113 sets.
const probeJSON = `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "web"},
  "spec": {
    "selector": {"matchLabels": {"app": "web"}},
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "containers": [
          {"name": "web", "image": "nginx:1.27",
           "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "timeoutSeconds": 20},
           "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "timeoutSeconds": 2}}
        ]
      }
    }
  }
}
`

// TestJSONFixesStayJSON: every fix offered for a .json manifest, and the
// file podlint fix writes, decode with encoding/json (before, inserting
// periodSeconds wrote an unquoted key: YAML, not JSON, which kubectl
// rejects).
func TestJSONFixesStayJSON(t *testing.T) {
	cfg := analyzer.Default()
	path := "web.json"
	data := []byte(probeJSON)
	before, _ := cfg.File(path, data, true)
	var cands []fix.Candidate
	for i := range before {
		for j := range before[i].Fixes {
			cands = append(cands, fix.Candidate{Finding: &before[i], Fix: &before[i].Fixes[j]})
		}
	}
	verified := 0
	titles := []string{}
	for k, err := range fix.VerifyAll(cfg, path, data, before, cands) {
		x := cands[k].Fix
		out, aerr := finding.ApplyEdits(data, x.Edits)
		if aerr != nil {
			t.Fatal(aerr)
		}
		if err != nil {
			if json.Valid(out) {
				t.Errorf("%s: valid JSON, but not verified: %v", x.Title, err)
			}
			continue
		}
		verified++
		titles = append(titles, x.Title)
		if !json.Valid(out) {
			t.Errorf("%s: verified, but the edited file is not JSON:\n%s", x.Title, out)
		}
	}
	if !strings.Contains(strings.Join(titles, "\n"), "Raise periodSeconds to 20") {
		t.Errorf("the fix that inserts periodSeconds was not verified; verified: %q", titles)
	}
	res := fix.File(cfg, path, data, finding.Unsafe)
	if !res.Changed() {
		t.Fatal("podlint fix --unsafe changed nothing")
	}
	var v map[string]any
	if err := json.Unmarshal(res.Data, &v); err != nil {
		t.Fatalf("the fixed file is not JSON: %v\n%s", err, res.Data)
	}
}

// TestJSONVerifyRejectsYAML: a fix that leaves valid YAML but not JSON in a
// JSON file fails verification.
func TestJSONVerifyRejectsYAML(t *testing.T) {
	cfg := analyzer.Default()
	path := "web.json"
	data := []byte(probeJSON)
	before, _ := cfg.File(path, data, true)
	for i := range before {
		f := &before[i]
		if f.RuleID != "PL106" {
			continue
		}
		at := strings.Index(probeJSON, `"timeoutSeconds": 20`)
		x := finding.Fix{Title: "YAML key", Paths: []string{f.Path}, Edits: []finding.Edit{{File: path, Start: at, End: at + len(`"timeoutSeconds": 20`), NewText: `timeoutSeconds: 5`}}}
		if _, err := fix.Verify(cfg, path, data, before, f, &x); err == nil || !strings.Contains(err.Error(), "no longer JSON") {
			t.Fatalf("an unquoted key in a JSON file: %v, want a JSON error", err)
		}
		return
	}
	t.Fatal("no PL106 finding")
}
