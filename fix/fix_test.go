package fix_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/internal/testcorpus"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestTrickyGolden fixes (unsafe fixes included) a manifest with
// comments, anchors and aliases, flow mappings, quoted strings, CRLF line
// ends and multi-byte text, and compares the result with
// testdata/tricky.fixed.yaml. Beyond the golden: every line that changed
// holds a field one of the applied fixes names, every line still ends in
// CRLF, and the finding behind an anchor got no fix.
func TestTrickyGolden(t *testing.T) {
	in := filepath.Join("testdata", "tricky.yaml")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	cfg := analyzer.Default()
	res := fix.File(cfg, in, data, finding.Unsafe)
	golden := filepath.Join("testdata", "tricky.fixed.yaml")
	if *update {
		if err := os.WriteFile(golden, res.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(res.Data, want) {
		t.Errorf("fixed text differs from %s (go test ./fix -run TestTrickyGolden -update rewrites it):\n%s", golden, res.Data)
	}
	if len(res.Applied) < 4 {
		t.Fatalf("applied %d fixes, want at least 4 (PL301, PL113, PL106, PL201): %+v", len(res.Applied), res.Applied)
	}
	fields := map[string]bool{}
	for _, a := range res.Applied {
		for _, p := range a.Fix.Paths {
			segs := strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '[' })
			fields[segs[len(segs)-1]] = true
		}
	}
	old := strings.Split(string(data), "\r\n")
	now := strings.Split(string(res.Data), "\r\n")
	changed := changedLines(old, now)
	if len(changed) == 0 {
		t.Fatal("no line changed")
	}
	for _, l := range changed {
		named := false
		for f := range fields {
			if strings.Contains(l, f+":") {
				named = true
			}
		}
		if !named {
			t.Errorf("line %q changed, but names none of the fixed fields %v", l, fields)
		}
	}
	if n := bytes.Count(res.Data, []byte("\n")); n != bytes.Count(res.Data, []byte("\r\n")) {
		t.Errorf("%d line breaks, %d of them CRLF: the fix wrote LF into a CRLF file", n, bytes.Count(res.Data, []byte("\r\n")))
	}
	for _, f := range res.Findings {
		if f.Object != nil && f.Object.Name == "anchored" && f.RuleID == "PL113" && len(f.Fixes) > 0 {
			t.Errorf("the finding behind an anchor has a fix: %+v", f.Fixes)
		}
	}
	t.Logf("changed lines:\n%s", strings.Join(changed, "\n"))
}

// changedLines returns the lines of now that are not in old at the same
// place, matching unchanged runs from both ends and through the middle
// (a longest-common-subsequence diff).
func changedLines(old, now []string) []string {
	n, m := len(old), len(now)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if old[i] == now[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && old[i] == now[j]:
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+ "+now[j])
			j++
		default:
			out = append(out, "- "+old[i])
			i++
		}
	}
	return out
}

const twoHooks = `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  terminationGracePeriodSeconds: 10
  containers:
    - name: a
      image: example/a:1
      lifecycle:
        preStop: {sleep: {seconds: 20}}
    - name: b
      image: example/b:1
      lifecycle:
        preStop: {sleep: {seconds: 30}}
`

// TestConflictsResolvedInPasses: two findings whose fixes both set the
// grace period conflict; File applies one, lints again and applies what
// is still needed in a later pass, and ends without a PL201.
func TestConflictsResolvedInPasses(t *testing.T) {
	cfg := analyzer.Default()
	res := fix.File(cfg, "p.yaml", []byte(twoHooks), finding.Unsafe)
	if len(res.Skipped) > 0 {
		t.Errorf("skipped: %+v", res.Skipped)
	}
	for _, f := range res.Findings {
		if f.RuleID == "PL201" {
			t.Errorf("PL201 remains: %s", f.Message)
		}
	}
	if res.Passes < 1 || res.Passes > fix.MaxPasses || len(res.Applied) < 1 {
		t.Errorf("%d passes, %d applied", res.Passes, len(res.Applied))
	}
	if !strings.Contains(string(res.Data), "terminationGracePeriodSeconds: 40") {
		t.Errorf("grace period not raised to 30 + 10:\n%s", res.Data)
	}
	// Only safe fixes: the unsafe ones are left, and reported as
	// nothing (they were not chosen).
	safe := fix.File(cfg, "p.yaml", []byte(twoHooks), finding.Safe)
	if safe.Changed() || len(safe.Skipped) > 0 {
		t.Errorf("safe run changed the file or skipped fixes: %+v", safe.Skipped)
	}
}

