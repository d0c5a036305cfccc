package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	// A tested snippet: the marker comment, then a fenced block.
	markedBlock = regexp.MustCompile("(?s)<!-- test: (\\S+) -->\n```[a-z]*\n(.*?)\n```")
	anyBlock    = regexp.MustCompile("(?ms)^```[a-z]*\n.*?\n```")
)

// snippetTests names the test that runs each snippet of docs/ci.md.
var snippetTests = map[string]string{
	"github-workflow": "TestCIDocGitHubWorkflow",
	"github-charts":   "TestCIDocGitHubCharts",
	"gitlab-ci":       "TestCIDocGitLab",
	"pre-commit":      "TestPreCommit",
	"pre-commit-all":  "TestPreCommit",
	"helm":            "TestCIDocHelm",
	"kustomize":       "TestCIDocKustomize",
}

// snippet returns the block of docs/ci.md marked with name.
func snippet(t *testing.T, name string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range markedBlock.FindAllStringSubmatch(string(doc), -1) {
		if m[1] == name {
			return m[2]
		}
	}
	t.Fatalf("docs/ci.md has no block marked <!-- test: %s -->", name)
	return ""
}

// TestCIDocSnippetsAreTested fails when docs/ci.md gains a code block that
// no test runs, or a test's snippet disappears from the page.
func TestCIDocSnippetsAreTested(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := len(anyBlock.FindAllString(string(doc), -1))
	marked := markedBlock.FindAllStringSubmatch(string(doc), -1)
	if blocks != len(marked) {
		t.Errorf("docs/ci.md has %d code blocks but only %d are marked <!-- test: NAME --> for a test to run", blocks, len(marked))
	}
	var names []string
	for _, m := range marked {
		names = append(names, m[1])
		if snippetTests[m[1]] == "" {
			t.Errorf("docs/ci.md block %q is run by no test; add it to snippetTests with the test that runs it", m[1])
		}
	}
	for name, test := range snippetTests {
		if !slices.Contains(names, name) {
			t.Errorf("%s runs the docs/ci.md block %q, which is gone", test, name)
		}
	}
	// The tests named must exist in this package and name the snippet.
	var src strings.Builder
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		if f == "snippets_test.go" { // names every snippet in snippetTests
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for name, test := range snippetTests {
		if !strings.Contains(src.String(), "func "+test+"(t *testing.T)") || !strings.Contains(src.String(), `"`+name+`"`) {
			t.Errorf("snippet %q: %s does not exist or does not read the snippet", name, test)
		}
	}
}
