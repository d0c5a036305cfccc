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
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func config() *analyzer.Config {
	sev := map[*rules.Rule]finding.Severity{}
	for _, r := range rules.All {
		if !r.DefaultOff {
			sev[r] = r.Severity
		}
	}
	return &analyzer.Config{Rules: rules.All, Severity: sev, Version: timeline.Latest, Params: timeline.DefaultParams(), Limits: manifest.DefaultLimits}
}

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
	cfg := config()
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
