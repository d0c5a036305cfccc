package rules_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/rules"
)

var update = flag.Bool("update", false, "rewrite docs/rules/*.md from the rules and their testdata")

var areas = map[byte]string{'0': "input", '1': "probes", '2': "hooks and termination", '3': "restart policy and Jobs", '4': "init and sidecar containers", '5': "controllers", '6': "resources", '7': "release: objects together"}

var testComment = regexp.MustCompile(`\s*#\s*(want|podlint-test:)\s.*$`)

// example returns a testdata file without its test annotations.
func example(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var out []string
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		stripped := testComment.ReplaceAllString(line, "")
		if stripped == "" && strings.TrimSpace(line) != "" {
			continue // a line that held only a test annotation
		}
		out = append(out, stripped)
	}
	return strings.Join(out, "\n") + "\n"
}

// DocPage renders docs/rules/<ID>.md: the rule's metadata and Doc, then a
// failing and a passing example taken from its tested testdata.
func docPage(r *rules.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s\n\n<!-- Generated from rules/ by `go test ./rules -update`; do not edit. -->\n\n", r.ID, r.Name)
	fmt.Fprintf(&b, "**%s**\n\n", strings.ToUpper(r.Title[:1])+r.Title[1:])
	sev := r.Severity.String()
	if r.DefaultOff {
		sev = "off (enable with `--enable " + r.Name + "`; " + r.Severity.String() + " when enabled)"
	}
	since := "every supported version"
	if r.MinVersion.Minor != 0 {
		since = fmt.Sprintf("%d.%d and later", r.MinVersion.Major, r.MinVersion.Minor)
	}
	fmt.Fprintf(&b, "| | |\n|---|---|\n| ID | `%s` |\n| Name | `%s` |\n| Area | %s |\n| Default severity | %s |\n| Kubernetes | %s |\n\n", r.ID, r.Name, areas[r.ID[2]], sev, since)
	b.WriteString(strings.TrimSpace(r.Doc))
	b.WriteString("\n")
	files, _ := filepath.Glob(filepath.Join("testdata", r.ID, "*"))
	var bad, good string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		hasWant := regexp.MustCompile(`#\s*want\s`).Match(data)
		if hasWant && bad == "" && strings.Contains(filepath.Base(f), "bad") {
			bad = f
		}
		if !hasWant && good == "" {
			good = f
		}
	}
	if bad == "" {
		for _, f := range files {
			if data, _ := os.ReadFile(f); regexp.MustCompile(`#\s*want\s`).Match(data) {
				bad = f
				break
			}
		}
	}
	if bad != "" {
		fmt.Fprintf(&b, "\n## Failing example\n\n```yaml\n%s```\n", example(bad))
	}
	if good != "" {
		fmt.Fprintf(&b, "\n## Passing example\n\n```yaml\n%s```\n", example(good))
	}
	where := "on the workload or its pod template"
	if r.Release != nil {
		where = "on the object the finding points at (the Service, the budget, the workload)"
	}
	fmt.Fprintf(&b, "\n## Suppressing\n\nWhen the finding does not apply, say why %s:\n\n```yaml\nmetadata:\n  annotations:\n    ignore-check.podlint.dev/%s: \"<reason>\"\n```\n\nor with a comment on (or directly above) the reported line: `# podlint:ignore %s <reason>`. Turn the rule off everywhere with `--disable %s` or in `.podlint.yaml`.\n", where, r.ID, r.Name, r.Name)
	return b.String()
}

// TestDocPages fails when a rule has no doc page or its page is stale.
func TestDocPages(t *testing.T) {
	dir := filepath.Join("..", "docs", "rules")
	want := map[string]bool{}
	for _, r := range rules.All {
		if strings.TrimSpace(r.Doc) == "" || r.Title == "" {
			t.Errorf("%s has no title or doc", r.ID)
		}
		name := r.ID + ".md"
		want[name] = true
		page := docPage(r)
		path := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s has no doc page %s: run go test ./rules -update", r.ID, path)
			continue
		}
		if string(got) != page {
			t.Errorf("%s is stale: run go test ./rules -update", path)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("%s documents no rule in rules.All; delete it", filepath.Join(dir, e.Name()))
		}
	}
}
