package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestConfigCannotRaiseLimits: a .podlint.yaml that comes with the
// repository (found by searching, or named with --config) may lower the
// render limits but not raise them: each raised key is warned about on
// standard error with its value and the ceiling, the run keeps the
// default, and a flag still raises a limit.
func TestConfigCannotRaiseLimits(t *testing.T) {
	hostile, err := os.ReadFile(filepath.Join(hostileDir, "config", "raise-limits.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	chart := filepath.Join(repo, "chart")
	if err := os.MkdirAll(filepath.Join(chart, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		".podlint.yaml":                  string(hostile),
		"chart/Chart.yaml":               "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"chart/templates/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
	} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	defaults := "limits cpu 30s, memory 1024 MiB, wall 30s, output 64 MiB"
	for _, args := range [][]string{{"check", "--debug", "chart"}, {"check", "--debug", "--config", ".podlint.yaml", "chart"}} {
		_, _, stderr := run(t, repo, nil, args...)
		if !strings.Contains(stderr, defaults) {
			t.Errorf("%v: the child's limits are not the defaults (%s):\n%s", args, defaults, stderr)
		}
		for _, want := range []string{
			`render-cpu in *.podlint.yaml:4: "1000h" is above the default 30s`,
			`render-memory in *.podlint.yaml:5: "64GiB" is above the default 1GiB`,
			`render-timeout in *.podlint.yaml:6: "1000h" is above the default 30s`,
			`render-max-output in *.podlint.yaml:7: "1GiB" is above the default 64MiB`,
		} {
			// The configuration is named as found: absolute or not.
			head, tail, _ := strings.Cut(want, "*")
			if !regexp.MustCompile(regexp.QuoteMeta(head) + `\S*` + regexp.QuoteMeta(tail)).MatchString(stderr) {
				t.Errorf("%v: no warning %q on stderr:\n%s", args, want, stderr)
			}
		}
	}
	// The command line is trusted: it raises, and the configuration's
	// value for that key is not looked at (no warning).
	_, _, stderr := run(t, repo, nil, "check", "--debug", "--render-cpu", "40s", "chart")
	if !strings.Contains(stderr, "limits cpu 40s, memory 1024 MiB") || strings.Contains(stderr, "render-cpu in") {
		t.Errorf("--render-cpu 40s: want it applied without a warning about the configuration:\n%s", stderr)
	}
	// Lowering is the configuration's right, silently.
	if err := os.WriteFile(filepath.Join(repo, ".podlint.yaml"), []byte("render-cpu: 2s\nrender-memory: 100MiB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, stderr = run(t, repo, nil, "check", "--debug", "chart")
	if !strings.Contains(stderr, "limits cpu 2s, memory 100 MiB, wall 30s") || strings.Contains(stderr, "above the default") {
		t.Errorf("a configuration that lowers the limits: want them applied without a warning:\n%s", stderr)
	}
}
