package report

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/fatih/color"

	"github.com/podlint/podlint/finding"
)

func TestExpandLine(t *testing.T) {
	for _, c := range []struct {
		line      string
		col       int
		wantLine  string
		wantCaret int
	}{
		{"abc", 1, "abc", 0},
		{"abc", 3, "abc", 2},
		{"abc", 4, "abc", 3},   // just past the end
		{"abc", 200, "abc", 3}, // far past the end: right after the text
		{"abc", 0, "abc", 0},   // no column: the start
		{"\tx", 2, "    x", 4},
		{"ab\tx", 4, "ab  x", 4}, // tab stops, not fixed widths
		{"a\tb\tc", 5, "a   b   c", 8},
		{"é=1", 3, "é=1", 1},     // one cell for a two-byte rune
		{"é=1", 2, "é=1", 0},     // inside é: points at é
		{"x: 1\r", 4, "x: 1", 3}, // CRLF files
		{"", 3, "", 0},
	} {
		gotLine, gotCaret := expandLine(c.line, c.col)
		if gotLine != c.wantLine || gotCaret != c.wantCaret {
			t.Errorf("expandLine(%q, %d) = %q, %d; want %q, %d", c.line, c.col, gotLine, gotCaret, c.wantLine, c.wantCaret)
		}
	}
}

// TestTextSnippet checks the caret lands under the reported byte in the
// rendered output, through tabs and multi-byte text.
func TestTextSnippet(t *testing.T) {
	out := string(render(t, "text", fixtureResult(), testOptions(t)))
	lines := strings.Split(out, "\n")
	for _, c := range []struct{ header, under string }{
		{"deploy/app.yaml:12:9:", "l"},
		{"deploy/app.yaml:22:", `"`},
		{"deploy/my app ü#1.yaml:7:", "1"},
		{"<stdin>:3:5:", "l"},
	} {
		i := indexWithPrefix(lines, c.header)
		if i < 0 || i+2 >= len(lines) {
			t.Fatalf("no finding %q in\n%s", c.header, out)
		}
		src := []rune(strings.SplitN(lines[i+1], " | ", 2)[1])
		caret := strings.SplitN(lines[i+2], " | ", 2)[1]
		at := strings.Index(caret, "^")
		if at < 0 || at >= len(src) || string(src[at]) != c.under {
			t.Errorf("%s: caret %q does not point at %q in %q", c.header, caret, c.under, string(src))
		}
	}
	// Past the end: caret right after "Always".
	i := indexWithPrefix(lines, "deploy/app.yaml:41:200:")
	if want := "   | " + strings.Repeat(" ", len("  restartPolicy: Always")) + "^"; i < 0 || lines[i+2] != want {
		t.Errorf("past-the-end caret:\n%q\nwant\n%q", lines[i+2], want)
	}
	// No source line: the finding goes straight to its detail, the blank
	// line that ends it, then the next.
	i = indexWithPrefix(lines, "../outside/job.yaml:9:3: error:")
	if i < 0 || !strings.HasPrefix(lines[i+1], "  index out of range") || lines[i+2] != "" || !strings.HasPrefix(lines[i+3], "deploy/app.yaml:12:9:") {
		t.Errorf("finding without a source line should have no snippet:\n%s", out)
	}
	if !strings.Contains(out, "[PL101 liveness-kills-before-ready]") {
		t.Errorf("rule ID and name missing:\n%s", out)
	}
	if !strings.Contains(out, "\n  deploy/app.yaml:17:32: readiness can first pass") {
		t.Errorf("related location missing:\n%s", out)
	}
	if !strings.HasSuffix(out, "\n\n4 files, 7 objects (5 workloads): 3 errors, 2 warnings, 1 info\n") ||
		!strings.Contains(out, "\nrule  ") && !strings.Contains(out, "\nrule ") {
		t.Errorf("summary missing:\n%s", out)
	}
}

