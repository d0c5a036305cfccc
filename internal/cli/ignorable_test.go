package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileDefaultIgnorableIsEscaped: a container name holding Hangul
// fillers, a combining grapheme joiner and a variation selector is quoted
// by PL010's message and shown by the source line; the text, github and
// markdown reports show each as an escape. Before, all five reached the
// output raw.
func TestHostileDefaultIgnorableIsEscaped(t *testing.T) {
	file := filepath.Join(hostileDir, "default-ignorable.yaml")
	for _, format := range []string{"text", "github", "markdown"} {
		code, out, errs := run(t, "", nil, "check", "--no-config", "--color", "never", "-f", format, file)
		if code != ExitFindings || !strings.Contains(out, "PL010") {
			t.Fatalf("%s: exit %d, want 1 with PL010\n%s%s", format, code, out, errs)
		}
		if m := rawControl.FindString(out + errs); m != "" {
			t.Errorf("%s: a raw %q reaches the output:\n%s", format, m, out)
		}
		// Markdown doubles the backslash of an escape.
		if !strings.Contains(strings.ReplaceAll(out, `\\`, `\`), `app\u3164\u115f\uffa0\u034f❤\ufe0f`) {
			t.Errorf("%s: the name is not shown escaped:\n%s", format, out)
		}
	}
}
