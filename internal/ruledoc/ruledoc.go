// Package ruledoc renders what podlint says about its rules, all from the
// rules themselves: the metadata of each Rule value and its Markdown doc
// (rules/doc/<ID>.md, embedded in the binary). It renders the doc pages
// docs/rules/<ID>.md (with examples taken from rules/testdata/<ID>/), the
// catalog docs/rules.md and `podlint rules --format markdown`, the table of
// `podlint rules`, and the page `podlint rules ID` prints. SARIF help is the
// same Markdown doc (rules.Rule.Info). internal/gendocs, run by `go generate
// ./...`, writes the files; a test there fails when one is stale.
package ruledoc

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/rules"
)

// areas names the area of each rule ID's first digit.
var areas = map[byte]string{'0': "input", '1': "probes", '2': "hooks and termination", '3': "restart policy and Jobs", '4': "init and sidecar containers", '5': "controllers", '6': "resources", '7': "release: objects together"}

// DefaultLevel is the severity a rule runs with unless configured: "off"
// for rules that run only when enabled.
func DefaultLevel(r *rules.Rule) string {
	if r.DefaultOff {
		return "off"
	}
	return r.Severity.String()
}

// listedLevel is DefaultLevel as the catalog lists it: "opt-in" for the
// rules that run only when enabled, so that a reader sees that they exist
// and are one flag away rather than disabled.
func listedLevel(r *rules.Rule) string {
	if r.DefaultOff {
		return "opt-in"
	}
	return DefaultLevel(r)
}

// FixLevel is the safety of a rule's default fix ("safe" or "unsafe"),
// "" for a rule without fixes.
func FixLevel(r *rules.Rule) string {
	if r.Fix == nil {
		return ""
	}
	return r.Fix.Safety.String()
}

// WriteText prints the catalog as an aligned table under a header row, one
// rule a line: ID, name, default severity, the safety of its fix ("-" for
// none), title.
func WriteText(w io.Writer, list rules.List) {
	width := 0
	for _, r := range list {
		width = max(width, len(r.Name))
	}
	idWidth := len("ID")
	for _, r := range list {
		idWidth = max(idWidth, len(r.ID))
	}
	row := func(id, name, level, fix, title string) {
		fmt.Fprintf(w, "%-*s  %-*s  %-7s  %-10s  %s\n", idWidth, id, width, name, level, fix, title)
	}
	row("ID", "NAME", "DEFAULT", "FIX", "WHAT IT FINDS")
	for _, r := range list {
		fix := "-"
		if l := FixLevel(r); l != "" {
			fix = "fix:" + l
		}
		row(r.ID, r.Name, listedLevel(r), fix, r.Title)
	}
}

// Index is docs/rules.md: one table row per rule, linking its page.
func Index(list rules.List) string {
	var b strings.Builder
	b.WriteString("# podlint rules\n\n<!-- Generated from rules/ by `go generate ./...` (the same as `podlint rules --format markdown`); a test fails when this file is stale. -->\n\n")
	b.WriteString("| ID | name | default | fix | what it finds |\n|---|---|---|---|---|\n")
	for _, r := range list {
		fmt.Fprintf(&b, "| [%s](rules/%s.md) | `%s` | %s | %s | %s |\n", r.ID, r.ID, r.Name, listedLevel(r), FixLevel(r), r.Title)
	}
	b.WriteString("\nSeverity can be changed per rule in `.podlint.yaml` (`rules: {" + rules.LivenessKillsBeforeReady.ID + ": warning}`); opt-in rules run with `--enable ID` (or `enable: [ID]` in `.podlint.yaml`), and [precision.md](precision.md) says why each is opt-in. The fix column gives the safety of a rule's default fix: `podlint fix` applies safe fixes, `podlint fix --unsafe` unsafe ones too (see [fix.md](fix.md)).\n")
	return b.String()
}

// Examples are a failing and a passing manifest of a rule, without their
// test annotations; either may be empty.
type Examples struct {
	Failing, Passing string
}

var (
	wantComment = regexp.MustCompile(`#\s*want\s`)
	testComment = regexp.MustCompile(`\s*#\s*(want|podlint-test:)\s.*$`)
)