func indexWithPrefix(lines []string, prefix string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

// TestTextColor: colors appear only when asked for, and asking wins over
// fatih/color's global switch (which NO_COLOR and non-terminals flip):
// the CLI has already decided.
func TestTextColor(t *testing.T) {
	saved := color.NoColor
	color.NoColor = true
	defer func() { color.NoColor = saved }()

	opts := testOptions(t)
	plain := string(render(t, "text", fixtureResult(), opts))
	if strings.Contains(plain, "\x1b[") {
		t.Errorf("escape codes without Color:\n%q", plain)
	}
	opts.Color = true
	colored := string(render(t, "text", fixtureResult(), opts))
	for _, want := range []string{
		"\x1b[1mdeploy/app.yaml:12:9\x1b[22m", // bold position
		"\x1b[31merror\x1b[0m",
		"\x1b[33mwarning\x1b[0m",
		"\x1b[36minfo\x1b[0m",
		"\x1b[32m^\x1b[0m",
	} {
		if !strings.Contains(colored, want) {
			t.Errorf("colored text lacks %q:\n%q", want, colored)
		}
	}
	if stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(colored, ""); stripped != plain {
		t.Errorf("colored text differs from plain text beyond escape codes:\n%s\n---\n%s", stripped, plain)
	}
}

func TestJSON(t *testing.T) {
	raw := render(t, "json", fixtureResult(), testOptions(t))
	var got jsonReport
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("json output does not match the documented shape: %v", err)
	}
	if got.Version != 1 || len(got.Findings) != 6 {
		t.Fatalf("version %d, %d findings", got.Version, len(got.Findings))
	}
	f := got.Findings[2]
	want := jsonFinding{
		ID: "PL101", Name: "liveness-kills-before-ready", Severity: "error", File: "deploy/app.yaml", Line: 12, Column: 9,
		Object:    &jsonObject{"apps/v1", "Deployment", "shop", "web"},
		Container: "app", Message: fixtureResult().Findings[2].Message, Detail: fixtureResult().Findings[2].Detail,
		Path:  "spec.template.spec.containers[0].livenessProbe",
		Fixes: []jsonFix{},
		Related: []jsonLocation{
			{"deploy/app.yaml", 13, 32, "liveness starts failing after initialDelaySeconds 1s + 3 × periodSeconds 10s"},
			{"deploy/app.yaml", 17, 32, "readiness can first pass at initialDelaySeconds 45s"},
		},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("finding\n%+v\nwant\n%+v", f, want)
	}
	wantFix := []jsonFix{{Title: "Raise terminationGracePeriodSeconds to 70", Safety: "unsafe",
		Edits: []jsonEdit{{"deploy/app.yaml", 402, 404, 19, 38, 19, 40, "70"}}}}
	if !reflect.DeepEqual(got.Findings[3].Fixes, wantFix) {
		t.Errorf("fixes = %+v, want %+v", got.Findings[3].Fixes, wantFix)
	}
	if !reflect.DeepEqual(got.Summary, jsonSummary{4, 7, 5, 3, 2, 1, []string{}, "", nil, 0, nil}) {
		t.Errorf("summary = %+v", got.Summary)
	}
	// Every key is present even when empty, so jq filters need no checks.
	for _, key := range []string{`"related": []`, `"container": ""`, `"fixes": []`} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("json lacks %s", key)
		}
	}
	if !bytes.HasSuffix(raw, []byte("}\n")) || !bytes.HasPrefix(raw, []byte("{\n  \"version\": 1,")) {
		t.Errorf("want 2-space indentation and a trailing newline:\n%s", raw)
	}

	empty := render(t, "json", emptyResult(), testOptions(t))
	if !bytes.Contains(empty, []byte(`"findings": []`)) {
		t.Errorf("empty findings must be [] not null:\n%s", empty)
	}
}

func TestGitHubEscaping(t *testing.T) {
	for _, c := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"k: v, w", "k: v, w", "k%3A v%2C w"},
		{"%0A", "%250A", "%250A"}, // a literal %0A must not become a newline
	} {
		if got := escapeData(c.in); got != c.data {
			t.Errorf("escapeData(%q) = %q, want %q", c.in, got, c.data)
		}
		if got := escapeProperty(c.in); got != c.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", c.in, got, c.prop)
		}
	}
}

