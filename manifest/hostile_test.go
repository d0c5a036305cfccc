package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/podlint/podlint/internal/alloctest"
)

// The hostile-input suite at the loader level: every case is an input from
// testdata/hostile/ or generated here (the huge ones), the problems the
// loader must report for it, and a bound on the bytes it may allocate while
// doing so. Allocation, not time, is the measure: it does not depend on the
// machine, and anything that runs long on these inputs allocates a lot too.
// The end-to-end cases (file size, FIFOs, directories) are in
// internal/cli/hostile_test.go.

type want struct {
	rule string
	line int // 0: any line
	msg  string
}

type hostileCase struct {
	name      string
	file      string        // in testdata/hostile, or
	gen       func() []byte // generated input
	limits    *Limits       // DefaultLimits when nil
	want      []want        // exactly these problems, in order
	workloads int           // decoded workloads
	maxAlloc  uint64        // bytes allocated by Parse, at most
	check     func(t *testing.T, res *Result)
	kubectl   bool // also compare with kubectl's decoding (checkDecode)
	short     bool // still run under -short
}

const pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: app\n      image: busybox\n"

const mb = 1 << 20

func hostileCases() []hostileCase {
	hiddenAt15 := []want{{RuleUnknownField, 15, `unknown field "imagePullPolicyy" in Container`}}
	unknownAt97 := []want{{RuleUnknownField, 9, `unknown field "imagePullPolicyy" in Container.*did you mean "imagePullPolicy"`}}
	return []hostileCase{
		{name: "billion laughs", file: "billion-laughs.yaml", short: true,
			want:     []want{{RuleInvalidYAML, 0, `excessive aliasing .*kubectl refuses it`}},
			maxAlloc: 2 * mb},
		{name: "billion laughs under --max-nodes", file: "billion-laughs.yaml", short: true,
			limits:   &Limits{MaxFileSize: 64 * mb, MaxDocuments: 10, MaxDepth: 200, MaxNodes: 500},
			want:     []want{{RuleLimitExceeded, 0, `more than 500 nodes .*\(limit: --max-nodes\)`}},
			maxAlloc: 2 * mb},
		{name: "merge key bomb", file: "merge-bomb.yaml", short: true,
			want:     []want{{RuleInvalidYAML, 0, `excessive aliasing`}},
			maxAlloc: 2 * mb},
		{name: "100000-deep flow lists", short: true,
			gen: func() []byte {
				return []byte(pod + "x: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n")
			},
			want:     []want{{RuleLimitExceeded, 9, `nested more than 10000 levels deep`}},
			maxAlloc: 40 * mb},
		{name: "100000-deep flow mappings", short: true,
			gen: func() []byte {
				return []byte(pod + "x: " + strings.Repeat("{a: ", 100_000) + "1" + strings.Repeat("}", 100_000) + "\n")
			},
			want:     []want{{RuleLimitExceeded, 9, `nested more than 10000 levels deep`}},
			maxAlloc: 40 * mb},
		{name: "100000-deep block lists", short: true,
			gen:      func() []byte { return []byte(pod + "x:\n  " + strings.Repeat("- ", 100_000) + "1\n") },
			want:     []want{{RuleLimitExceeded, 0, `nested more than 10000 levels deep`}},
			maxAlloc: 40 * mb},
		{name: "deeper than --max-depth inside a workload", short: true,
			gen: func() []byte {
				return []byte(pod + "      x: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n")
			},
			want: []want{{RuleUnknownField, 9, `unknown field "x" in Container`},
				{RuleLimitExceeded, 9, `nested more than 200 levels deep and was not linted \(limit: --max-depth\)`}},
			maxAlloc: 2 * mb},
		{name: "1 MB line", short: true,
			gen: func() []byte {
				return []byte(strings.Replace(pod, "  name: p\n", "  name: p\n  annotations:\n    big: "+strings.Repeat("x", mb)+"\n", 1))
			},
			workloads: 1, maxAlloc: 48 * mb,
			check: func(t *testing.T, res *Result) {
				if got := len(res.Objects[0].Meta.Annotations["big"]); got != mb {
					t.Errorf("annotation has %d bytes, want %d", got, mb)
				}
			}},
		{name: "1 MB unterminated string", short: true,
			gen:      func() []byte { return []byte(pod + "x: \"" + strings.Repeat("abc ", mb/4) + "\n") },
			want:     []want{{RuleInvalidYAML, 9, `YAML syntax error: found unexpected end of stream`}},
			maxAlloc: 48 * mb},
		{name: "one million tiny documents",
			gen: func() []byte { return bytes.Repeat([]byte("---\na: 1\n"), 1_000_000) },
			want: []want{{RuleLimitExceeded, 2*20_000 + 1,
				`more than 20000 YAML documents; only the first 20000 were linted \(raise --max-documents`}},
			// 20 000 small documents are parsed, at about 11 KB each (mostly
			// yaml.v3's parser buffers); the other 980 000 cost nothing:
			// splitting stops at the limit (see TestSplitStaysCheap).
			maxAlloc: 320 * mb},
		{name: "CRLF line endings", file: "crlf.yaml", short: true, want: unknownAt97, workloads: 1, kubectl: true, maxAlloc: mb,
			check: func(t *testing.T, res *Result) {
				if l := res.File.Line(9); l != "      imagePullPolicyy: Always" {
					t.Errorf("line 9 reads %q", l)
				}
			}},
		// Line breaks other than LF: the YAML parser (and kubectl's) reads
		// each of them as a line break, so podlint must too, or the
		// Deployment behind the first "comment line" hides from it.
		{name: "CR-only line endings", file: "cr-only.yaml", short: true, want: hiddenAt15, workloads: 1, kubectl: true, maxAlloc: mb, check: lineReads(15, "          imagePullPolicyy: Always")},
		{name: "NEL line endings", file: "nel.yaml", short: true, want: hiddenAt15, workloads: 1, kubectl: true, maxAlloc: mb, check: lineReads(15, "          imagePullPolicyy: Always")},
		{name: "LS line endings", file: "line-separator.yaml", short: true, want: hiddenAt15, workloads: 1, kubectl: true, maxAlloc: mb, check: lineReads(15, "          imagePullPolicyy: Always")},
		{name: "PS line endings", file: "paragraph-separator.yaml", short: true, want: hiddenAt15, workloads: 1, kubectl: true, maxAlloc: mb, check: lineReads(15, "          imagePullPolicyy: Always")},
		{name: "UTF-8 byte order mark", file: "bom.yaml", short: true, want: unknownAt97, workloads: 1, kubectl: true, maxAlloc: mb},
		{name: "UTF-16 LE", file: "utf16le.yaml", short: true, want: unknownAt97, workloads: 1, maxAlloc: mb,
			check: func(t *testing.T, res *Result) {
				if n := res.Objects[0].Ref.Name; n != "utf16" {
					t.Errorf("name %q, want utf16", n)
				}
			}},
		{name: "UTF-16 BE", file: "utf16be.yaml", short: true, want: unknownAt97, workloads: 1, maxAlloc: mb},
		{name: "NUL bytes", file: "nul-bytes.yaml", short: true, want: []want{{RuleInvalidYAML, 4, `NUL bytes`}}, maxAlloc: mb},
		{name: "not UTF-8", short: true, gen: func() []byte { return []byte(pod + "      command: [caf\xe9]\n") },
			want: []want{{RuleInvalidYAML, 9, `not UTF-8 text \(byte 0xE9\)`}}, maxAlloc: mb},
		{name: "tab indentation", file: "tabs.yaml", short: true, want: []want{{RuleInvalidYAML, 5, `YAML syntax error`}}, kubectl: true, maxAlloc: mb},
		{name: "int32 and int64 overflow", file: "overflow.yaml", short: true, kubectl: true, maxAlloc: mb,
			want: []want{
				{RuleInvalidManifest, 12, `99999999999 does not fit in a 32-bit integer`},
				{RuleInvalidManifest, 13, `99999999999999999999 does not fit in a 64-bit integer`},
			}},
		{name: "negative values", file: "negative.yaml", short: true, workloads: 1, kubectl: true, maxAlloc: mb,
			check: func(t *testing.T, res *Result) {
				if p := res.Objects[0].Workload.Spec.Containers[0].LivenessProbe.PeriodSeconds; p != -1 {
					t.Errorf("periodSeconds = %d, want -1", p)
				}
			}},
		{name: "strings where numbers belong", file: "strings-for-numbers.yaml", short: true, kubectl: true, maxAlloc: mb,
			// Keys are converted in sorted order, as sigs.k8s.io/yaml writes them.
			want: []want{
				{RuleInvalidManifest, 13, `expected a 32-bit integer, found a string \("three"\)`},
				{RuleInvalidManifest, 12, `expected a 32-bit integer, found the string "10"; remove the quotes`},
			}},
		{name: "null everywhere", file: "nulls.yaml", short: true, workloads: 4, kubectl: true, maxAlloc: mb},
		{name: "duplicate keys", file: "duplicate-keys.yaml", short: true, workloads: 1, kubectl: true, maxAlloc: mb,
			want: []want{{RuleDuplicateKey, 7, `key "name" is defined more than once`}, {RuleDuplicateKey, 12, `key "image"`}},
			check: func(t *testing.T, res *Result) {
				p := res.Objects[0].Typed.(*corev1.Pod)
				if p.Name != "dup2" || p.Spec.Containers[0].Image != "nginx" {
					t.Errorf("got name %q image %q; kubectl keeps the last values dup2 and nginx", p.Name, p.Spec.Containers[0].Image)
				}
			}},
		{name: "anchors and merge keys", file: "merge-keys.yaml", short: true, workloads: 1, kubectl: true, maxAlloc: mb,
			check: func(t *testing.T, res *Result) {
				cs := res.Objects[0].Typed.(*corev1.Pod).Spec.Containers
				if len(cs) != 2 || cs[1].Name != "sidecar" || cs[1].Image != "busybox" {
					t.Fatalf("containers %+v", cs)
				}
				// Own keys override merged ones; the first mapping of a merge
				// list wins over later ones.
				lp := cs[1].LivenessProbe
				if lp.PeriodSeconds != 20 || lp.TimeoutSeconds != 7 || lp.FailureThreshold != 3 || lp.TCPSocket == nil {
					t.Errorf("sidecar liveness probe %+v", lp)
				}
			}},
		{name: "unknown anchor", file: "unknown-anchor.yaml", short: true, kubectl: true, maxAlloc: mb,
			want: []want{{RuleInvalidYAML, 6, `unknown anchor 'missing' referenced`}}},
	}
}

