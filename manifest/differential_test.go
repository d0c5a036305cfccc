package manifest

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testcorpus"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// corpusSets returns the corpora of real manifests: the committed sample,
// and the extra corpus when there is one (see internal/testcorpus).
func corpusSets(t testing.TB) []testcorpus.Set {
	t.Helper()
	sets, err := testcorpus.Sets(t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	return sets
}

func corpusFiles(t testing.TB, set testcorpus.Set) []string {
	t.Helper()
	files, err := testcorpus.Files(set.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// minCompared is the number of objects the differential test compares on
// the committed sample (measured: 430, every workload, List items included);
// fewer means documents that decoded before are now refused or skipped. The
// 858-file extra corpus compares 1 040.
const minCompared = 430

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
	for _, set := range corpusSets(t) {
		t.Run(set.Name, func(t *testing.T) { differential(t, set) })
	}
}

func differential(t *testing.T, set testcorpus.Set) {
	compared, rejected := 0, 0
	for _, path := range corpusFiles(t, set) {
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
			if o.Typed == nil {
				continue
			}
			text, err := listItem(chunks[o.Doc.Index].data, string(o.Path))
			if err != nil {
				t.Errorf("%s doc %d %s: %v", path, o.Doc.Index, o.Path, err)
				continue
			}
			if o.Workload != nil && !IsWorkloadKind(o.Ref.APIVersion, o.Ref.Kind) {
				var want struct {
					Spec struct {
						Template corev1.PodTemplateSpec `json:"template"`
					} `json:"spec"`
				}
				if err := kubectlDecode(text, &want); err != nil {
					t.Errorf("%s doc %d %s: sigs.k8s.io/yaml: %v", path, o.Doc.Index, o.Path, err)
					continue
				}
				if !reflect.DeepEqual(&want.Spec.Template, o.Typed) {
					t.Errorf("%s doc %d %s (%s): template differs from sigs.k8s.io/yaml", path, o.Doc.Index, o.Path, o.Ref.Kind)
				}
				compared++
				continue
			}
			want := reflect.New(reflect.TypeOf(o.Typed).Elem()).Interface()
			if err := kubectlDecode(text, want); err != nil {
				t.Errorf("%s doc %d %s: sigs.k8s.io/yaml: %v", path, o.Doc.Index, o.Path, err)
				continue
			}
			if !reflect.DeepEqual(want, o.Typed) {
				t.Errorf("%s doc %d %s (%s): typed object differs from sigs.k8s.io/yaml", path, o.Doc.Index, o.Path, o.Ref.Kind)
			}
			compared++
		}
	}
	t.Logf("%s corpus %s: compared %d objects; %d documents rejected by both", set.Name, set.Dir, compared, rejected)
	if set.Name == "sample" && compared < minCompared {
		t.Errorf("compared only %d objects; the sample has %d", compared, minCompared)
	}
	if compared == 0 {
		t.Errorf("compared no objects in %s", set.Dir)
	}
}

var itemPath = regexp.MustCompile(`^items\[(\d+)\]`)

// listItem returns the object at path (items[i], items[i].items[j], …) of a
// List document as kubectl sees it: the whole document converted to JSON by
// sigs.k8s.io/yaml, the item taken out and written back as JSON (which is
// YAML). An empty path is the document itself.
func listItem(doc []byte, path string) ([]byte, error) {
	if path == "" {
		return doc, nil
	}
	j, err := sigsyaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		return nil, err
	}
	for rest := path; rest != ""; rest = strings.TrimPrefix(rest, ".") {
		m := itemPath.FindStringSubmatch(rest)
		if m == nil {
			return nil, fmt.Errorf("object path %q is not a List item", path)
		}
		obj, _ := v.(map[string]any)
		items, _ := obj["items"].([]any)
		if i, _ := strconv.Atoi(m[1]); i < len(items) {
			v, rest = items[i], rest[len(m[0]):]
		} else {
			return nil, fmt.Errorf("no %s in the document as sigs.k8s.io/yaml reads it", path)
		}
	}
	return json.Marshal(v)
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
