package manifest

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
)

// A folder walk meets .json files that are not manifests: package.json,
// tsconfig.json (with comments, so not even JSON), JSON schemas, the
// report a previous podlint run wrote (-o report.json). Such a file is
// skipped and counted, not reported as invalid YAML; a file named on the
// command line is always linted.

// SkipWalkedJSON reports whether src is a .json file found by walking a
// folder whose content is plainly not a Kubernetes object (see
// NotKubernetesJSON).
func SkipWalkedJSON(src Source, data []byte) bool {
	return !src.Explicit && src.Data == nil && src.Render == "" &&
		strings.EqualFold(filepath.Ext(src.Path), ".json") && NotKubernetesJSON(data)
}

// NotKubernetesJSON reports whether data is plainly not a Kubernetes
// object: a JSON object with no apiVersion or kind key at its top level,
// a JSON value that is not an object, or text that is not JSON and never
// says apiVersion. A broken manifest still says apiVersion, and so is
// linted (and its syntax error reported).
func NotKubernetesJSON(data []byte) bool {
	mentions := bytes.Contains(data, []byte("apiVersion"))
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return !mentions
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return !mentions
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return !mentions
		}
		if k, _ := key.(string); k == "apiVersion" || k == "kind" {
			return false
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return !mentions
		}
	}
	return true
}
