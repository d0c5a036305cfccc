package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goldenExample matches an example in docs/output.md that is marked as
// copied from a golden file: the marker comment, then a fenced block.
var goldenExample = regexp.MustCompile("(?s)<!-- golden: (\\S+) -->\n```[a-z]*\n(.*?)\n```")

// TestDocsExamplesMatchGolden keeps docs/output.md honest: every marked
// example must still appear verbatim in its golden file, so changing a
// writer without updating the documentation fails here.
func TestDocsExamplesMatchGolden(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "output.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples := goldenExample.FindAllStringSubmatch(string(doc), -1)
	covered := map[string]bool{}
	for _, m := range examples {
		name, block := m[1], m[2]
		golden, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			t.Errorf("docs/output.md cites %s: %v", name, err)
			continue
		}
		if !strings.Contains(string(golden), block) {
			t.Errorf("docs/output.md example from %s is stale; copy it again from the golden file:\n%s", name, block)
		}
		covered[strings.SplitN(name, ".", 3)[1]] = true
	}
	for _, format := range Formats {
		if !covered[format] {
			t.Errorf("docs/output.md has no example marked as copied from a %s golden file", format)
		}
	}
	if !strings.Contains(string(doc), "## Timeline output") || !strings.Contains(string(doc), "(timeline-output.md)") {
		t.Error("docs/output.md lost its Timeline output section linking timeline-output.md")
	}
}
