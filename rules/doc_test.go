package rules_test

import (
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/podlint/podlint/rules"
)

// TestDocs: every rule has a title and a Markdown doc in rules/doc, and
// every file there documents a rule of All.
func TestDocs(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range rules.All {
		ids[r.ID+".md"] = true
		if strings.TrimSpace(r.Doc()) == "" || r.Title == "" {
			t.Errorf("%s has no title or no doc (rules/doc/%s.md)", r.ID, r.ID)
		}
	}
	entries, err := fs.ReadDir(os.DirFS("doc"), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !ids[e.Name()] {
			t.Errorf("rules/doc/%s documents no rule in rules.All", e.Name())
		}
	}
}