func TestGitHub(t *testing.T) {
	out := string(render(t, "github", fixtureResult(), testOptions(t)))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("want 6 commands and a summary, got:\n%s", out)
	}
	for _, want := range []string{
		"::error title=[PL101] liveness-kills-before-ready::liveness probe kills \"probe\"", // stdin: no file
		"::error file=deploy/app.yaml,line=12,col=9,title=[PL101] liveness-kills-before-ready::",
		"%0Adeploy/app.yaml:13:32: liveness starts failing",
		"::notice file=deploy/app.yaml,line=41,col=200,title=[PL601] best-effort-qos::Pods of this Deployment are BestEffort: no container requests cpu or memory (100%25 BestEffort)",
		"::warning file=deploy/my app ü#1.yaml,line=7,",
		"::error file=../outside/job.yaml,line=9,col=3,title=[PL009] internal-error::",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("github output lacks %q:\n%s", want, out)
		}
	}
	if lines[6] != "podlint: 4 files, 7 objects (5 workloads): 3 errors, 2 warnings, 1 info" {
		t.Errorf("summary line = %q", lines[6])
	}

	// Past GitHub's per-step limit the summary points at SARIF.
	many := &finding.Result{}
	for i := range githubLimit + 1 {
		f := fixtureResult().Findings[2]
		f.Line = i + 1
		many.Findings = append(many.Findings, f)
	}
	out = string(render(t, "github", many, testOptions(t)))
	if !strings.Contains(out, "only the first 10 error annotations") || strings.Contains(out, "warning annotations") {
		t.Errorf("limit note wrong:\n%s", out)
	}
}

func TestJUnit(t *testing.T) {
	for name, res := range map[string]*finding.Result{"findings": fixtureResult(), "empty": emptyResult()} {
		raw := render(t, "junit", res, testOptions(t))
		if !bytes.HasPrefix(raw, []byte(xml.Header)) {
			t.Errorf("%s: no XML header", name)
		}
		var got junitTestSuites
		if err := xml.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: junit output does not parse: %v\n%s", name, err, raw)
		}
		if len(got.Suites) != 1 || got.Suites[0].Name != "podlint" {
			t.Fatalf("%s: want one testsuite named podlint, got %+v", name, got.Suites)
		}
		s := got.Suites[0]
		failures := 0
		for _, tc := range s.TestCases {
			if tc.Failure != nil {
				failures++
			}
		}
		n := 0 // at or above the default --fail-on, error
		for i := range res.Findings {
			if res.Findings[i].Severity >= finding.Error {
				n++
			}
		}
		wantTests := max(len(res.Findings), 1)
		if s.Tests != wantTests || len(s.TestCases) != wantTests || got.Tests != wantTests ||
			s.Failures != n || failures != n || got.Failures != n {
			t.Errorf("%s: tests %d/%d/%d failures %d/%d/%d, want %d and %d",
				name, got.Tests, s.Tests, len(s.TestCases), got.Failures, s.Failures, failures, wantTests, n)
		}
	}

	// With --fail-on warning the warnings fail too.
	warnOpts := testOptions(t)
	warnOpts.FailOn = finding.Warning
	var got junitTestSuites
	if err := xml.Unmarshal(render(t, "junit", fixtureResult(), warnOpts), &got); err != nil {
		t.Fatal(err)
	}
	if got.Failures != 5 {
		t.Errorf("--fail-on warning: %d failures, want 5 (3 errors, 2 warnings)", got.Failures)
	}
	// With the default (error) a warning is a passing test case whose
	// details are in system-out; with --fail-on never nothing fails.
	var def junitTestSuites
	if err := xml.Unmarshal(render(t, "junit", fixtureResult(), testOptions(t)), &def); err != nil {
		t.Fatal(err)
	}
	if tc := def.Suites[0].TestCases[5]; tc.Failure != nil || tc.SystemOut == nil || !strings.Contains(tc.SystemOut.Body, "rule: PL404") {
		t.Errorf("a warning below --fail-on should pass with system-out: %+v", tc)
	}
	neverOpts := testOptions(t)
	neverOpts.FailOn = Never
	var never junitTestSuites
	if err := xml.Unmarshal(render(t, "junit", fixtureResult(), neverOpts), &never); err != nil {
		t.Fatal(err)
	}
	if never.Failures != 0 || never.Suites[0].Failures != 0 {
		t.Errorf("--fail-on never: %d failures, want 0", never.Failures)
	}

	// Bytes XML forbids, and a CDATA terminator, in both a message
	// (attribute and body) and a source line (body only) still parse;
	// control characters and bytes that are not UTF-8 are stripped.
	nasty := fixtureResult()
	nasty.Findings[2].Message = "bell\a nul\x00 esc\x1b end]]> bad\xff"
	nasty.Findings[2].SourceLine = "        livenessProbe: \x01]]>"
	var parsed junitTestSuites
	if err := xml.Unmarshal(render(t, "junit", nasty, warnOpts), &parsed); err != nil {
		t.Fatalf("junit with control characters does not parse: %v", err)
	}
	if body := parsed.Suites[0].TestCases[2].Failure.Body; !strings.Contains(body, "bell nul esc end]]> bad\n") || !strings.Contains(body, "livenessProbe: ]]>") {
		t.Errorf("body not sanitized as expected:\n%q", body)
	}
	tc := got.Suites[0].TestCases[5]
	if tc.ClassName != "deploy/my app ü#1.yaml" || tc.Name != "PL404 sidecar-startup-order at deploy/my app ü#1.yaml:7:21" ||
		tc.Failure.Type != "warning" || tc.Failure.Message != fixtureResult().Findings[5].Message {
		t.Errorf("test case = %+v %+v", tc, tc.Failure)
	}
	for _, want := range []string{"rule: PL404 sidecar-startup-order (later containers start before", "object: StatefulSet db/pg", "container: proxy",
		"help: https://github.com/podlint/podlint/blob/main/docs/rules/PL404.md"} {
		if !strings.Contains(tc.Failure.Body, want) {
			t.Errorf("failure body lacks %q:\n%s", want, tc.Failure.Body)
		}
	}
}

