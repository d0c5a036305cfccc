package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// approxChart writes a chart whose liveness probe comes whole from the
// values (toYaml), so its timeoutSeconds is written in no template line.
func approxChart(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "approx")
	for name, text := range map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: approx\nversion: 0.1.0\n",
		"values.yaml": "probe:\n  httpGet: {path: /healthz, port: 8080}\n  periodSeconds: 10\n  timeoutSeconds: 20\n",
		"templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: example/web:1
          livenessProbe:
            {{- toYaml .Values.probe | nindent 12 }}
`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestApproximatePositionIsAField: the loader marks a finding whose field
// is not written literally in the template (Rendered.Approximate, JSON
// rendered.approximate), and the text report says so in words, with the
// same headline and detail as JSON.
func TestApproximatePositionIsAField(t *testing.T) {
	dir := approxChart(t)
	var stdout, stderr bytes.Buffer
	// PL601 (opt-in) reports at the container, which the template writes.
	Run([]string{"podlint", "check", "-f", "json", "--no-config", "--enable", "PL601", dir}, strings.NewReader(""), &stdout, &stderr)
	var out struct {
		Findings []struct {
			ID, File        string
			Line, Column    int
			Message, Detail string
			Rendered        *struct {
				Path        string
				Approximate bool
			}
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	var text bytes.Buffer
	Run([]string{"podlint", "check", "--no-config", "--enable", "PL601", dir}, strings.NewReader(""), &text, &stderr)
	// The text writer wraps the detail: compare words.
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	printed := words(text.String())
	approx, exact := 0, 0
	for _, f := range out.Findings {
		if f.Rendered == nil {
			t.Fatalf("%s: not marked rendered", f.ID)
		}
		switch {
		case f.ID == "PL106":
			approx++
			if !f.Rendered.Approximate || f.Line != 15 || !strings.HasSuffix(f.Message, " (in the rendered output)") ||
				!strings.HasPrefix(f.Detail, "The finding is at spec.template.spec.containers[0].livenessProbe.timeoutSeconds in the rendered output") {
				t.Errorf("PL106 at %d:%d approximate %v: %q %q", f.Line, f.Column, f.Rendered.Approximate, f.Message, f.Detail)
			}
		case !f.Rendered.Approximate:
			exact++
			if strings.Contains(f.Message, "rendered output") || strings.Contains(f.Detail, "closest one found") {
				t.Errorf("%s is exact but says it is not: %q %q", f.ID, f.Message, f.Detail)
			}
		}
		if !strings.Contains(printed, words(f.Message)+" ["+f.ID) || !strings.Contains(printed, words(f.Detail)) {
			t.Errorf("text report differs from JSON for %s: %q / %q\n%s", f.ID, f.Message, f.Detail, text.String())
		}
	}
	if approx != 1 || exact == 0 {
		t.Errorf("%d approximate PL106, %d exact findings; want 1 and some:\n%s", approx, exact, stdout.String())
	}
}
