package manifest

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// corpusDir is the shared corpus of real manifests next to the repository.
var corpusDir = filepath.Join("..", "..", "shared", "corpus")

func corpusFiles(t testing.TB) []string {
	t.Helper()
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("corpus not found at %s: %v", corpusDir, err)
	}
	var files []string
	filepath.WalkDir(corpusDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".json")) {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// kubectlDecode is what kubectl and the API server do with a manifest:
// sigs.k8s.io/yaml converts the YAML to JSON without looking at types, and the
// JSON is decoded into the typed struct.
func kubectlDecode(text []byte, v any) error {
	j, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return err
	}
	return json.Unmarshal(j, v)
}

// TestDifferentialCorpus decodes every corpus workload both through the
// single-parse converter and the way kubectl does, and requires identical
// typed objects; documents podlint refuses must be refused by kubectl too.
func TestDifferentialCorpus(t *testing.T) {
	compared, rejected := 0, 0
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res := Parse(path, data, DefaultLimits)
		chunks := splitDocuments(normalized(data), 0)
		// A document podlint refuses must be one kubectl refuses too.
		for _, p := range res.Problems {
			if p.Rule != RuleInvalidYAML && p.Rule != RuleInvalidManifest && p.Rule != RuleLimitExceeded {
				continue
			}
			text := chunkAt(chunks, p.Line)
			var anyObj map[string]any
			if err := kubectlDecode(text, &anyObj); err != nil {
				rejected++
				continue
			}
			want := reflect.New(lookupKind(p.Object.APIVersion, p.Object.Kind).typ).Interface()
			if err := kubectlDecode(text, want); err == nil {
				t.Errorf("%s:%d:%d: podlint reports %s but sigs.k8s.io/yaml decodes the document: %s", path, p.Line, p.Column, p.Rule, p.Message)
			} else {
				rejected++
			}
		}
		for _, o := range res.Objects {
			if o.Typed == nil || o.Path != "" {
				continue
			}
			text := chunks[o.Doc.Index].data
			if o.Workload != nil && !IsWorkloadKind(o.Ref.APIVersion, o.Ref.Kind) {
				var want struct {
					Spec struct {
						Template corev1.PodTemplateSpec `json:"template"`
					} `json:"spec"`
				}
				if err := kubectlDecode(text, &want); err != nil {
					t.Errorf("%s doc %d: sigs.k8s.io/yaml: %v", path, o.Doc.Index, err)
					continue
				}
				if !reflect.DeepEqual(&want.Spec.Template, o.Typed) {
					t.Errorf("%s doc %d (%s): template differs from sigs.k8s.io/yaml", path, o.Doc.Index, o.Ref.Kind)
				}
				compared++
				continue
			}
			want := reflect.New(reflect.TypeOf(o.Typed).Elem()).Interface()
			if err := kubectlDecode(text, want); err != nil {
				t.Errorf("%s doc %d: sigs.k8s.io/yaml: %v", path, o.Doc.Index, err)
				continue
			}
			if !reflect.DeepEqual(want, o.Typed) {
				t.Errorf("%s doc %d (%s): typed object differs from sigs.k8s.io/yaml", path, o.Doc.Index, o.Ref.Kind)
			}
			compared++
		}
	}
	t.Logf("compared %d objects; %d documents rejected by both", compared, rejected)
	if compared < 500 {
		t.Errorf("compared only %d objects; the corpus has well over 500 workloads", compared)
	}
}

func normalized(data []byte) []byte {
	d, _ := normalizeEncoding(data)
	return d
}

func chunkAt(chunks []chunk, line int) []byte {
	for i := len(chunks) - 1; i >= 0; i-- {
		if chunks[i].line <= line {
			return chunks[i].data
		}
	}
	return nil
}
