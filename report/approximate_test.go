package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
)

// TestApproximateInWords: a finding whose position in a rendered chart is
// only the closest one found carries Rendered.Approximate, and every
// writer says so in the same words the loader used to write into the
// headline and detail: " (in the rendered output)" after a headline that
// stays short, a note naming the rendered field before the detail. JSON
// also has the flag.
func TestApproximateInWords(t *testing.T) {
	mk := func(msg string, approx bool) finding.Finding {
		return finding.Finding{RuleID: "PL106", RuleName: "probe-timeout-exceeds-period", Severity: finding.Warning,
			Location: finding.Location{File: "chart/templates/deployment.yaml", Line: 16, Column: 11},
			Message:  msg, Detail: "Set timeoutSeconds below periodSeconds.", Path: "spec.template.spec.containers[0].livenessProbe.timeoutSeconds",
			Rendered: &finding.RenderOrigin{Root: "chart", Name: "chart/templates/deployment.yaml", Path: "spec.template.spec.containers[0].livenessProbe.timeoutSeconds", Approximate: approx}}
	}
	long := strings.Repeat("x", finding.HeadlineMax-10)
	res := &finding.Result{Findings: sortFindings([]finding.Finding{mk("probe timeout too long", true), mk("probe timeout exact", false), mk(long, true)})}
	note := "The finding is at spec.template.spec.containers[0].livenessProbe.timeoutSeconds in the rendered output; it is not written literally in this file, so the position is the closest one found."

	var text bytes.Buffer
	if err := Write(&text, "text", res, Options{Width: 400}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"probe timeout too long (in the rendered output) [PL106", "probe timeout exact [PL106", long + " [PL106", note + " Set timeoutSeconds"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}
	if n := strings.Count(text.String(), "closest one found"); n != 2 {
		t.Errorf("%d notes, want 2 (the approximate findings):\n%s", n, text.String())
	}

	var js bytes.Buffer
	if err := Write(&js, "json", res, Options{}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Findings []struct {
			Message, Detail string
			Rendered        struct{ Approximate bool }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 3 {
		t.Fatalf("%d findings", len(out.Findings))
	}
	byMessage := map[string]bool{}
	for _, f := range out.Findings {
		byMessage[f.Message] = f.Rendered.Approximate
		if f.Rendered.Approximate != strings.HasPrefix(f.Detail, note) {
			t.Errorf("%q: approximate %v, detail %q", f.Message, f.Rendered.Approximate, f.Detail)
		}
	}
	want := map[string]bool{"probe timeout too long (in the rendered output)": true, "probe timeout exact": false, long: true}
	for m, a := range want {
		if got, ok := byMessage[m]; !ok || got != a {
			t.Errorf("JSON message %q: present %v approximate %v, want approximate %v", m, ok, got, a)
		}
	}
}