func TestCodeClimate(t *testing.T) {
	// Below --fail-on (default error) every finding is "info", so GitLab
	// ranks as problems what fails the pipeline.
	var def []CodeClimateIssue
	if err := json.Unmarshal(render(t, "codeclimate", fixtureResult(), testOptions(t)), &def); err != nil {
		t.Fatal(err)
	}
	for _, is := range def {
		if want := map[bool]string{true: "major", false: "info"}[strings.HasPrefix(is.CheckName, "PL101") || strings.HasPrefix(is.CheckName, "PL009")]; is.Severity != want {
			t.Errorf("default --fail-on: %s is %s, want %s", is.CheckName, is.Severity, want)
		}
	}
	opts := testOptions(t)
	opts.FailOn = finding.Warning
	raw := render(t, "codeclimate", fixtureResult(), opts)
	var issues []CodeClimateIssue
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&issues); err != nil {
		t.Fatalf("codeclimate output does not match CodeClimateIssue: %v", err)
	}
	if len(issues) != 6 {
		t.Fatalf("%d issues, want 6", len(issues))
	}
	seen := map[string]bool{}
	for _, is := range issues {
		if b, err := hex.DecodeString(is.Fingerprint); err != nil || len(b) != 16 || seen[is.Fingerprint] {
			t.Errorf("fingerprint %q is not a unique md5 hex", is.Fingerprint)
		}
		seen[is.Fingerprint] = true
		if is.Type != "issue" || is.Location.Path == "" || strings.HasPrefix(is.Location.Path, "/") || is.Location.Lines.Begin < 1 {
			t.Errorf("bad issue %+v", is)
		}
	}
	want := []struct{ path, severity, check string }{
		{"stdin", "major", "PL101 liveness-kills-before-ready"},
		{"../outside/job.yaml", "major", "PL009 internal-error"},
		{"deploy/app.yaml", "major", "PL101 liveness-kills-before-ready"},
		{"deploy/app.yaml", "minor", "PL201 prestop-exceeds-grace"},
		{"deploy/app.yaml", "info", "PL601 best-effort-qos"},
		{"deploy/my app ü#1.yaml", "minor", "PL404 sidecar-startup-order"},
	}
	for i, w := range want {
		if is := issues[i]; is.Location.Path != w.path || is.Severity != w.severity || is.CheckName != w.check {
			t.Errorf("issue %d = %s %s %s, want %s %s %s", i, is.Location.Path, is.Severity, is.CheckName, w.path, w.severity, w.check)
		}
	}
	if got := issues[2].OtherLocations; len(got) != 2 || got[1].Lines.Begin != 17 {
		t.Errorf("related locations not in other_locations: %+v", got)
	}

	// Moving lines keeps fingerprints, so GitLab shows no new issues.
	moved := fixtureResult()
	for i := range moved.Findings {
		moved.Findings[i].Line += 3
	}
	var movedIssues []CodeClimateIssue
	if err := json.Unmarshal(render(t, "codeclimate", moved, testOptions(t)), &movedIssues); err != nil {
		t.Fatal(err)
	}
	for i := range issues {
		if issues[i].Fingerprint != movedIssues[i].Fingerprint {
			t.Errorf("issue %d: fingerprint changed when lines moved", i)
		}
	}

	if empty := render(t, "codeclimate", emptyResult(), testOptions(t)); string(empty) != "[]\n" {
		t.Errorf("empty codeclimate = %q, want []", empty)
	}
}
