package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// debugTree is a folder with one thing of each kind discovery decides on.
func debugTree(t *testing.T) string {
	dir := t.TempDir()
	plain := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x}]\n"
	for name, text := range map[string]string{
		"pod.yaml":             plain,
		"skip/excluded.yaml":   plain,
		".hidden/pod.yaml":     plain,
		".podlint-ci.yaml":     plain,
		"notes.txt":            "not a manifest\n",
		"evil\x1b[31mred.yaml": plain,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(approxChart(t), filepath.Join(dir, "chart")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runDebug(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	Run(append([]string{"podlint"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String()
}

// TestDebugTraces: --debug says on standard error which files discovery
// reads or skips and why, what each root renders, and where each
// finding's field maps to, exact or approximate; escaped, the same on
// every run, and nothing of it without --debug. The report itself is the
// same with and without it.
func TestDebugTraces(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file names with escape characters")
	}
	dir := debugTree(t)
	args := []string{"check", "--no-config", "--exclude", "**/skip/**", dir}
	plainOut, plainErr := runDebug(t, args...)
	if strings.Contains(plainErr, "podlint debug:") {
		t.Errorf("traces without --debug:\n%s", plainErr)
	}
	out, trace := runDebug(t, append([]string{"check", "--debug"}, args[1:]...)...)
	if out != plainOut {
		t.Errorf("--debug changed the report:\n%s\nwithout it:\n%s", out, plainOut)
	}
	j := func(p ...string) string { return filepath.Join(append([]string{dir}, p...)...) }
	for _, want := range []string{
		"podlint debug: discover " + dir + ": walking the folder",
		"podlint debug: discover " + j(".hidden") + ": skipped: hidden folder",
		"podlint debug: discover " + j(".podlint-ci.yaml") + ": skipped: hidden file",
		"podlint debug: discover " + j("notes.txt") + ": skipped: not .yaml, .yml or .json",
		"podlint debug: discover " + j("skip", "excluded.yaml") + ": skipped: matches an exclude pattern",
		"podlint debug: discover " + j("pod.yaml") + ": linted",
		"podlint debug: discover " + j("chart") + ": a Helm chart: rendered as one source",
		"podlint debug: source " + j("chart") + ": helm chart, rendered",
		"podlint debug: source " + j("pod.yaml") + ": plain file",
		"podlint debug: render " + j("chart") + ": rendered documents: 1, problems: 0",
		"podlint debug: render " + j("chart") + ": document 1 from " + j("chart", "templates", "deployment.yaml") + " (approx/templates/deployment.yaml)",
		"podlint debug: map " + j("chart") + ": document 1 (approx/templates/deployment.yaml) spec.template.spec.containers[0].livenessProbe.timeoutSeconds, by its path → " +
			j("chart", "templates", "deployment.yaml") + ":15:11 (approximate: not written literally there)",
		"value from .Values.probe.timeoutSeconds at " + j("chart", "values.yaml") + ":4:3",
		`red.yaml: linted`,
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q:\n%s", want, trace)
		}
	}
	if strings.Contains(trace, "\x1b") {
		t.Errorf("trace holds a raw escape character:\n%q", trace)
	}
	for _, l := range strings.Split(strings.TrimSpace(trace), "\n") {
		if !strings.HasPrefix(l, "podlint debug: ") && !strings.HasPrefix(l, "podlint: ") {
			t.Errorf("trace line without prefix: %q", l)
		}
	}
	if _, again := runDebug(t, append([]string{"check", "--debug"}, args[1:]...)...); again != trace {
		t.Errorf("trace differs between runs:\n%s\nthen:\n%s", trace, again)
	}
	// timeline shares the loader, and so the trace.
	_, tl := runDebug(t, "timeline", "--debug", "--no-config", j("chart"))
	if want := "podlint debug: map " + j("chart") + ": document 1 (approx/templates/deployment.yaml) spec.template.spec.containers[0].livenessProbe.timeoutSeconds, by its path"; !strings.Contains(tl, want) {
		t.Errorf("timeline trace lacks %q:\n%s", want, tl)
	}
}
