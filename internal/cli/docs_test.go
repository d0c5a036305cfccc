package cli

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite generated docs")

// TestRulesMarkdownUpToDate fails when docs/rules.md no longer matches
// `podlint rules --format markdown`.
func TestRulesMarkdownUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "rules.md")
	want := RulesMarkdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s is stale: run go test ./internal/cli -run TestRulesMarkdownUpToDate -update", path)
	}
}
