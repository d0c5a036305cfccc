package manifest

import "testing"

func TestNotKubernetesJSON(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		skip       bool
	}{
		{"package.json", `{"name": "x", "version": "1.0.0", "dependencies": {"a": "^1"}}`, true},
		{"tsconfig with comments", "{\n  // strict\n  \"compilerOptions\": {\"strict\": true}\n}\n", true},
		{"JSON schema", `{"$schema": "http://json-schema.org/schema#", "properties": {"kind": {"type": "string"}, "apiVersion": {}}}`, true},
		{"podlint's JSON report", `{"findings": [{"id": "PL101", "object": {"apiVersion": "apps/v1", "kind": "Deployment"}}], "summary": {"files": 1}}`, true},
		{"array", `[1, 2, 3]`, true},
		{"empty", ``, true},
		{"manifest", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}`, false},
		{"kind first", `{"metadata": {"name": "x"}, "kind": "Pod"}`, false},
		{"broken manifest", `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"`, false},
		{"manifest with comments", "{\n  // a comment\n  \"apiVersion\": \"v1\", \"kind\": \"Pod\"}", false},
		{"YAML in a .json file", "apiVersion: v1\nkind: Pod\n", false},
		{"List", `{"apiVersion": "v1", "kind": "List", "items": []}`, false},
	} {
		if got := NotKubernetesJSON([]byte(tc.data)); got != tc.skip {
			t.Errorf("%s: NotKubernetesJSON = %v, want %v", tc.name, got, tc.skip)
		}
	}
	src := Source{Path: "dir/package.json"}
	data := []byte(`{"name": "x"}`)
	if !SkipWalkedJSON(src, data) {
		t.Errorf("a walked package.json is not skipped")
	}
	for _, s := range []Source{{Path: "package.json", Explicit: true}, {Path: "dir/x.yaml"}, {Path: "-", Data: data}} {
		if SkipWalkedJSON(s, data) {
			t.Errorf("%+v skipped: only .json files found by walking are", s)
		}
	}
}
