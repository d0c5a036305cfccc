package analyzer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/alloctest"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/report"
	"github.com/podlint/podlint/rules"
)

// Cost tests over the public behaviour (a manifest in, findings out): the
// work must grow linearly with the input, whatever reads it (the shell
// readers, the timeline, the snippets). Work is measured in bytes
// allocated, never in time: doubling the input of a quadratic step
// multiplies it by about 4, of a linear one by about 2.

var allocatedBytes = alloctest.Bytes

// allRules enables every rule, including those off by default.
func allRules() *Linter {
	return Default(Enable(rules.All...))
}

// lintCost lints data with every rule and renders the text report; it
// returns the bytes allocated, the findings and the report's size.
func lintCost(t *testing.T, data []byte) (uint64, []finding.Finding, int) {
	t.Helper()
	cfg := allRules()
	var res *finding.Result
	var out bytes.Buffer
	alloc := allocatedBytes(func() {
		// A run of one source, as check has it: the engine sorts the
		// findings, which the report writes as they come.
		res, _ = Run(cfg, Options{Workers: 1}, []manifest.Source{{Path: "cost.yaml", Data: data, Explicit: true}})
		if err := report.Write(&out, "text", res, report.Options{}); err != nil {
			t.Fatal(err)
		}
	})
	return alloc, res.List(), out.Len()
}

// checkLinear fails unless the cost of gen(2n) is at most 2.5 × that of
// gen(n), and the report stays within a multiple of the input.
func checkLinear(t *testing.T, n int, gen func(n int) []byte) {
	t.Helper()
	in1, in2 := gen(n), gen(2*n)
	a, fs1, out1 := lintCost(t, in1)
	b, fs2, out2 := lintCost(t, in2)
	t.Logf("n=%d: %d bytes in, %d allocated, %d findings, %d bytes of report; 2n: %d in, %d allocated (×%.2f), %d findings, %d bytes of report",
		n, len(in1), a, len(fs1), out1, len(in2), b, float64(b)/float64(a), len(fs2), out2)
	if alloctest.Exceeds(a, b, 2.5) {
		t.Errorf("doubling the input multiplied the bytes allocated by %.2f (%d → %d); want at most 2.5 (linear)", float64(b)/float64(a), a, b)
	}
	// A finding's text is its message, its related locations and a bounded
	// snippet, whatever the length of its line.
	if out2 > 2<<10*len(fs2)+64<<10 {
		t.Errorf("%d findings took %d bytes of text report, more than 2 KB each", len(fs2), out2)
	}
	for _, f := range fs2 {
		if len(f.SourceLine) > manifest.SnippetWidth+2*len(finding.Ellipsis) {
			t.Fatalf("a finding holds a %d-byte source line", len(f.SourceLine))
		}
	}
}

type obj = map[string]any

