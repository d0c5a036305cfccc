package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// multiBytePod writes non-ASCII text and tabs before the reported fields:
// PL107 reports the value 0 of periodSeconds on line 12, PL101 relates to
// the expected-startup annotation on line 5.
const multiBytePod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n" +
	"  annotations: {note: \"héllo wörld 😀\",\tpodlint.dev/expected-startup: \"90s\"}\n" +
	"spec:\n  containers:\n  - name: web\n    image: nginx\n" +
	"    livenessProbe: {httpGet: {path: /, port: 80}, periodSeconds: 10, failureThreshold: 3}\n" +
	"    # ünïcödé comment\n" +
	"    readinessProbe: {httpGet: {path: \"/ää\", port: 8080},\tperiodSeconds: 0}\n"

// TestColumnsAreBytesInEveryFormat checks that every format reports the
// byte column of the field (SARIF the code point column it declares), for
// a finding and for a related location on lines with multi-byte text and
// tabs before the field.
func TestColumnsAreBytesInEveryFormat(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pod.yaml": multiBytePod})
	lines := strings.Split(multiBytePod, "\n")
	byteCol := func(line int, text string) int { return strings.LastIndex(lines[line-1], text) + 1 }
	charCol := func(line int, text string) int {
		return utf8.RuneCountInString(lines[line-1][:byteCol(line, text)-1]) + 1
	}
	const zeroText, relatedText = "0}", `"90s"`
	zero, related := byteCol(12, zeroText), byteCol(5, relatedText)
	if zero == charCol(12, zeroText) || related == charCol(5, relatedText) {
		t.Fatal("the test lines must have multi-byte text before the fields")
	}
	out := func(format string) string {
		t.Helper()
		code, out, errOut := run(t, dir, nil, "check", "--no-config", "--color", "never", "-f", format, "pod.yaml")
		if code != ExitFindings {
			t.Fatalf("-f %s: exit %d: %s", format, code, errOut)
		}
		return out
	}

	text := out("text")
	for _, want := range []string{fmt.Sprintf("pod.yaml:12:%d: warning:", zero), fmt.Sprintf("pod.yaml:5:%d: expected start-up", related)} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// The caret sits under the value in the echoed line (which shows tabs
	// as spaces).
	if snippet, caret, ok := strings.Cut(text[strings.Index(text, "\n12 |")+1:], "\n"); !ok {
		t.Errorf("no snippet of line 12:\n%s", text)
	} else {
		caret, _, _ = strings.Cut(caret, "\n")
		at := strings.LastIndex(snippet, zeroText)
		if utf8.RuneCountInString(snippet[:at]) != strings.Index(caret, "^") {
			t.Errorf("caret not under the value:\n%s\n%s", snippet, caret)
		}
	}

	var js struct {
		Findings []struct {
			ID      string
			Line    int
			Column  int
			Related []struct{ Line, Column int }
		}
	}
	if err := json.Unmarshal([]byte(out("json")), &js); err != nil {
		t.Fatal(err)
	}
	var gotZero, gotRelated int
	for _, f := range js.Findings {
		if f.ID == "PL107" && f.Line == 12 {
			gotZero = f.Column
		}
		for _, r := range f.Related {
			if r.Line == 5 {
				gotRelated = r.Column
			}
		}
	}
	if gotZero != zero || gotRelated != related {
		t.Errorf("json columns %d, %d; want bytes %d, %d", gotZero, gotRelated, zero, related)
	}

	sarif := out("sarif")
	for _, want := range []string{`"columnKind": "unicodeCodePoints"`, fmt.Sprintf(`"startColumn": %d`, charCol(12, zeroText)),
		fmt.Sprintf(`"startColumn": %d`, charCol(5, relatedText))} {
		if !strings.Contains(sarif, want) {
			t.Errorf("sarif lacks %s", want)
		}
	}
	if gh := out("github"); !strings.Contains(gh, fmt.Sprintf("line=12,col=%d,", zero)) {
		t.Errorf("github annotation lacks col=%d:\n%s", zero, gh)
	}
	if md := out("markdown"); !strings.Contains(md, fmt.Sprintf("pod.yaml:12:%d", zero)) {
		t.Errorf("markdown lacks 12:%d:\n%s", zero, md)
	}
	if ju := out("junit"); !strings.Contains(ju, fmt.Sprintf("pod.yaml:12:%d", zero)) {
		t.Errorf("junit lacks 12:%d", zero)
	}
}
