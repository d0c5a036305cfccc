package rules_test

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/rules"
)

// TestDocs: every rule has a title and a Markdown doc.
func TestDocs(t *testing.T) {
	for _, r := range rules.All {
		if strings.TrimSpace(r.Doc) == "" || r.Title == "" {
			t.Errorf("%s has no title or doc", r.ID)
		}
	}
}
