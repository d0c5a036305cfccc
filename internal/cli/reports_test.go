package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/report"
	"github.com/podlint/podlint/rules"
)

// TestSeveralReportsFromOneRun checks that one check run writing every
// format (one to standard output, the others to files) writes each report
// byte for byte as a run of that format alone, on plain files and a
// rendered chart with findings.
func TestSeveralReportsFromOneRun(t *testing.T) {
	base := []string{"--no-config", "--config", slowApps(t), "--category", "ci", "../../testdata/examples", renderData + "/helm/podinfo"}
	want := map[string]string{}
	var wantCode int
	for _, f := range report.Formats {
		code, out, _ := run(t, "", nil, append([]string{"check", "-f", f}, base...)...)
		want[f], wantCode = out, code
	}
	if wantCode != 1 {
		t.Fatalf("the examples and the slow chart have findings, yet check exits %d", wantCode)
	}
	dir := t.TempDir()
	args := []string{"-f", "text"}
	for _, f := range report.Formats[1:] {
		args = append(args, "-f", f+"="+filepath.Join(dir, f))
	}
	code, out, stderr := run(t, "", nil, append(append([]string{"check"}, args...), base...)...)
	if code != wantCode {
		t.Errorf("exit %d, want %d as each format alone; stderr:\n%s", code, wantCode, stderr)
	}
	if out != want["text"] {
		t.Errorf("standard output differs from check -f text:\n%s", firstDiff(out, want["text"]))
	}
	for _, f := range report.Formats[1:] {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s report: %v", f, err)
			continue
		}
		if string(got) != want[f] {
			t.Errorf("%s report differs from check -f %s alone:\n%s", f, f, firstDiff(string(got), want[f]))
		}
	}
	// The markdown report ends with the timelines of workloads with
	// findings: the chart's, placed in its template.
	if !regexp.MustCompile("<details><summary>Deployment [^<]*podinfo[^<]* \\(<code>[^<]*podinfo/templates/deployment\\.yaml:\\d+</code>\\)</summary>\n\n```mermaid\n").MatchString(want["markdown"]) {
		t.Errorf("the markdown report lacks the chart's timeline:\n%s", want["markdown"])
	}
}

// firstDiff shows where two reports part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return "got:  …" + a[from:min(len(a), i+200)] + "\nwant: …" + b[from:min(len(b), i+200)]
}

// TestReportsRenderOnce checks that the markdown report's timelines use the
// chart as check rendered it: one render per root, not one more for the
// timelines.
func TestReportsRenderOnce(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := run(t, "", nil, "check", "--no-config", "--config", slowApps(t), "--debug", "-f", "text", "-f", "markdown="+filepath.Join(dir, "summary.md"), renderData+"/helm/podinfo")
	if code != 1 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	renders := regexp.MustCompile(`(?m)^podlint debug: render [^:]*podinfo: .*in a child process`).FindAllString(stderr, -1)
	if len(renders) != 1 {
		t.Errorf("the chart was rendered %d times, want once:\n%s", len(renders), strings.Join(renders, "\n"))
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(md), "### Timelines") {
		t.Errorf("the summary has no timelines (%v):\n%s", err, md)
	}
	// --timelines 0 leaves them out.
	code, _, stderr = run(t, "", nil, "check", "--no-config", "--config", slowApps(t), "--timelines", "0", "-f", "markdown="+filepath.Join(dir, "plain.md"), renderData+"/helm/podinfo")
	if md, err := os.ReadFile(filepath.Join(dir, "plain.md")); code != 1 || err != nil || strings.Contains(string(md), "Timelines") || !strings.Contains(stderr, "markdown report written to ") {
		t.Errorf("--timelines 0: exit %d (%v), stderr %q:\n%s", code, err, stderr, md)
	}
}

