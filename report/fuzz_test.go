package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
)

// FuzzWriters renders findings with hostile file names, messages, source
// lines and names in every format: each must render without error, the
// machine formats must parse, and no control, bidi or separator character
// may reach the text or github output raw; github output holds exactly one
// workflow command per finding, whatever the text; findings packed in a
// finding.Store render byte for byte as the same findings as values. Run it with
//
//	go test -run=NONE -fuzz=FuzzWriters -fuzztime=10m -parallel=1 ./report
//
// or with scripts/fuzz.sh.
func FuzzWriters(f *testing.F) {
	f.Add("a\n::error file=evil.yaml,line=1::INJECTED\n.yaml", "msg \x1b]0;t\a \x1b[2J", "  key: \u202evalue\u2066", "ctr", 3, 5, "rel\r\n::warning::x")
	f.Add("deploy/app.yaml", "liveness probe kills \"app\" 31s after start", "        livenessProbe:", "app", 12, 9, "grace period is 30s")
	f.Add("-", "%0A::error::x %25", "\t\tcommand: [\"sh\", \"-c\"]", "", 1, 200, "")
	f.Add("d\xff\xfe.yaml", "bad \xc0 utf8 ]]> & <x>", "\x00\x01\x7f\u0085\u2028", "c\u200d", 0, 0, "\x9b31m")
	f.Add("x.yaml", strings.Repeat("long ", 100), strings.Repeat("é", 300), "n", 2, 400, "%")
	f.Fuzz(func(t *testing.T, file, msg, src, container string, line, col int, related string) {
		if len(file)+len(msg)+len(src)+len(related) > 4096 {
			return
		}
		line, col = line%100000, col%100000
		res := &finding.Result{Summary: finding.Summary{Files: 1, Objects: 1, Workloads: 1, ConfigFile: related},
			Findings: []finding.Finding{
				{RuleID: "PL101", RuleName: "liveness-kills-before-ready", Severity: finding.Error,
					Location: finding.Location{File: file, Line: line, Column: col}, Container: container,
					Object:  &finding.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: container, Name: msg},
					Message: msg, SourceLine: src,
					Related: []finding.Location{{File: file, Line: line + 1, Column: 1, Message: related}}},
				{RuleID: "PL999", RuleName: "not-in-catalog", Severity: finding.Info,
					Location: finding.Location{File: related, Line: 1, Column: 1}, Message: src, SourceLine: msg},
			}}
		sortFindings(res.Findings)
		opts := Options{SrcRoot: "/repo", ToolVersion: "fuzz", Rules: fixtureRules()}
		// The same findings packed, as analyzer.Run holds them.
		packed := &finding.Result{Summary: res.Summary, Packed: finding.NewStore()}
		for i := range res.Findings {
			packed.Packed.Add(&res.Findings[i])
		}
		for _, format := range Formats {
			var buf, pbuf bytes.Buffer
			if err := Write(&buf, format, res, opts); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if err := Write(&pbuf, format, packed, opts); err != nil {
				t.Fatalf("%s, packed: %v", format, err)
			}
			out := buf.String()
			if pbuf.String() != out {
				t.Fatalf("%s: packed findings render otherwise:\n%s\nfrom values:\n%s", format, pbuf.String(), out)
			}
			switch format {
			case "json", "sarif", "codeclimate":
				if !json.Valid(buf.Bytes()) {
					t.Fatalf("%s output is not JSON:\n%s", format, out)
				}
			case "junit":
				var v struct{}
				if err := xml.Unmarshal(buf.Bytes(), &v); err != nil {
					t.Fatalf("junit output does not parse: %v\n%s", err, out)
				}
				if m := rawControlRE.FindString(strings.ReplaceAll(out, "\t", " ")); m != "" {
					t.Fatalf("junit: raw %q in the output", m)
				}
			case "text", "github", "markdown":
				if !utf8.ValidString(out) {
					t.Fatalf("%s output is not UTF-8: %q", format, out)
				}
				if m := rawControlRE.FindString(out); m != "" {
					t.Fatalf("%s: raw %q reaches the output:\n%q", format, m, out)
				}
			}
			if format == "github" {
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if len(lines) != len(res.Findings)+1 {
					t.Fatalf("github: %d lines for %d findings:\n%s", len(lines), len(res.Findings), out)
				}
				for _, l := range lines[:len(lines)-1] {
					if !strings.HasPrefix(l, "::error ") && !strings.HasPrefix(l, "::notice ") {
						t.Fatalf("github: line %q is not one of our commands", l)
					}
				}
				if !strings.HasPrefix(lines[len(lines)-1], "podlint: ") {
					t.Fatalf("github: the summary line is %q", lines[len(lines)-1])
				}
			}
		}
	})
}

// rawControlRE matches what must not reach a terminal or a log raw: C0
// controls but the newline, DEL, C1 controls, bidi controls, separators.
var rawControlRE = regexp.MustCompile("[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
