package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLibraryLogsAreEscaped (issue 21 item 5): Helm logs a values key it
// cannot merge through Go's log package; a key holding ESC or
// "\n::error …" reached standard error raw, where the Action's log runs it
// as a workflow command. It is routed to podlint's stderr, one escaped
// line per record.
func TestLibraryLogsAreEscaped(t *testing.T) {
	dir := t.TempDir()
	key := `"evil\e[2J\n::error file=x::pwned"`
	writeFiles(t, dir, map[string]string{
		"chart/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/values.yaml":       "outer:\n  " + key + ": {a: 1}\n",
		"chart/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
		"override.yaml":           "outer:\n  " + key + ": plain\n",
	})
	_, _, stderr := run(t, dir, nil, "check", "--format", "json", "--values", filepath.Join(dir, "override.yaml"), "chart")
	if !strings.Contains(stderr, `podlint: warning: cannot overwrite table with non table for c.outer.evil\x1b[2J\n::error file=x::pwned`) {
		t.Errorf("Helm's warning is not on podlint's stderr, escaped: %q", stderr)
	}
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "::") || strings.Contains(l, "\x1b") {
			t.Errorf("raw line on stderr: %q", l)
		}
	}
}
