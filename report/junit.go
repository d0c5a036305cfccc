package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
)

// The JUnit XML shape Jenkins (junit plugin) and GitLab (artifacts:reports:
// junit) both read: a <testsuites> root holding one <testsuite>. There is
// no formal schema; these are the attributes both tools understand. No
// timestamps or durations are written so the report is reproducible.
type junitTestSuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Suites   []junitTestSuite `xml:"testsuite"`
}

type junitTestSuite struct {
	Name      string          `xml:"name,attr"`
	Tests     int             `xml:"tests,attr"`
	Failures  int             `xml:"failures,attr"`
	Errors    int             `xml:"errors,attr"`
	Skipped   int             `xml:"skipped,attr"`
	TestCases []junitTestCase `xml:"testcase"`
}

type junitTestCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	// SystemOut holds a passing finding's details (CDATA, see Body).
	SystemOut *junitOutput `xml:"system-out,omitempty"`
}

type junitOutput struct {
	Body string `xml:",cdata"`
}

type junitFailure struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	// The body is CDATA so its line breaks and quotes stay readable in the
	// raw file; xmlSafe keeps it well-formed.
	Body string `xml:",cdata"`
}

// writeJUnit renders one test case per finding. Findings at or above
// --fail-on (Options.FailOn) are failures whose type is the severity; the
// others are passing test cases with the details in system-out, so Jenkins
// and GitLab count as failed exactly what makes podlint exit 1. classname
// is the file so both tools group findings by manifest. With no findings a
// single passing test case is written, because both tools treat an empty
// suite as a broken report.
func writeJUnit(buf *bytes.Buffer, res *finding.Result, opts Options) error {
	rules := ruleIndex(opts.Rules)
	suite := junitTestSuite{Name: "podlint"}
	for i := range res.Findings {
		f := &res.Findings[i]
		rel := relPath(opts.SrcRoot, f.File)
		tc := junitTestCase{
			ClassName: textsafe.Strip(rel),
			Name:      textsafe.Strip(fmt.Sprintf("%s %s at %s", f.RuleID, f.RuleName, position(rel, f.Line, f.Column))),
			File:      textsafe.Strip(rel),
			Line:      max(f.Line, 0),
		}
		// Control and bidi characters are dropped from everything a CI
		// page shows (names, headline, detail, source line).
		details := xmlSafe(textsafe.Strip(junitDetails(f, rel, rules[f.RuleID], opts.SrcRoot)))
		if opts.fails(f) {
			tc.Failure = &junitFailure{Type: f.Severity.String(), Message: textsafe.Strip(f.Headline()), Body: details}
			suite.Failures++
		} else {
			tc.SystemOut = &junitOutput{Body: details}
		}
		suite.TestCases = append(suite.TestCases, tc)
	}
	suite.Tests = len(suite.TestCases)
	if suite.Tests == 0 {
		suite.TestCases = []junitTestCase{{
			ClassName: "podlint",
			Name:      "podlint found no problems in " + plural(res.Summary.Files, "file", "files"),
		}}
		suite.Tests = 1
	}
	out := junitTestSuites{Name: "podlint", Tests: suite.Tests, Failures: suite.Failures, Suites: []junitTestSuite{suite}}
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(buf)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	buf.WriteByte('\n')
	return nil
}

// junitDetails is the failure body CI shows when a test case is expanded:
// everything the text format says, plus where to read about the rule.
func junitDetails(f *finding.Finding, rel string, rule *finding.RuleInfo, root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %s\n", position(rel, f.Line, f.Column), f.Severity, f.Headline())
	if d := f.Explanation(); d != "" {
		fmt.Fprintf(&b, "%s\n", d)
	}
	fmt.Fprintf(&b, "rule: %s %s", f.RuleID, f.RuleName)
	if rule != nil && rule.Title != "" {
		fmt.Fprintf(&b, " (%s)", rule.Title)
	}
	b.WriteByte('\n')
	if f.Object != nil {
		fmt.Fprintf(&b, "object: %s\n", f.Object)
	}
	if f.Container != "" {
		fmt.Fprintf(&b, "container: %s\n", f.Container)
	}
	if src := strings.TrimRight(f.SourceLine, "\r"); src != "" && f.Line >= 1 {
		fmt.Fprintf(&b, "source: %s\n", strings.TrimSpace(src))
	}
	for _, r := range f.Related {
		fmt.Fprintf(&b, "related: %s: %s\n", position(relPath(root, r.File), r.Line, r.Column), r.Message)
	}
	if rule != nil && rule.HelpURI != "" {
		fmt.Fprintf(&b, "help: %s\n", rule.HelpURI)
	}
	return b.String()
}

// xmlSafe replaces characters XML 1.0 forbids (most C0 controls, invalid
// UTF-8) with U+FFFD. encoding/xml does that for escaped text and
// attributes but writes CDATA verbatim, and a source line may carry any
// byte.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return utf8.RuneError
	}, s)
}
