package rules_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/rules/rulestest"
	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite the expected fixed files rules/testdata/<ID>/fixed/<name>")

// Rules whose failing example cannot be a manifest; they are tested in the
// analyzer's own tests.
var testedElsewhere = map[string]string{
	"PL009": "internal-error needs a crashing rule: analyzer.TestRulePanicBecomesFinding",
	"PL012": "chart-render-error needs a chart or kustomization folder: render.TestRenderErrors",
	"PL801": "policy checks the policies a run states: policy.TestRequirements and internal/cli.TestPolicyGolden",
}

// TestRules runs every rule over its rules/testdata/<ID>/ files through the
// real loader and analyzer (rulestest.Run, whose doc has the want syntax),
// with only that rule on (and those a file's podlint-test line enables).
// Unexpected findings and unmatched wants both fail. A want in
// testdata/<ID>/ may name only rule <ID>. Every file with a want (a
// failing example) must pin the column of at least one of them, so the
// example also tests where the finding points. Every finding is held to
// the shape of a headline (checkHeadline) and its fixes are verified and
// applied (checkFixes).
func TestRules(t *testing.T) {
	for _, r := range rules.All {
		t.Run(r.ID+"_"+r.Name, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("testdata", r.ID, "*"))
			if reason, ok := testedElsewhere[r.ID]; ok {
				t.Skip(reason)
			}
			if len(files) == 0 {
				t.Fatalf("rule %s has no testdata in testdata/%s", r.ID, r.ID)
			}
			files = slices.DeleteFunc(files, func(f string) bool {
				fi, err := os.Stat(f)
				return err == nil && fi.IsDir() // fixed/: the expected text after the fixes
			})
			silent, firing := 0, 0
			for _, res := range rulestest.Run(t, analyzer.Default(analyzer.Only(r)), files...) {
				pinned := 0
				for _, w := range res.Wants {
					if w.Rule != r {
						t.Errorf("%s:%d: want names %s (%s), but testdata/%s/ tests only %s: move the example to testdata/%s/", res.File, w.Line, w.Rule.ID, w.Rule.Name, r.ID, r.ID, w.Rule.ID)
					}
					if w.Column != 0 {
						pinned++
					}
				}
				for i := range res.Findings {
					f := &res.Findings[i]
					if f.Line < 1 || f.Column < 1 {
						t.Errorf("%s: finding without a position: %+v", res.File, f)
					}
					checkHeadline(t, res.File, f)
				}
				checkFixes(t, res.Linter, res.File, res.Data, res.Findings)
				switch {
				case len(res.Wants) == 0:
					silent++
				case pinned == 0:
					firing++
					t.Errorf("%s: no want pins a column; pin at least one (# want %s:COL \"regexp\")", res.File, r.ID)
				default:
					firing++
				}
			}
			if silent == 0 || firing == 0 {
				t.Errorf("rule %s needs at least one file that must stay silent and one that must fire (have %d silent, %d firing)", r.ID, silent, firing)
			}
		})
	}
}

// headlineMax is the longest headline a rule may print, in characters:
// one line of a terminal next to its position and rule ID.
const headlineMax = 100

var arithmetic = regexp.MustCompile(`\d\s*[×*+=÷]\s*\d|\d\s+[-/]\s+\d|\b(?:plus|times|minus)\b`)

// checkHeadline holds every finding of every rule's testdata to the shape
// of a headline: one sentence of at most headlineMax characters, lower
// arithmetic (that belongs in the detail), no trailing period; a detail,
// when there is one, is full sentences.
func checkHeadline(t *testing.T, path string, f *finding.Finding) {
	t.Helper()
	h := f.Message
	where := fmt.Sprintf("%s:%d: %s headline %q", path, f.Line, f.RuleID, h)
	switch n := utf8.RuneCountInString(h); {
	case n == 0:
		t.Errorf("%s: empty", where)
	case n > headlineMax:
		t.Errorf("%s: %d characters, more than %d; move the mechanism and the numbers to the detail", where, n, headlineMax)
	}
	if strings.ContainsAny(h, "\n;") {
		t.Errorf("%s: a headline is one sentence (no line break or semicolon)", where)
	}
	if strings.HasSuffix(h, ".") {
		t.Errorf("%s: no trailing period", where)
	}
	if arithmetic.MatchString(h) {
		t.Errorf("%s: arithmetic belongs in the detail", where)
	}
	if d := f.Detail; d != "" && !strings.HasSuffix(d, ".") {
		t.Errorf("%s: detail %q must end with a period: it is prose", where, d)
	}
}

