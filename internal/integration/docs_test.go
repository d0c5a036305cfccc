package integration

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/settings"
)

// TestUsageDoc checks that docs/usage.md, which go generate writes from the
// command definitions (internal/gendocs checks it is current), documents
// every flag that --help shows.
func TestUsageDoc(t *testing.T) {
	path := filepath.Join(repoRoot(t), "docs", "usage.md")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := string(got)
	// Spot checks that the generator documents what --help shows.
	_, help, _ := runCLI(t, "", "", "check", "--help")
	for _, m := range regexp.MustCompile(`(?m)^\s+(--[\w-]+)`).FindAllStringSubmatch(help, -1) {
		if m[1] != "--help" && !strings.Contains(want, "`"+m[1]) {
			t.Errorf("podlint check --help shows %s, usage.md does not", m[1])
		}
	}
}

// configKeys are the yaml keys of settings.Config.
func configKeys(t *testing.T) []string {
	var keys []string
	ct := reflect.TypeFor[settings.Config]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			t.Errorf("Config.%s has no yaml tag", f.Name)
			continue
		}
		keys = append(keys, tag)
	}
	return keys
}

// TestConfigDoc checks docs/config.md documents every key of .podlint.yaml
// (a "### `key`" heading each, and nothing else), and that its complete
// example is a configuration podlint accepts.
func TestConfigDoc(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	keys := configKeys(t)
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^### `([\\w-]+)`$").FindAllStringSubmatch(string(doc), -1) {
		documented = append(documented, m[1])
	}
	for _, k := range keys {
		if !slices.Contains(documented, k) {
			t.Errorf("docs/config.md does not document the key %q (add a ### `%s` section)", k, k)
		}
	}
	for _, k := range documented {
		if !slices.Contains(keys, k) {
			t.Errorf("docs/config.md documents %q, which Config does not have", k)
		}
	}

	m := regexp.MustCompile("(?s)<!-- example -->\n```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/config.md has no ```yaml block marked <!-- example -->")
	}
	for _, k := range keys {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(k) + `:`).Match(m[1]) {
			t.Errorf("the example does not set %s", k)
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".podlint.yaml": string(m[1]), "k8s/web.yaml": goodPod, "vendor/x/api.yaml": badPod,
		// The profile the example's observed: names (docs/observe.md), empty.
		".podlint/observed.yaml": "version: 1\nmode: snapshot\nwindows: []\nworkloads: []\n"})
	if code, out, errOut := runCLI(t, dir, "", "check", "."); code != 0 {
		t.Errorf("podlint rejects the example configuration or it does not exclude vendor/ (exit %d):\n%s%s", code, out, errOut)
	}
}