// podJSON is a Pod with the given init container and regular containers.
func podJSON(name string, inits, containers []obj) obj {
	spec := obj{"containers": containers}
	if len(inits) > 0 {
		spec["initContainers"] = inits
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": obj{"name": name}, "spec": spec}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func shContainer(name, script string) obj {
	return obj{"name": name, "image": "busybox", "command": []string{"sh", "-c", script},
		"lifecycle": obj{"preStop": obj{"exec": obj{"command": []string{"sh", "-c", script}}},
			"postStart": obj{"exec": obj{"command": []string{"sh", "-c", script}}}}}
}

// A container whose settings several rules report: a liveness probe that
// kills before readiness, a zero grace period, a preStop longer than it.
func findingContainer(i int) obj {
	return obj{"name": fmt.Sprintf("c%d", i), "image": "busybox",
		"livenessProbe":  obj{"exec": obj{"command": []string{"true"}}, "periodSeconds": 1, "failureThreshold": 1},
		"readinessProbe": obj{"exec": obj{"command": []string{"true"}}, "initialDelaySeconds": 60, "timeoutSeconds": 5, "periodSeconds": 1},
		"lifecycle":      obj{"preStop": obj{"exec": obj{"command": []string{"sleep", "90"}}}}}
}

// Minified JSON: thousands of objects on one line, each finding once copied
// the whole line (4 000 Pods: 1.4 GB and out of memory).
func TestCostOneLineJSON(t *testing.T) {
	checkLinear(t, 200, func(n int) []byte {
		var items []obj
		for i := range n {
			items = append(items, podJSON(fmt.Sprintf("p%d", i), nil, []obj{findingContainer(i)}))
		}
		return mustJSON(obj{"apiVersion": "v1", "kind": "List", "items": items})
	})
}

// Init container, preStop and postStart scripts of hostile shapes (a
// million newlines once ran over a minute, "while;" × 150 000 44 s).
func TestCostShellScripts(t *testing.T) {
	scripts := map[string]func(n int) string{
		"newlines": func(n int) string { return "sleep 1" + strings.Repeat("\n", n) + "true" },
		"while;":   func(n int) string { return strings.Repeat("while;", n) },
		"until;":   func(n int) string { return strings.Repeat("until ", n) + "do done" },
		"nested loops": func(n int) string {
			return strings.Repeat("while true; do ", n) + "sleep 1" + strings.Repeat("; done", n)
		},
		"sibling loops":     func(n int) string { return strings.Repeat("while read x; do echo; done\n", n) },
		"separators":        func(n int) string { return strings.Repeat("true;\n&", n) },
		"unclosed quote":    func(n int) string { return "sleep 1; echo \"" + strings.Repeat("x\n", n) },
		"braces":            func(n int) string { return strings.Repeat("{ ", n) + "nslookup db" + strings.Repeat(" }", n) },
		"conditions":        func(n int) string { return "until " + strings.Repeat("nslookup db && ", n) + "true; do sleep 1; done" },
		"line continuation": func(n int) string { return "sleep" + strings.Repeat(" \\\n", n) + " 3" },
	}
	for name, gen := range scripts {
		t.Run(name, func(t *testing.T) {
			checkLinear(t, 5_000, func(n int) []byte {
				return mustJSON(podJSON("p", []obj{shContainer("init", gen(n))}, []obj{shContainer("app", gen(n))}))
			})
		})
	}
}

// Thousands of containers (2 800 once took 13 s in the timeline).
func TestCostManyContainers(t *testing.T) {
	checkLinear(t, 300, func(n int) []byte {
		var inits, cs []obj
		for i := range n {
			inits = append(inits, shContainer(fmt.Sprintf("i%d", i), "until nslookup db; do sleep 1; done"))
			cs = append(cs, findingContainer(i))
		}
		return mustJSON(podJSON("p", inits, cs))
	})
}

// TestCostEveryRuleAtScale runs every rule on a Pod with 5 000 containers
// and a 1 MB script, against half of each, so that a rule added later with
// a quadratic step fails here even if no test targets it. (A quadratic
// loop that allocates nothing does not change the ratio, but at this scale
// it does not finish: a 1 MB one-line file with 3 000 findings, scanned
// once per finding, ran past the test timeout before snippets were cut
// from a line index.)
func TestCostEveryRuleAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("5 000 containers and a 1 MB script; skipped with -short")
	}
	script := func(size int) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "until nc -z db%d 5432; do sleep 1; done\nwhile true; do echo %d; sleep 5; done &\n# comment %d\n", i, i, i)
		}
		return b.String()
	}
	gen := func(n int) []byte {
		var inits, cs []obj
		big := script(n * 200) // 1 MB at n = 5 000
		inits = append(inits, shContainer("big", big))
		for i := range n {
			c := findingContainer(i)
			if i%2 == 0 {
				inits = append(inits, shContainer(fmt.Sprintf("i%d", i), "until nslookup db; do sleep 1; done"))
			}
			cs = append(cs, c)
		}
		return mustJSON(podJSON("p", inits, cs))
	}
	checkLinear(t, scaleN, gen)
}

var scaleN = 2_500

// TestCostIssueSizes lints the reproducers of issue 11 at their own sizes:
// the shell readers' quadratic scans allocated nothing (so the ratios above
// cannot see them) and took over a minute and 44 s here; one pass each
// finishes them in well under a second.
func TestCostIssueSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("1 MB scripts; skipped with -short")
	}
	for name, script := range map[string]string{
		"sleep 1, a million newlines, true": "sleep 1" + strings.Repeat("\n", 1_000_000) + "true",
		"while; × 150 000":                  strings.Repeat("while;", 150_000),
	} {
		data := mustJSON(podJSON("p", []obj{shContainer("init", script)}, []obj{shContainer("app", script)}))
		fs, _ := allRules().File("issue.json", data, true)
		t.Logf("%s: %d findings", name, len(fs))
	}
}