// ReadExamples picks the examples of rule id from testdata/<id>/ in fsys
// (the rules directory): the first file with a `# want` whose name says
// "bad" (else the first with a `# want`) fails, the first without one
// passes.
func ReadExamples(fsys fs.FS, id string) Examples {
	dir := path.Join("testdata", id)
	entries, _ := fs.ReadDir(fsys, dir)
	var bad, anyBad, good []byte
	for _, e := range entries {
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil || e.IsDir() {
			continue
		}
		hasWant := wantComment.Match(data)
		switch {
		case hasWant && bad == nil && strings.Contains(e.Name(), "bad"):
			bad = data
		case hasWant && anyBad == nil:
			anyBad = data
		case !hasWant && good == nil:
			good = data
		}
	}
	if bad == nil {
		bad = anyBad
	}
	return Examples{Failing: example(bad), Passing: example(good)}
}

// example returns a testdata file without its test annotations.
func example(data []byte) string {
	if data == nil {
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

// Page is a rule's documentation as `podlint rules ID` prints it: its
// metadata, its Markdown doc, a link to the page with the examples, and how
// to suppress it.
func Page(r *rules.Rule) string { return page(r, Examples{}, false) }

// File is docs/rules/<ID>.md: the page with the examples in place of the
// link, marked as generated.
func File(r *rules.Rule, ex Examples) string { return page(r, ex, true) }

func page(r *rules.Rule, ex Examples, file bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s\n\n", r.ID, r.Name)
	if file {
		fmt.Fprintf(&b, "<!-- Generated from rules/doc/%s.md, the rule's metadata and rules/testdata/%s/ by `go generate ./...`; do not edit. -->\n\n", r.ID, r.ID)
	}
	fmt.Fprintf(&b, "**%s**\n\n", upperFirst(r.Title))
	sev := r.Severity.String()
	if r.DefaultOff {
		sev = "opt-in (enable with `--enable " + r.Name + "`; " + r.Severity.String() + " when enabled)"
	}
	since := "every supported version"
	if r.MinVersion.Minor != 0 {
		since = fmt.Sprintf("%d.%d and later", r.MinVersion.Major, r.MinVersion.Minor)
	}
	area := ""
	if len(r.ID) > 2 {
		area = areas[r.ID[2]]
	}
	fix := "none"
	if r.Fix != nil {
		how := "`podlint fix`"
		if r.Fix.Safety != finding.Safe {
			how = "`podlint fix --unsafe`"
		}
		fix = fmt.Sprintf("%s (%s): %s", r.Fix.Safety, how, r.Fix.Text)
	}
	fmt.Fprintf(&b, "| | |\n|---|---|\n| ID | `%s` |\n| Name | `%s` |\n| Area | %s |\n| Default severity | %s |\n| Kubernetes | %s |\n| Fix | %s |\n\n", r.ID, r.Name, area, sev, since, fix)
	b.WriteString(strings.TrimSpace(r.Doc()))
	b.WriteString("\n")
	if ex.Failing != "" {
		fmt.Fprintf(&b, "\n## Failing example\n\n```yaml\n%s```\n", ex.Failing)
	}
	if ex.Passing != "" {
		fmt.Fprintf(&b, "\n## Passing example\n\n```yaml\n%s```\n", ex.Passing)
	}
	if !file {
		fmt.Fprintf(&b, "\nExamples: %s\n", r.Info().HelpURI)
	}
	where := "on the workload or its pod template"
	if r.CrossObject != nil {
		where = "on the object the finding points at (the Service, the budget, the workload)"
	}
	fmt.Fprintf(&b, "\n## Suppressing\n\nWhen the finding does not apply, say why %s:\n\n```yaml\nmetadata:\n  annotations:\n    ignore-check.podlint.dev/%s: \"<reason>\"\n```\n\nor with a comment on (or directly above) the reported line: `# podlint:ignore %s <reason>`. Turn the rule off everywhere with `--disable %s` or in `.podlint.yaml`.\n", where, r.ID, r.Name, r.Name)
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
