package ruledoc

import (
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/rules"
)

var (
	relativeLink = regexp.MustCompile(`\]\(\.\./semantics\.md#[a-z0-9-]+\)`)
	absoluteLink = regexp.MustCompile(`\(https://github\.com/podlint/podlint/blob/main/docs/semantics\.md#[a-z0-9-]+\)`)
)

// TestTerminalLeavesNoMarkup renders every rule page for the terminal and
// checks that no Markdown markup is left and every relative link became an
// absolute URL, so the subset Terminal handles stays the one the pages use.
func TestTerminalLeavesNoMarkup(t *testing.T) {
	markup := regexp.MustCompile("\\*\\*|\\]\\(|```|^\\|---")
	for _, r := range rules.All {
		md := Page(r)
		text := Terminal(md)
		for n, line := range strings.Split(text, "\n") {
			if markup.MatchString(line) {
				t.Errorf("%s line %d keeps Markdown: %q", r.ID, n+1, line)
			}
		}
		// Backquotes are left only where a double-backquoted span quotes
		// them (an API server message that has them).
		if strings.Count(text, "`") > strings.Count(md, "``")*2 {
			t.Errorf("%s keeps code-span backquotes:\n%s", r.ID, text)
		}
		if relativeLink.MatchString(md) && !absoluteLink.MatchString(text) {
			t.Errorf("%s: links to docs/semantics.md are not absolute:\n%s", r.ID, text)
		}
	}
}

func TestTerminal(t *testing.T) {
	in := "# T\n\n**Bold** and *it* and `code` and [F-4](../semantics.md#f-4), [x](https://e.org).\n\n| | |\n|---|---|\n| ID | `PL1` |\n| Longer key | v |\n\n```yaml\na: 1\n```\n* item 2 * 3\n"
	want := "T\n=\n\nBold and it and code and F-4 (https://github.com/podlint/podlint/blob/main/docs/semantics.md#f-4), x (https://e.org).\n\n" +
		"ID          PL1\nLonger key  v\n\n    a: 1\n- item 2 * 3\n"
	if got := Terminal(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestWriteTextHeader: the catalog opens with a header row aligned with
// its columns.
func TestWriteTextHeader(t *testing.T) {
	var b strings.Builder
	WriteText(&b, rules.All)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(rules.All)+1 {
		t.Fatalf("%d lines for %d rules; want a header and one line a rule", len(lines), len(rules.All))
	}
	head, first := lines[0], lines[1]
	if !strings.HasPrefix(head, "ID  ") || !strings.HasPrefix(first, rules.All[0].ID+"  ") {
		t.Fatalf("header %q, first row %q", head, first)
	}
	for _, col := range []struct{ head, cell string }{
		{"NAME", rules.All[0].Name},
		{"DEFAULT", DefaultLevel(rules.All[0])},
		{"WHAT IT FINDS", rules.All[0].Title},
	} {
		if h, c := strings.Index(head, col.head), strings.Index(first, col.cell); h < 0 || h != c {
			t.Errorf("column %s starts at %d in the header and %q at %d in the first row", col.head, h, col.cell, c)
		}
	}
}

// TestCatalogNamesOptInRules: `podlint rules` and docs/rules.md list a rule
// that runs only when enabled as opt-in, one flag away, and every other
// rule at its severity.
func TestCatalogNamesOptInRules(t *testing.T) {
	var text strings.Builder
	WriteText(&text, rules.All)
	index := Index(rules.All)
	for _, r := range rules.All {
		want := r.Severity.String()
		if r.DefaultOff {
			want = "opt-in"
		}
		row := regexp.MustCompile(`(?m)^` + r.ID + ` +` + r.Name + ` +(\S+)`).FindStringSubmatch(text.String())
		if row == nil || row[1] != want {
			t.Errorf("podlint rules lists %s as %q, want %q", r.ID, row, want)
		}
		if cell := "`" + r.Name + "` | " + want + " |"; !strings.Contains(index, cell) {
			t.Errorf("docs/rules.md has no %q", cell)
		}
	}
}
