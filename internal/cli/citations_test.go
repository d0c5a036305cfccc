package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/podlint/podlint/rules"
)

// TestDocsCiteRealRules: every rule the README and docs/ mention exists,
// and where a name follows the ID (`PL101 liveness-kills-before-ready`,
// `[PL101] liveness-kills-before-ready`) it is that rule's name.
func TestDocsCiteRealRules(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	idName := regexp.MustCompile("\\b(PL\\d{3})\\b(?:\\]|\\)|`)?[ \\t]+`?([a-z][a-z0-9]*(?:-[a-z0-9]+)+)")
	id := regexp.MustCompile(`\bPL\d{3}\b`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range id.FindAllString(string(data), -1) {
			if rules.Lookup(m) == nil {
				t.Errorf("%s cites %s, which is not a rule", f, m)
			}
		}
		for _, m := range idName.FindAllStringSubmatch(string(data), -1) {
			if r := rules.Lookup(m[1]); r != nil && r.Name != m[2] {
				t.Errorf("%s calls %s %q, but its name is %q", f, m[1], m[2], r.Name)
			}
		}
	}
}
