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
	"github-workflow":       "TestCIDocGitHubWorkflow",
	"github-charts":         "TestCIDocGitHubCharts",
	"github-read-untracked": "TestCIDocGitHubReadUntracked",
	"gitlab-ci":             "TestCIDocGitLab",
	"pre-commit":            "TestPreCommit",
	"pre-commit-all":        "TestPreCommit",
	"pre-commit-system":     "TestPreCommitSystemHook",
	"pre-commit-fix":        "TestPreCommitFixHook",
	"helm":                  "TestCIDocHelm",
	"kustomize":             "TestCIDocKustomize",
}

// snippet returns the block of docs/ci.md marked with name.
func snippet(t *testing.T, name string) string {
	t.Helper()
	return docSnippet(t, filepath.Join("docs", "ci.md"), name)
}

// docSnippet returns the block of the document (a slash path from the
// repository root) marked with name.
func docSnippet(t *testing.T, doc, name string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(doc)))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range markedBlock.FindAllStringSubmatch(string(raw), -1) {
		if m[1] == name {
			return m[2]
		}
	}
	t.Fatalf("%s has no block marked <!-- test: %s -->", doc, name)
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

// readmeSnippetTests names the test that runs each snippet of the README's
// Install section. The Action and pre-commit snippets are those of
// docs/ci.md, which TestCIDocGitHubWorkflow and TestPreCommit run.
var readmeSnippetTests = map[string]string{
	"install-release":   "TestReadmeInstallRelease",
	"go-install":        "TestReadmeGoInstall",
	"docker":            "TestReadmeDocker",
	"github-workflow":   "TestReadmeSnippetsAreTested",
	"pre-commit":        "TestReadmeSnippetsAreTested",
	"pre-commit-system": "TestReadmeSnippetsAreTested",
	"go-build":          "TestReadmeGoInstall",
}

// TestReadmeSnippetsAreTested: every code block of the README's Install
// section is marked and run by a test, and the Action and pre-commit
// blocks are exactly the tested ones of docs/ci.md.
func TestReadmeSnippetsAreTested(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, install, ok := strings.Cut(string(raw), "\n## Install\n")
	if !ok {
		t.Fatal("README.md has no ## Install section")
	}
	if i := strings.Index(install, "\n## "); i >= 0 {
		install = install[:i]
	}
	marked := markedBlock.FindAllStringSubmatch(install, -1)
	if n := len(anyBlock.FindAllString(install, -1)); n != len(marked) {
		t.Errorf("README's Install section has %d code blocks but %d are marked <!-- test: NAME -->", n, len(marked))
	}
	var names []string
	for _, m := range marked {
		names = append(names, m[1])
		if readmeSnippetTests[m[1]] == "" {
			t.Errorf("README block %q is run by no test; add it to readmeSnippetTests", m[1])
		}
	}
	for name, test := range readmeSnippetTests {
		if !slices.Contains(names, name) {
			t.Errorf("%s runs the README block %q, which is gone from the Install section", test, name)
		}
	}
	for _, name := range []string{"github-workflow", "pre-commit", "pre-commit-system"} {
		if got, want := docSnippet(t, "README.md", name), snippet(t, name); got != want {
			t.Errorf("README's %s block differs from the tested one in docs/ci.md:\n--- README\n%s\n--- docs/ci.md\n%s", name, got, want)
		}
	}
}
