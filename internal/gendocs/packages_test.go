package gendocs

import (
	"os"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/rules"
)

// TestPackageTable checks what the generated table makes of go list's
// answer: the clause before the first colon, test-only packages marked,
// the module's imports only, and a block that must be there exactly once.
func TestPackageTable(t *testing.T) {
	pkgs := []goPackage{
		{ImportPath: "github.com/podlint/podlint/analyzer", Doc: "Package analyzer runs the rules: it reads files.",
			Imports: []string{"fmt", "github.com/podlint/podlint/finding", "github.com/podlint/podlint/rules"}},
		{ImportPath: "github.com/podlint/podlint/cmd/podlint", Doc: "Command podlint lints manifests."},
		{ImportPath: "github.com/podlint/podlint/x", Doc: "Package x joins a|b."},
	}
	got := packageTable(pkgs)
	for _, want := range []string{
		"| `analyzer` | runs the rules | `finding`, `rules` |\n",
		"| `cmd/podlint` | lints manifests |  |\n",
		"| `x` | joins a\\|b |  |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
	guide := []byte("intro\n<!-- packages: go list ./... -->\nstale\n<!-- /packages -->\nrest\n")
	out, err := contributingPackages(guide, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); strings.Contains(s, "stale") || !strings.HasPrefix(s, "intro\n<!-- packages: go list ./... -->\n| Package |") || !strings.HasSuffix(s, "|\n<!-- /packages -->\nrest\n") {
		t.Errorf("the block was not replaced:\n%s", s)
	}
	if _, err := contributingPackages([]byte("no table\n"), pkgs); err == nil {
		t.Error("a guide without the block was accepted")
	}
}

// TestDepsBlock: the guide's copy of the rules is replaced whole, the
// tabs of the Go constant gone, and must be there exactly once.
func TestDepsBlock(t *testing.T) {
	guide := []byte("intro\n<!-- deps: internal/deps.Rules -->\nstale\n<!-- /deps -->\nrest\n")
	out, err := contributingDeps(guide, "\n\tNONE < a;\n\ta < b;\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n<!-- deps: internal/deps.Rules -->\n```\nNONE < a;\na < b;\n```\n<!-- /deps -->\nrest\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if _, err := contributingDeps([]byte("none\n"), "a"); err == nil {
		t.Error("a guide without the block was accepted")
	}
}

// TestChangedFiles checks the count TestAddRuleAsDocumented holds a new
// rule to: added, changed and removed files, each once.
func TestChangedFiles(t *testing.T) {
	h := func(s string) [32]byte { var b [32]byte; copy(b[:], s); return b }
	before := map[string][32]byte{"a": h("1"), "b": h("2"), "c": h("3")}
	after := map[string][32]byte{"a": h("1"), "b": h("changed"), "d": h("new")}
	if got := strings.Join(changedFiles(before, after), " "); got != "b c d" {
		t.Errorf("changedFiles = %q, want \"b c d\"", got)
	}
}

// TestFixTableListsEveryFix: docs/fix.md's table has a row for every rule
// that offers a fix, with the safety of its default fix (a table written by
// hand once left out PL104).
func TestFixTableListsEveryFix(t *testing.T) {
	inRoot(t)
	doc, err := os.ReadFile("docs/fix.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rules.All {
		if r.Fix == nil {
			continue
		}
		n++
		safety := "| safe |"
		if r.Fix.Safety != finding.Safe {
			safety = "| unsafe |"
		}
		row := "| [" + r.ID + "](rules/" + r.ID + ".md) " + r.Name + " |"
		i := strings.Index(string(doc), row)
		if i < 0 {
			t.Errorf("docs/fix.md has no row for %s (%s), which has a fix", r.ID, r.Name)
			continue
		}
		line, _, _ := strings.Cut(string(doc[i:]), "\n")
		if !strings.HasSuffix(line, safety) {
			t.Errorf("docs/fix.md row of %s does not end in %q: %s", r.ID, safety, line)
		}
	}
	if n < 7 {
		t.Fatalf("%d rules with fixes; the table test needs them", n)
	}
}
