package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/rules"
)

// The SARIF goldens hold the results, not the rule catalog: a SARIF log
// lists every enabled rule in tool.driver.rules (code scanning shows a
// rule's help before it ever fires) and each result points into that list
// by ruleIndex, so a new rule rewrote every SARIF golden (the catalog grew
// and every later index moved) though no result changed. sarifGolden keeps
// of the catalog the rules the results name, in the same order, and points
// the results into what is kept; TestSARIFCatalog checks the full catalog
// and the indexes of the real output instead.

// jsonObject is a JSON object with its keys in their order.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

func (o *jsonObject) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("not a JSON object: %v", err)
	}
	o.vals = map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		o.keys = append(o.keys, key)
		o.vals[key] = v
	}
	return nil
}

func (o *jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		if err := json.Compact(&b, o.vals[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// field decodes the value of key into v.
func (o *jsonObject) field(key string, v any) error {
	raw, ok := o.vals[key]
	if !ok {
		return fmt.Errorf("no %q", key)
	}
	return json.Unmarshal(raw, v)
}

// set encodes v as the value of an existing key.
func (o *jsonObject) set(key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	o.vals[key] = raw
	return nil
}

// sarifGolden is the SARIF log out as its golden holds it: the catalog
// reduced to the rules the results name, the indexes pointing into it.
// Everything else keeps its bytes.
func sarifGolden(out []byte) ([]byte, error) {
	var log jsonObject
	if err := json.Unmarshal(out, &log); err != nil {
		return nil, err
	}
	var runs []*jsonObject
	if err := log.field("runs", &runs); err != nil {
		return nil, err
	}
	for _, run := range runs {
		var tool, driver jsonObject
		var catalog []*jsonObject
		var results []*jsonObject
		if err := run.field("tool", &tool); err != nil {
			return nil, err
		}
		if err := tool.field("driver", &driver); err != nil {
			return nil, err
		}
		if err := driver.field("rules", &catalog); err != nil {
			return nil, err
		}
		if err := run.field("results", &results); err != nil {
			return nil, err
		}
		used := make([]bool, len(catalog))
		indexes := make([]int, len(results))
		for i, r := range results {
			if err := r.field("ruleIndex", &indexes[i]); err != nil {
				return nil, err
			}
			if indexes[i] < 0 || indexes[i] >= len(catalog) {
				return nil, fmt.Errorf("result %d: ruleIndex %d outside the %d rules", i, indexes[i], len(catalog))
			}
			used[indexes[i]] = true
		}
		kept := []*jsonObject{}
		newIndex := make([]int, len(catalog))
		for i, r := range catalog {
			if used[i] {
				newIndex[i] = len(kept)
				kept = append(kept, r)
			}
		}
		for i, r := range results {
			if err := r.set("ruleIndex", newIndex[indexes[i]]); err != nil {
				return nil, err
			}
		}
		for _, step := range []struct {
			o   *jsonObject
			key string
			v   any
		}{{&driver, "rules", kept}, {run, "results", results}, {&tool, "driver", &driver}, {run, "tool", &tool}} {
			if err := step.o.set(step.key, step.v); err != nil {
				return nil, err
			}
		}
	}
	if err := log.set("runs", runs); err != nil {
		return nil, err
	}
	compact, err := json.Marshal(&log)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// goldenRuleArgs are the flags that leave out of a golden run the rules
// that testdata/golden-rules.txt does not list: a rule added to podlint
// changes the output goldens only once it is listed there. The working
// directory is the repository root.
func goldenRuleArgs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("internal", "cli", "testdata", "golden-rules.txt"))
	if err != nil {
		t.Fatal(err)
	}
	args, err := ruleArgsOf(data)
	if err != nil {
		t.Fatalf("testdata/golden-rules.txt: %v", err)
	}
	return args
}

// ruleArgsOf are the flags that disable the rules a list of IDs (one a
// line, # comments) does not name.
func ruleArgsOf(list []byte) ([]string, error) {
	listed := map[string]bool{}
	for _, l := range strings.Split(string(list), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			if rules.Lookup(l) == nil {
				return nil, fmt.Errorf("%s is no rule", l)
			}
			listed[l] = true
		}
	}
	var off []string
	for _, r := range rules.All {
		if !listed[r.ID] && !r.DefaultOff {
			off = append(off, r.ID)
		}
	}
	if len(off) == 0 {
		return nil, nil
	}
	return []string{"--disable", strings.Join(off, ",")}, nil
}

func TestRuleArgsOf(t *testing.T) {
	var all []string
	for _, r := range rules.All {
		if r.ID != rules.LivenessKillsBeforeReady.ID {
			all = append(all, r.ID)
		}
	}
	args, err := ruleArgsOf([]byte("# comment\n" + strings.Join(all, "\n") + "\n"))
	if err != nil || !slices.Equal(args, []string{"--disable", rules.LivenessKillsBeforeReady.ID}) {
		t.Errorf("got %q, %v; want --disable %s", args, err, rules.LivenessKillsBeforeReady.ID)
	}
	if _, err := ruleArgsOf([]byte("PL999\n")); err == nil || !strings.Contains(err.Error(), "PL999 is no rule") {
		t.Errorf("a stale ID: %v", err)
	}
}

// goldenOf is what the golden of an output in format holds (see
// sarifGolden); other formats are kept as they are.
func goldenOf(t *testing.T, format string, out []byte) []byte {
	t.Helper()
	if format != "sarif" {
		return out
	}
	g, err := sarifGolden(out)
	if err != nil {
		t.Fatalf("SARIF output: %v", err)
	}
	return g
}

// TestSARIFCatalog checks what the SARIF goldens leave out: the log lists
// every rule the run enables (all but the DefaultOff ones), in ID order, and each result's ruleIndex
// points at the rule its ruleId names. It also checks that sarifGolden
// keeps every byte but the catalog and the indexes.
func TestSARIFCatalog(t *testing.T) {
	t.Chdir("../..")
	var out, errb bytes.Buffer
	if code := Run([]string{"podlint", "check", "--no-config", "-f", "sarif", "internal/cli/testdata/sample"}, strings.NewReader(""), &out, &errb); code != ExitFindings {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct{ ID string }
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Results) == 0 {
		t.Fatalf("want one run with results: %+v", log)
	}
	run := log.Runs[0]
	var got, want []string
	for _, r := range run.Tool.Driver.Rules {
		got = append(got, r.ID)
	}
	for _, r := range rules.All {
		if !r.DefaultOff {
			want = append(want, r.ID)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("tool.driver.rules are\n%v\nwant every enabled rule in ID order\n%v", got, want)
	}
	for i, r := range run.Results {
		if r.RuleIndex < 0 || r.RuleIndex >= len(got) || got[r.RuleIndex] != r.RuleID {
			t.Errorf("result %d: ruleIndex %d does not name %s", i, r.RuleIndex, r.RuleID)
		}
	}

	g, err := sarifGolden(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var reduced struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Results []struct {
				RuleID    string
				RuleIndex int
			}
		}
	}
	if err := json.Unmarshal(g, &reduced); err != nil {
		t.Fatal(err)
	}
	kept := reduced.Runs[0].Tool.Driver.Rules
	if len(kept) >= len(got) {
		t.Errorf("the golden keeps %d of %d rules; want only those with results", len(kept), len(got))
	}
	for i, r := range reduced.Runs[0].Results {
		if r.RuleIndex >= len(kept) || kept[r.RuleIndex].ID != r.RuleID || r.RuleID != run.Results[i].RuleID {
			t.Errorf("golden result %d: ruleIndex %d does not name %s", i, r.RuleIndex, r.RuleID)
		}
	}
	// Outside the catalog and the indexes, the golden is the output: drop
	// both from each and compare the rest line by line.
	strip := func(b []byte) string {
		var lines []string
		inRules := false
		for _, l := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(l, `          "rules": [`):
				inRules = !strings.HasSuffix(l, "[]")
				continue
			case inRules && l == "          ]":
				inRules = false
				continue
			case inRules, strings.Contains(l, `"ruleIndex": `):
				continue
			}
			lines = append(lines, l)
		}
		return strings.Join(lines, "\n")
	}
	if a, b := strip(out.Bytes()), strip(g); a != b {
		t.Errorf("sarifGolden changed more than the catalog and the indexes:\n--- output\n%s\n--- golden\n%s", a, b)
	}
}
