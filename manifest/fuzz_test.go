package manifest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// Fuzz targets for the loader. Run one with
//
//	go test -run=NONE -fuzz=FuzzSplitParseLocate -fuzztime=10m -parallel=1 ./manifest
//
// or all of them with scripts/fuzz.sh. Crashers are kept in
// testdata/fuzz/<FuzzName>/ of this package, where plain `go test` replays
// them.

// fuzzLimits keep one execution cheap while still exercising every limit.
var fuzzLimits = Limits{MaxFileSize: 1 << 20, MaxDocuments: 64, MaxDepth: 64, MaxNodes: 200_000}

// FuzzSplitParseLocate feeds arbitrary bytes to the splitter, the parser and
// the position index, with an arbitrary field path to locate: nothing may
// panic, document chunks must tile the input with the right start lines, and
// every position must be inside the file and point at the text it names.
func FuzzSplitParseLocate(f *testing.F) {
	addSeeds(f, func(data []byte) { f.Add(data, "spec.template.spec.containers[0].livenessProbe") })
	f.Add([]byte("a: 1\r\n---\r\nkind: Pod\r\napiVersion: v1\r\n...\r\n"), `metadata.annotations["a.b/c"]`)
	f.Add([]byte("---\n--- \n...\n..."), `[0][1]["x`)
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		if len(data) > 1<<20 {
			return
		}
		checkChunks(t, data)
		res := Parse("fuzz.yaml", data, fuzzLimits)
		lines := res.File.Lines()
		for _, p := range res.Problems {
			if p.Line < 1 || p.Line > lines || p.Column < 1 {
				t.Fatalf("problem %s at %d:%d outside the file (%d lines): %s", p.Rule, p.Line, p.Column, lines, p.Message)
			}
		}
		for _, o := range res.Objects {
			for _, p := range []workload.Path{o.Path, o.Path.Field("kind"), workload.Path(path), o.Path.Field(path)} {
				pos, _ := o.Doc.Locate(p)
				if pos.Line < 1 || pos.Line > lines || pos.Column < 1 {
					t.Fatalf("Locate(%q) = %d:%d, outside the file (%d lines)", p, pos.Line, pos.Column, lines)
				}
			}
			checkKindPosition(t, res.File, o)
		}
	})
}

// checkChunks verifies that splitDocuments cuts data into ordered,
// non-overlapping pieces that start at the line they claim, and that only
// document-end marker lines (`...`) fall between them.
func checkChunks(t *testing.T, data []byte) {
	t.Helper()
	prevEnd := 0
	for i, c := range splitDocuments(data, 0) {
		off := cap(data) - cap(c.data) // chunks are subslices of data
		if off < prevEnd || off+len(c.data) > len(data) {
			t.Fatalf("chunk %d at [%d,%d) overlaps or leaves the input (previous ended at %d)", i, off, off+len(c.data), prevEnd)
		}
		if want := 1 + len(yamlBreak.FindAllIndex(data[:off], -1)); c.line != want {
			t.Fatalf("chunk %d starts on line %d but claims line %d", i, want, c.line)
		}
		for _, l := range splitAfterBreaks(data[prevEnd:off]) {
			if l != "" && !isMarker([]byte(l), "...") {
				t.Fatalf("chunk %d: the line %q between documents was dropped", i, l)
			}
		}
		prevEnd = off + len(c.data)
	}
	for _, l := range splitAfterBreaks(data[prevEnd:]) {
		if l != "" && !isMarker([]byte(l), "...") {
			t.Fatalf("the trailing line %q was dropped", l)
		}
	}
}

// yamlBreak matches the line breaks of the YAML parser, written out
// independently of breakLen so that the fuzzer compares two implementations.
var yamlBreak = regexp.MustCompile("\r\n|\r|\n|\u0085|\u2028|\u2029")

// splitAfterBreaks cuts b after every line break.
func splitAfterBreaks(b []byte) []string {
	var out []string
	prev := 0
	for _, m := range yamlBreak.FindAllIndex(b, -1) {
		out = append(out, string(b[prev:m[1]]))
		prev = m[1]
	}
	return append(out, string(b[prev:]))
}

// checkKindPosition checks that the position of a plain `kind` value points
// at that value in the file's text, whatever the line endings and
// encoding were.
func checkKindPosition(t *testing.T, f *File, o *Object) {
	t.Helper()
	k, v := lookupKey(o.Node, "kind", fuzzLimits.MaxDepth)
	if k == nil || v.Kind != yaml.ScalarNode || v.Style != 0 || strings.ContainsAny(v.Value, " \t\r\n") {
		return
	}
	pos, exact := o.Doc.Locate(o.Path.Field("kind"))
	if !exact {
		t.Fatalf("Locate(kind) is not exact though the key exists")
	}
	line := []rune(f.Line(pos.Line))
	if pos.Column-1 > len(line) || !strings.HasPrefix(string(line[pos.Column-1:]), v.Value) {
		t.Fatalf("kind %q located at %d:%d, but that line reads %q", v.Value, pos.Line, pos.Column, string(line))
	}
}

// FuzzDecode checks the typed decoding of arbitrary documents against what
// kubectl and the API server do (sigs.k8s.io/yaml.YAMLToJSON, then
// sigs.k8s.io/json's case-sensitive decoder, as kubectlDecode): whenever
// podlint decodes a workload, kubectl's way decodes the same text into the
// same object; whenever kubectl's way cannot decode a workload, podlint
// reports the document instead of passing it silently.
func FuzzDecode(f *testing.F) {
	addSeeds(f, func(data []byte) { f.Add(data) })
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return // the reference decoder is slow on big inputs
		}
		checkDecode(t, data, fuzzLimits)
	})
}