// TestUnnamedContainers lints every testdata file again with the names of
// its containers removed, as a custom resource's template may leave them
// (Knative names them when it makes the Revision), with every rule on. No
// message may then name a container "" (an empty %q): messages name an
// unnamed container by its place and image, #1 (api:3).
func TestUnnamedContainers(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.yaml"))
	cfg := analyzer.Default(analyzer.Enable(rules.All...))
	checked := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		unnamed, n := dropContainerNames(data)
		if n == 0 {
			continue
		}
		findings, _ := cfg.File(path, unnamed, true)
		for _, f := range findings {
			texts := []string{f.Message, f.Detail}
			for _, r := range f.Related {
				texts = append(texts, r.Message)
			}
			for _, s := range texts {
				if strings.Contains(s, `""`) {
					t.Errorf("%s with unnamed containers: %s names an empty container: %q", path, f.RuleID, s)
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no finding checked")
	}
}

// dropContainerNames removes the name of every container and init
// container of a YAML stream and returns it with the number of names
// removed.
func dropContainerNames(data []byte) ([]byte, int) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	n := 0
	var walk func(*yaml.Node)
	walk = func(node *yaml.Node) {
		if node.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(node.Content); i += 2 {
				k, v := node.Content[i], node.Content[i+1]
				if (k.Value == "containers" || k.Value == "initContainers") && v.Kind == yaml.SequenceNode {
					for _, c := range v.Content {
						if c.Kind != yaml.MappingNode {
							continue
						}
						for j := 0; j+1 < len(c.Content); j += 2 {
							if c.Content[j].Value == "name" {
								c.Content = append(c.Content[:j], c.Content[j+2:]...)
								n++
								break
							}
						}
					}
				}
			}
		}
		for _, c := range node.Content {
			walk(c)
		}
	}
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		walk(&doc)
		if enc.Encode(&doc) != nil {
			break
		}
	}
	_ = enc.Close()
	return out.Bytes(), n
}

// checkFixes verifies every fix of every finding of a testdata file with
// fix.Verify, every rule enabled (a fix may not add a finding of any
// rule), and compares the text after `podlint fix --unsafe` (the default
// fix of every finding of the rule, to a fixed point) with
// testdata/<ID>/fixed/<name>: a file whose findings have fixes must have
// one, and a file without fixes must not. -update rewrites them.
func checkFixes(t *testing.T, cfg *analyzer.Linter, path string, data []byte, findings []finding.Finding) {
	t.Helper()
	all := *cfg
	all.Severity = analyzer.Default(analyzer.Enable(rules.All...)).Severity
	before, _ := all.File(path, data, true)
	fixable := false
	for i := range findings {
		f := &findings[i]
		for j := range f.Fixes {
			x := &f.Fixes[j]
			fixable = true
			if x.Title == "" || strings.HasSuffix(x.Title, ".") || (x.Safety != finding.Safe && x.Safety != finding.Unsafe) {
				t.Errorf("%s:%d: %s fix %d: title %q and safety %v: want an imperative title without a final period, safe or unsafe", path, f.Line, f.RuleID, j+1, x.Title, x.Safety)
			}
			if _, err := fix.Verify(&all, path, data, before, f, x); err != nil {
				t.Errorf("%s:%d: %s fix %q fails verification: %v", path, f.Line, f.RuleID, x.Title, err)
			}
		}
	}
	want := filepath.Join(filepath.Dir(path), "fixed", filepath.Base(path))
	expected, err := os.ReadFile(want)
	if !fixable {
		if err == nil {
			t.Errorf("%s: no finding has a fix, but %s exists", path, want)
		}
		return
	}
	res := fix.File(cfg, path, data, finding.Unsafe)
	for _, s := range res.Skipped {
		t.Errorf("%s:%d: %s fix %q not applied: %s", path, s.Finding.Line, s.Finding.RuleID, s.Fix.Title, s.Reason)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(want, res.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: findings have fixes, but there is no %s with the expected text (go test ./rules -run TestRules -update writes it)", path, want)
		return
	}
	if !bytes.Equal(res.Data, expected) {
		t.Errorf("%s: the text after the fixes differs from %s:\n%s", path, want, lineDiff(string(expected), string(res.Data)))
	}
}

// lineDiff lists the lines that differ between want and got.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, a, c)
		}
	}
	return b.String()
}
