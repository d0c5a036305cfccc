package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testcorpus"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
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
// API server decodes the JSON into the typed struct with sigs.k8s.io/json's
// case-sensitive decoder (`ReadinessProbe:` is not readinessProbe).
func kubectlDecode(text []byte, v any) error {
	j, err := sigsyaml.YAMLToJSON(text)
	if err != nil {
		return err
	}
	return kjson.UnmarshalCaseSensitivePreserveInts(j, v)
}

// TestDifferentialCorpus decodes every corpus workload both through the
// single-parse converter and the way kubectl does, and requires identical
// typed objects; documents podlint refuses must be refused by kubectl too.
func TestDifferentialCorpus(t *testing.T) {
	for _, set := range corpusSets(t) {
		t.Run(set.Name, func(t *testing.T) { differential(t, set, nil) })
	}
}

// TestDifferentialMiscased runs the differential test over the corpus with
// field names the API server does not know: keys that differ from a field
// only in case (`ReadinessProbe:`, `initialdelayseconds:`), and keys written
// twice under case folding (`image:` and `Image:` in one mapping). The
// API server drops the mis-cased ones; so must podlint.
func TestDifferentialMiscased(t *testing.T) {
	for _, set := range corpusSets(t) {
		t.Run(set.Name, func(t *testing.T) {
			changed := 0
			differential(t, set, func(data []byte) []byte {
				out := miscase(data)
				if !bytes.Equal(out, data) {
					changed++
				}
				return out
			})
			t.Logf("%d files had keys mis-cased or doubled", changed)
			if changed == 0 {
				t.Errorf("no file of %s was changed; the test compares nothing new", set.Dir)
			}
		})
	}
}

var (
	// miscasedKey matches block-mapping keys of the Pod API to rewrite.
	miscasedKey = regexp.MustCompile(`(?m)^(\s*(?:- )?)(readinessProbe|livenessProbe|startupProbe|initialDelaySeconds|periodSeconds|failureThreshold|terminationGracePeriodSeconds|containerPort|preStop):`)
	// foldedKey matches a key to write a second time, differently cased.
	foldedKey = regexp.MustCompile(`(?m)^(\s*)(- )?(image|replicas|restartPolicy): *([^\n]*)$`)
)

// miscase rewrites every second matching key with a different case (the
// others stay, so both spellings meet) and follows image, replicas and
// restartPolicy with a differently-cased twin holding another value.
func miscase(data []byte) []byte {
	n := 0
	data = miscasedKey.ReplaceAllFunc(data, func(m []byte) []byte {
		n++
		sub := miscasedKey.FindSubmatch(m)
		key := string(sub[2])
		switch n % 3 {
		case 1:
			key = strings.ToUpper(key[:1]) + key[1:]
		case 2:
			key = strings.ToLower(key)
		default:
			return m
		}
		return append(append([]byte{}, sub[1]...), key+":"...)
	})
	return foldedKey.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := foldedKey.FindSubmatch(m)
		indent := strings.Repeat(" ", len(sub[1])+len(sub[2]))
		twin := strings.ToUpper(string(sub[3][:1])) + string(sub[3][1:])
		value := `"twin"`
		if string(sub[3]) == "replicas" {
			value = "7"
		}
		return append(append([]byte{}, m...), "\n"+indent+twin+": "+value...)
	})
}

// differential compares podlint's decoding of every corpus file with the
// API server's; mutate, when not nil, rewrites each file first.
func differential(t *testing.T, set testcorpus.Set, mutate func([]byte) []byte) {
	compared, rejected := 0, 0
	for _, path := range corpusFiles(t, set) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if mutate != nil {
			data = mutate(data)
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
				// A custom resource: its template, or a ScaledJob's Job spec.
				var want struct {
					Spec struct {
						Template     corev1.PodTemplateSpec `json:"template"`
						JobTargetRef batchv1.JobSpec        `json:"jobTargetRef"`
					} `json:"spec"`
				}
				if err := kubectlDecode(text, &want); err != nil {
					t.Errorf("%s doc %d %s: sigs.k8s.io/yaml: %v", path, o.Doc.Index, o.Path, err)
					continue
				}
				var wantTyped any = &want.Spec.Template
				if _, ok := o.Typed.(*batchv1.JobSpec); ok {
					wantTyped = &want.Spec.JobTargetRef
				}
				if !reflect.DeepEqual(wantTyped, o.Typed) {
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
	if set.Name == "sample" && mutate == nil && compared < minCompared {
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