// checkDecode compares podlint's loading of data with kubectl's, document by
// document.
func checkDecode(t *testing.T, data []byte, lim Limits) {
	t.Helper()
	res := Parse("fuzz.yaml", data, lim)
	norm, bad := normalizeEncoding(data)
	if bad != nil {
		if len(res.Problems) == 0 {
			t.Fatalf("unreadable input without a problem: %s", bad.Message)
		}
		return
	}
	if helmLine(norm) > 0 {
		return // refused as a whole with a helm-template finding
	}
	chunks := splitDocuments(norm, 0)
	if len(chunks) > lim.MaxDocuments {
		chunks = chunks[:lim.MaxDocuments]
	}
	for i, c := range chunks {
		if Blank(c.data) {
			continue
		}
		end := res.File.Lines() + 1
		if i+1 < len(chunks) {
			end = chunks[i+1].line
		}
		var refused []Problem // podlint's reasons to refuse this document
		for _, p := range res.Problems {
			if p.Line >= c.line && p.Line < end && (p.Rule == RuleInvalidYAML || p.Rule == RuleInvalidManifest || p.Rule == RuleLimitExceeded || p.Rule == RuleAPIValidation) {
				refused = append(refused, p)
			}
		}
		var objs []*Object
		for _, o := range res.Objects {
			if o.Doc.Index == i && o.Typed != nil {
				objs = append(objs, o)
			}
		}
		checkDocument(t, c, objs, refused)
	}
}

func checkDocument(t *testing.T, c chunk, objs []*Object, refused []Problem) {
	t.Helper()
	j, err := sigsyaml.YAMLToJSON(c.data)
	if err != nil {
		if len(objs) > 0 && len(refused) == 0 {
			t.Fatalf("document at line %d: podlint decoded %d workload(s) silently, but kubectl cannot read it: %v\n%s", c.line, len(objs), err, c.data)
		}
		return
	}
	// Every object podlint decoded must be what kubectl decodes there.
	var tree any
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber() // re-encoded subtrees must keep every digit
	if err := dec.Decode(&tree); err != nil {
		t.Fatalf("YAMLToJSON produced invalid JSON: %v", err)
	}
	for _, o := range objs {
		sub, ok := jsonAt(tree, o)
		if !ok {
			t.Fatalf("document at line %d: podlint decoded %s at %q, which kubectl does not see", c.line, o.Ref.Kind, o.Path)
		}
		want := reflect.New(reflect.TypeOf(o.Typed).Elem()).Interface()
		if err := kjson.UnmarshalCaseSensitivePreserveInts(sub, want); err != nil {
			t.Fatalf("document at line %d: podlint decoded %s at %q, but kubectl fails: %v\n%s", c.line, o.Ref.Kind, o.Path, err, c.data)
		}
		if !reflect.DeepEqual(want, o.Typed) {
			t.Fatalf("document at line %d: %s at %q decodes differently\nkubectl: %#v\npodlint: %#v\n%s", c.line, o.Ref.Kind, o.Path, want, o.Typed, c.data)
		}
	}
	// A workload kubectl cannot decode must not pass silently.
	m, ok := tree.(map[string]any)
	if !ok {
		return
	}
	apiVersion, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if apiVersion == "" || kind == "" || isListKind(kind) {
		return
	}
	var target any
	if k := lookupKind(apiVersion, kind); k != nil {
		target = reflect.New(k.typ).Interface()
	} else if spec, _ := m["spec"].(map[string]any); spec != nil {
		if tmpl, _ := spec["template"].(map[string]any); tmpl != nil {
			if _, isMap := tmpl["spec"].(map[string]any); isMap {
				target = &struct {
					Spec struct {
						Template corev1.PodTemplateSpec `json:"template"`
					} `json:"spec"`
				}{}
			}
		}
	}
	if target == nil {
		return
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(j, target); err != nil {
		if len(refused) == 0 {
			t.Fatalf("document at line %d: kubectl cannot decode this %s (%v) but podlint reports nothing\n%s", c.line, kind, err, c.data)
		}
		return
	}
	if len(objs) == 0 && len(refused) == 0 {
		t.Fatalf("document at line %d: kubectl decodes a %s that podlint neither decodes nor reports\n%s", c.line, kind, c.data)
	}
}

// jsonAt returns the JSON of the part of tree that podlint decoded for o:
// the object at o.Path, or its spec.template for a custom resource.
func jsonAt(tree any, o *Object) ([]byte, bool) {
	var cur any = tree
	for _, seg := range o.Path.Segments() {
		if seg.Index >= 0 {
			l, ok := cur.([]any)
			if !ok || seg.Index >= len(l) {
				return nil, false
			}
			cur = l[seg.Index]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur = m[seg.Key]
	}
	if !IsWorkloadKind(o.Ref.APIVersion, o.Ref.Kind) {
		for _, k := range []string{"spec", "template"} {
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			cur = jsonField(m, k)
		}
	}
	b, err := json.Marshal(cur)
	return b, err == nil
}

// jsonField is the value encoding/json stores into the struct field key: it
// decodes keys in the order YAMLToJSON writes them (sorted) and every key
// equal to the field name under case folding overwrites the field.
func jsonField(m map[string]any, key string) any {
	best, found := "", false
	for k := range m {
		if strings.EqualFold(k, key) && (!found || k > best) {
			best, found = k, true
		}
	}
	return m[best]
}