// TestVerifyRejects: fixes that break the file, change another field,
// leave the finding or add one fail verification.
func TestVerifyRejects(t *testing.T) {
	data := []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: a\n      image: example/a:1\n      livenessProbe:\n        tcpSocket: {port: 80}\n        successThreshold: 3\n")
	cfg := analyzer.Default()
	before, _ := cfg.File("p.yaml", data, true)
	var f *finding.Finding
	for i := range before {
		if before[i].RuleID == "PL113" {
			f = &before[i]
		}
	}
	if f == nil || len(f.Fixes) != 1 {
		t.Fatalf("no PL113 finding with one fix: %+v", before)
	}
	if _, err := fix.Verify(cfg, "p.yaml", data, before, f, &f.Fixes[0]); err != nil {
		t.Fatalf("the rule's own fix fails: %v", err)
	}
	at := strings.Index(string(data), "3\n")
	img := strings.Index(string(data), "example/a:1")
	for name, x := range map[string]finding.Fix{
		"breaks the YAML":       {Paths: f.Fixes[0].Paths, Edits: []finding.Edit{{File: "p.yaml", Start: at, End: at + 1, NewText: "[1"}}},
		"changes another field": {Paths: f.Fixes[0].Paths, Edits: []finding.Edit{{File: "p.yaml", Start: at, End: at + 1, NewText: "1"}, {File: "p.yaml", Start: img, End: img + 9, NewText: "example/b"}}},
		"leaves the finding":    {Paths: f.Fixes[0].Paths, Edits: []finding.Edit{{File: "p.yaml", Start: at, End: at + 1, NewText: "4"}}},
		"adds a finding":        {Paths: []string{"spec.containers[0].livenessProbe"}, Edits: []finding.Edit{{File: "p.yaml", Start: at, End: at + 1, NewText: "1\n        timeoutSeconds: 30"}}},
		"edits another file":    {Paths: f.Fixes[0].Paths, Edits: []finding.Edit{{File: "q.yaml", Start: at, End: at + 1, NewText: "1"}}},
		"overlapping edits":     {Paths: f.Fixes[0].Paths, Edits: []finding.Edit{{File: "p.yaml", Start: at, End: at + 1, NewText: "1"}, {File: "p.yaml", Start: at, End: at + 1, NewText: "1"}}},
	} {
		if _, err := fix.Verify(cfg, "p.yaml", data, before, f, &x); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
	// VerifyResult drops the bad fix and keeps the good one.
	bad := finding.Fix{Title: "bad", Safety: finding.Safe, Paths: f.Fixes[0].Paths, Edits: []finding.Edit{{File: "p.yaml", Start: at, End: at + 1, NewText: "4"}}}
	res := &finding.Result{Findings: []finding.Finding{*f}}
	res.Findings[0].Fixes = []finding.Fix{bad, f.Fixes[0]}
	if n := fix.VerifyResult(cfg, res, func(string) ([]byte, error) { return data, nil }); n != 1 || len(res.Findings[0].Fixes) != 1 || res.Findings[0].Fixes[0].Title == "bad" {
		t.Errorf("VerifyResult dropped %d, left %+v", n, res.Findings[0].Fixes)
	}
}

// TestEncodings: a file with a UTF-8 byte order mark is fixed with the
// mark kept; a UTF-16 file (which the loader transcodes) gets no fix,
// since its offsets are not the file's.
func TestEncodings(t *testing.T) {
	doc := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: a\n      image: example/a:1\n      livenessProbe:\n        tcpSocket: {port: 80}\n        successThreshold: 3\n"
	cfg := analyzer.Default()
	bom := append([]byte{0xEF, 0xBB, 0xBF}, doc...)
	res := fix.File(cfg, "p.yaml", bom, finding.Safe)
	want := append([]byte{0xEF, 0xBB, 0xBF}, strings.Replace(doc, "successThreshold: 3", "successThreshold: 1", 1)...)
	if !bytes.Equal(res.Data, want) {
		t.Errorf("with a byte order mark: got %q", res.Data)
	}
	var u16 []byte
	u16 = append(u16, 0xFF, 0xFE)
	for _, r := range doc {
		u16 = append(u16, byte(r), 0)
	}
	findings, _ := cfg.File("p.yaml", u16, true)
	n := 0
	for _, f := range findings {
		n += len(f.Fixes)
		if f.RuleID == "PL113" {
			n += 100
		}
	}
	if n != 100 {
		t.Errorf("UTF-16: want the PL113 finding without fixes, got %d fixes (+100 per PL113): %+v", n, findings)
	}
}

// TestSampleCorpus fixes every file of the committed sample corpus with
// the unsafe fixes too: a fix applied must have resolved its finding
// without adding one (File verifies each; this checks the whole run from
// outside), the result must parse as the original did, and an unchanged
// file must come back byte for byte. It also bounds the passes.
func TestSampleCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("lints the sample corpus several times")
	}
	dir, err := testcorpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	files, err := testcorpus.Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := analyzer.Default()
	applied, changed := 0, 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		before, _ := cfg.File(path, data, true)
		res := fix.File(cfg, path, data, finding.Unsafe)
		if !res.Changed() {
			if !bytes.Equal(res.Data, data) {
				t.Errorf("%s: no fix applied, but the bytes changed", path)
			}
			continue
		}
		changed++
		applied += len(res.Applied)
		after, _ := cfg.File(path, res.Data, true)
		if len(after) >= len(before) {
			t.Errorf("%s: %d findings before the fixes, %d after", path, len(before), len(after))
		}
		broken := func(fs []finding.Finding) (n int) {
			for _, f := range fs {
				if f.RuleID == "PL001" || f.RuleID == "PL002" {
					n++
				}
			}
			return n
		}
		if broken(after) > broken(before) {
			t.Errorf("%s: the fixed file has more invalid-yaml or invalid-manifest findings than the original", path)
		}
		if res.Passes > fix.MaxPasses {
			t.Errorf("%s: %d passes", path, res.Passes)
		}
	}
	if applied == 0 {
		t.Error("no fix applied anywhere in the sample corpus")
	}
	t.Logf("%d fixes applied in %d of %d files", applied, changed, len(files))
}
