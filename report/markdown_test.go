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

// TestMarkdownLimit: a huge run stays under GitHub's 1 MiB job summary
// limit, errors come first, rows are never cut, and a line says how many
// findings were left out.
func TestMarkdownLimit(t *testing.T) {
	res := &finding.Result{Summary: finding.Summary{Files: 1}}
	for i := 0; i < 6000; i++ {
		f := finding.Finding{RuleID: "PL601", RuleName: "best-effort-qos", Severity: finding.Info,
			Location: finding.Location{File: "a.yaml", Line: i + 1, Column: 1},
			Message:  "Pods of this Deployment are BestEffort", Detail: strings.Repeat("Long detail text. ", 12)}
		if i%1000 == 0 {
			f.RuleID, f.RuleName, f.Severity = "PL101", "liveness-kills-before-ready", finding.Error
		}
		res.Findings = append(res.Findings, f)
	}
	out := string(render(t, "markdown", res, testOptions(t)))
	if len(out) > 1<<20 {
		t.Fatalf("%d bytes, more than 1 MiB", len(out))
	}
	if e, i := strings.Index(out, "### Errors (6)"), strings.Index(out, "<summary>Infos (5994)</summary>"); e < 0 || i < 0 || e > i {
		t.Errorf("errors must come before the collapsed infos")
	}
	if !regexp.MustCompile(`\n\d+ findings left out to stay under GitHub's 1 MiB`).MatchString(out) {
		t.Errorf("no truncation note")
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasSuffix(l, " |") {
			t.Fatalf("a row was cut: %q", l)
		}
	}
	if !strings.Contains(out, "\n</details>\n") {
		t.Errorf("the infos section is not closed")
	}
}

// TestMarkdownTimelines checks the timelines that end the markdown report:
// each collapsed under its workload and place (escaped as HTML), in order,
// and one that would pass the 1 MiB limit left out with a line saying so.
func TestMarkdownTimelines(t *testing.T) {
	res := &finding.Result{Summary: finding.Summary{Files: 1, Objects: 2, Workloads: 2}, Findings: []finding.Finding{{
		RuleID: "PL101", RuleName: "liveness-kills-before-ready", Severity: finding.Error,
		Location: finding.Location{File: "a.yaml", Line: 2, Column: 3}, Message: "m",
	}}}
	opts := testOptions(t)
	chart := "```mermaid\ngantt\n    title x\n```\n"
	opts.Timelines = []Timeline{
		{Title: "Deployment prod/<web>", File: "a.yaml", Line: 1, Mermaid: chart},
		{Title: "Deployment huge", File: "b.yaml", Line: 1, Mermaid: "```mermaid\n" + strings.Repeat("x", markdownLimit) + "\n```\n"},
		{Title: "Job j", File: "c.yaml", Line: 7, Mermaid: chart},
	}
	out := string(render(t, "markdown", res, opts))
	for _, want := range []string{
		"\n### Timelines\n",
		"<details><summary>Deployment prod/&lt;web&gt; (<code>a.yaml:1</code>)</summary>\n\n" + chart + "</details>\n",
		"<details><summary>Job j (<code>c.yaml:7</code>)</summary>",
		"1 timeline left out to stay under GitHub's 1 MiB job summary limit",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%.2000s", want, out)
		}
	}
	if strings.Contains(out, "Deployment huge") || len(out) > markdownLimit+200 {
		t.Errorf("the timeline over the limit was written (%d bytes)", len(out))
	}
	if strings.Index(out, "prod/&lt;web&gt;") > strings.Index(out, "Job j") {
		t.Errorf("timelines out of order:\n%.2000s", out)
	}
	opts.Timelines = nil
	if out := string(render(t, "markdown", res, opts)); strings.Contains(out, "Timelines") {
		t.Errorf("no timelines given, yet a Timelines section:\n%s", out)
	}
}
