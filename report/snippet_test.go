package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
)

// A finding on a long line carries a window of it (manifest.File.Snippet):
// the caret must still sit under the character the column names, and SARIF
// must still count code points from the start of the whole line.
func TestCutSnippet(t *testing.T) {
	line := strings.Repeat("é", 500) + "TARGET" + strings.Repeat("x", 500)
	col := strings.Index(line, "TARGET") + 1 // 1-based byte column
	cut := col - 1 - 80
	window := finding.Ellipsis + line[cut:cut+160] + finding.Ellipsis
	f := finding.Finding{RuleID: "PL101", RuleName: "r", Severity: finding.Error,
		Location: finding.Location{File: "f.json", Line: 1, Column: col}, Message: "m",
		SourceLine: window, SourceCut: cut, SourceCutRunes: utf8.RuneCountInString(line[:cut])}
	res := &finding.Result{Findings: []finding.Finding{f}}

	var buf bytes.Buffer
	if err := Write(&buf, "text", res, Options{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	src, caret := []rune(lines[1]), []rune(lines[2])
	at := strings.IndexRune(string(caret), '^')
	if at < 0 || !strings.HasPrefix(string(src[utf8.RuneCountInString(string(caret[:at])):]), "TARGET") {
		t.Errorf("caret not under TARGET:\n%s\n%s", lines[1], lines[2])
	}

	buf.Reset()
	if err := Write(&buf, "sarif", res, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := utf8.RuneCountInString(line[:col-1]) + 1
	if got := doc.Runs[0].Results[0].Locations[0].PhysicalLocation.Region.StartColumn; got != want {
		t.Errorf("SARIF startColumn %d, want %d (code points of the whole line)", got, want)
	}
}
