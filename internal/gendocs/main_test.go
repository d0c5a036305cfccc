package gendocs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inRoot runs the test from the repository root, as go generate runs the
// generator.
func inRoot(t *testing.T) {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	t.Setenv("NO_COLOR", "1")
}

// TestGeneratedFilesAreCurrent is the one check of every generated file:
// docs/rules/*.md, docs/rules.md, docs/usage.md, the README's example
// outputs and docs/timeline.svg.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	inRoot(t)
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range sortedKeys(files) {
		got, err := os.ReadFile(filepath.FromSlash(name))
		if err != nil {
			t.Errorf("%s is missing: run go generate ./...", name)
			continue
		}
		if !bytes.Equal(got, files[name]) {
			t.Errorf("%s is stale: run go generate ./...", name)
		}
	}
	for _, name := range strayPages(files) {
		t.Errorf("%s documents no rule in rules.All: go generate ./... deletes it", name)
	}
}

// TestReadmeExcerpts checks the README's example excerpts, which are
// written by hand: their lines must appear, in order and contiguous, in
// the output of the command they show.
func TestReadmeExcerpts(t *testing.T) {
	inRoot(t)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := exampleBlock.FindAllSubmatch(readme, -1)
	if len(blocks) < 3 {
		t.Fatalf("README has %d example blocks; want the text, JSON and SARIF examples at least", len(blocks))
	}
	for _, m := range blocks {
		if string(m[1]) != "example-excerpt" {
			continue
		}
		got, err := podlint(exampleArgs(string(m[2])))
		if err != nil {
			t.Fatal(err)
		}
		if !containsLines(got, string(m[3])) {
			t.Errorf("README excerpt of `podlint %s` no longer appears in its output:\n%s", m[2], m[3])
		}
	}
}

// containsLines reports whether the lines of excerpt appear contiguously in
// text, ignoring leading and trailing white space.
func containsLines(text, excerpt string) bool {
	trim := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			out = append(out, strings.TrimSpace(l))
		}
		return out
	}
	hay, needle := trim(text), trim(excerpt)
	for i := 0; i+len(needle) <= len(hay); i++ {
		match := true
		for j := range needle {
			if hay[i+j] != needle[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