func TestHostile(t *testing.T) {
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && !tc.short {
				t.Skip("large generated input; skipped with -short")
			}
			var data []byte
			if tc.file != "" {
				var err error
				if data, err = os.ReadFile(filepath.Join(hostileDir, tc.file)); err != nil {
					t.Fatal(err)
				}
			} else {
				data = tc.gen()
			}
			lim := DefaultLimits
			if tc.limits != nil {
				lim = *tc.limits
			}
			var res *Result
			alloc := allocated(func() { res = Parse("hostile.yaml", data, lim) })
			t.Logf("%d bytes in, %d bytes allocated", len(data), alloc)
			if alloc > tc.maxAlloc {
				t.Errorf("Parse allocated %d bytes, more than the %d allowed", alloc, tc.maxAlloc)
			}
			if len(res.Problems) != len(tc.want) {
				t.Errorf("got %d problems, want %d:", len(res.Problems), len(tc.want))
				for _, p := range res.Problems {
					t.Errorf("  %d:%d %s: %s", p.Line, p.Column, p.Rule, p.Message)
				}
			} else {
				for i, w := range tc.want {
					p := res.Problems[i]
					// The want is written against "headline; detail", the
					// form the loader writes its messages in (see split).
					full := p.Message
					if p.Detail != "" {
						full += "; " + strings.ToLower(p.Detail[:1]) + p.Detail[1:]
					}
					if p.Rule != w.rule || (w.line != 0 && p.Line != w.line) || !regexp.MustCompile(w.msg).MatchString(full) {
						t.Errorf("problem %d: got %d:%d %s %q; want line %d %s matching %q", i, p.Line, p.Column, p.Rule, p.Message, w.line, w.rule, w.msg)
					}
				}
			}
			workloads := 0
			for _, o := range res.Objects {
				if o.Workload != nil {
					workloads++
				}
			}
			if workloads != tc.workloads {
				t.Errorf("decoded %d workloads, want %d", workloads, tc.workloads)
			}
			if tc.check != nil && !t.Failed() {
				tc.check(t, res)
			}
			if tc.kubectl {
				checkDecode(t, data, lim)
			}
		})
	}
}

// lineReads checks the text of a file line.
func lineReads(n int, want string) func(t *testing.T, res *Result) {
	return func(t *testing.T, res *Result) {
		t.Helper()
		if l := res.File.Line(n); l != want {
			t.Errorf("line %d reads %q, want %q", n, l, want)
		}
	}
}

// allocated returns the bytes f allocates.
var allocated = alloctest.Bytes

// TestSplitStaysCheap checks that splitting a stream of a million documents
// allocates for the documents kept, not for the whole stream.
func TestSplitStaysCheap(t *testing.T) {
	data := bytes.Repeat([]byte("---\na: 1\n"), 1_000_000)
	var chunks []chunk
	alloc := allocated(func() { chunks = splitDocuments(data, 101) })
	if len(chunks) != 101 || chunks[100].line != 201 {
		t.Fatalf("got %d chunks, the last at line %d; want 101, the last at line 201", len(chunks), chunks[len(chunks)-1].line)
	}
	if alloc > 64<<10 {
		t.Errorf("splitting off 101 documents allocated %d bytes", alloc)
	}
}