// TestReportSpecErrors checks the usage errors of -f and -o: each exits 2
// before linting and says what to change.
func TestReportSpecErrors(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", "sarif", "-f", "json"}, `--format sarif and --format json would both write to standard output: give one of them its own file, -f FORMAT=FILE`},
		{[]string{"-f", "sarif=" + a, "-f", "json=" + a}, `would both write to "` + a + `"`},
		{[]string{"-f", "sarif=" + a, "-o", filepath.Join(dir, "b")}, `names no report: every --format has its own =FILE`},
		{[]string{"-f", "sarf=" + a}, `--format "sarf": want one of text, json, sarif, github, junit, codeclimate, markdown, optionally with =FILE; did you mean "sarif"?`},
		{[]string{"-f", "markdown="}, `--format markdown=: give the file to write the markdown report to after the =`},
		{[]string{"-f", "sarif", "-o", a, "-f", "json"}, `would both write to`},
		{[]string{"--timelines", "-1"}, `--timelines -1: want 0 or more`},
	} {
		code, out, stderr := run(t, "", nil, append(append([]string{"check", "--no-config"}, tc.args...), "../../testdata/examples/web-deployment.yaml")...)
		if code != ExitError || out != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("check %v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, stderr, tc.want)
		}
		if _, err := os.Stat(a); err == nil {
			t.Errorf("check %v wrote a report despite the usage error", tc.args)
			os.Remove(a)
		}
	}
}

// TestReportFilesWrittenSafely checks that a report file that is a link is
// refused (its target untouched) while the run's other reports are written,
// and that a configuration error still leaves a failed SARIF log at every
// sarif=FILE for code scanning to show.
func TestReportFilesWrittenSafely(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	writeFiles(t, dir, map[string]string{"victim": "keep\n"})
	if err := os.Symlink(victim, filepath.Join(dir, "link.sarif")); err != nil {
		t.Skip(err)
	}
	code, _, stderr := run(t, "", nil, "check", "--no-config", "-f", "sarif="+filepath.Join(dir, "link.sarif"), "-f", "json="+filepath.Join(dir, "r.json"), "../../testdata/examples/web-deployment.yaml")
	if code != ExitError || !strings.Contains(stderr, "is a symbolic link; podlint does not write through links") {
		t.Errorf("exit %d, stderr %q; want 2 and the link refused", code, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "r.json")); err != nil || !strings.Contains(string(b), `"findings"`) {
		t.Errorf("the json report beside the refused one was not written (%v): %.200s", err, b)
	}

	sarif := filepath.Join(dir, "failed.sarif")
	code, out, stderr := run(t, "", nil, "check", "--config", filepath.Join(dir, "missing.yaml"), "-f", "text", "-f", "sarif="+sarif, "../../testdata/examples/web-deployment.yaml")
	b, err := os.ReadFile(sarif)
	if code != ExitError || out != "" || err != nil || !strings.Contains(string(b), `"executionSuccessful": false`) || !strings.Contains(string(b), "missing.yaml") {
		t.Errorf("config error: exit %d, stdout %q, stderr %q; SARIF (%v):\n%s", code, out, stderr, err, b)
	}
}

// Only SARIF prints the rules' documentation: the other formats get the
// catalog without it, so a run does not read every rule's page.
func TestRuleDocsOnlyForSARIF(t *testing.T) {
	sev := map[*rules.Rule]finding.Severity{}
	for _, r := range rules.All {
		sev[r] = r.Severity
	}
	brief, full := ruleInfos(sev, false), ruleInfos(sev, true)
	if len(brief) == 0 || len(brief) != len(full) {
		t.Fatalf("catalog sizes: %d without docs, %d with", len(brief), len(full))
	}
	for i := range brief {
		if brief[i].Doc != "" {
			t.Errorf("%s: doc read for a format that prints none", brief[i].ID)
		}
		if full[i].Doc == "" {
			t.Errorf("%s: no doc for SARIF", full[i].ID)
		}
		if b, f := brief[i], full[i]; b.ID != f.ID || b.Title != f.Title || b.HelpURI != f.HelpURI || b.Severity != f.Severity {
			t.Errorf("%s: the catalogs differ beyond the doc", b.ID)
		}
	}
}
