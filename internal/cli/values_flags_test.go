package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLineValuesAreUsageErrors: an unreadable --values file or an
// unparsable --set is exit 2 before anything renders, printed once, not a
// PL012 finding on each chart rendered without it.
func TestCommandLineValuesAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "chart")
	writeFiles(t, chart, map[string]string{
		"Chart.yaml":         "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"values.yaml":        "replicas: 1\n",
		"templates/pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: app, image: busybox}]}\n",
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--values", filepath.Join(dir, "nothere.yaml")}, "nothere.yaml: no such file or directory"},
		{[]string{"--set", "a[=1"}, `--set "a[=1"`},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(append(append([]string{"podlint", "check", "--no-config"}, tc.args...), chart), strings.NewReader(""), &stdout, &stderr)
		if code != ExitError || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "nothere.yaml") > 1 || stdout.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2, one line with %q, no report", tc.args, code, stderr.String(), stdout.String(), tc.want)
		}
	}
}
