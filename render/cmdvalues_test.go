package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCommandLineValues: a --values file that cannot be read or is
// not a mapping, and a --set that Helm cannot parse, are one error each,
// naming the file once; good ones pass.
func TestCheckCommandLineValues(t *testing.T) {
	dir := t.TempDir()
	good, bad, list := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml"), filepath.Join(dir, "list.yaml")
	for name, text := range map[string]string{good: "replicaCount: 2\n", bad: "a: [\n", list: "- a\n- b\n"} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing.yaml")
	for _, tc := range []struct {
		files, set []string
		want       string
	}{
		{[]string{good, missing}, nil, "--values " + missing + ": no such file or directory"},
		{[]string{bad}, nil, "--values " + bad + ":1: not a YAML mapping of chart values"},
		{[]string{list}, nil, "--values " + list + ":1: not a YAML mapping of chart values"},
		{nil, []string{"image.tag=1", "a[=1"}, `--set "a[=1": `},
	} {
		err := CheckCommandLineValues(tc.files, tc.set)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Count(err.Error(), filepath.Base(missing)) > 1 {
			t.Errorf("CheckCommandLineValues(%v, %v) = %v; want an error starting %q", tc.files, tc.set, err, tc.want)
		}
	}
	if err := CheckCommandLineValues([]string{good}, []string{"image.tag=1.2.3", "a={x,y}"}); err != nil {
		t.Errorf("good values: %v", err)
	}
}
