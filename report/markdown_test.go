package report

import (
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
)

// unescapedPipe is a cell separator: a "|" not preceded by a backslash.
var unescapedPipe = regexp.MustCompile(`(^|[^\\])\|`)

// TestMarkdownEscaping feeds text that would break a table or turn into
// markup and checks every row still has four cells and the text survives.
func TestMarkdownEscaping(t *testing.T) {
	res := &finding.Result{Summary: finding.Summary{Files: 1, Objects: 1, Workloads: 1}, Findings: []finding.Finding{{
		RuleID: "PL101", RuleName: "liveness-kills-before-ready", Severity: finding.Error,
		Location: finding.Location{File: "a|b.yaml", Line: 2, Column: 3},
		Message:  "x | y <stdin> *not bold* _nor_ `code` [link](u) ~~s~~ a\\b &amp;\nsecond line",
		Related:  []finding.Location{{File: "a|b.yaml", Line: 4, Column: 1, Message: "also | here"}},
	}}}
	out := string(render(t, "markdown", res, testOptions(t)))
	var rows []string
	inFindings := false
	for _, l := range strings.Split(out, "\n") {
		inFindings = inFindings || strings.HasPrefix(l, "| Location |")
		if inFindings && strings.HasPrefix(l, "| ") {
			rows = append(rows, l)
		}
	}
	if len(rows) != 2 {
		t.Fatalf("want a header and one row, got %d rows:\n%s", len(rows), out)
	}
	for _, r := range rows {
		if n := len(unescapedPipe.FindAllString(r, -1)); n != 4 {
			t.Errorf("row has %d cell separators, want 4: %s", n, r)
		}
	}
	for _, want := range []string{`a\|b.yaml:2:3`, `x \| y \<stdin\> \*not bold\* \_nor\_ \` + "`code\\`" + ` \[link\](u) \~\~s\~\~ a\\b &amp;amp;<br>second line`,
		`<br>↳ a\|b.yaml:4:1: also \| here`} {
		if !strings.Contains(rows[1], want) {
			t.Errorf("row lacks %s:\n%s", want, rows[1])
		}
	}
}
