package integration

import (
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/podlint/podlint/rules"
)

// semanticsDoc is podlint's reference for Kubernetes behaviour, relative to
// the repository root (slash-separated).
const semanticsDoc = "docs/semantics.md"

var (
	// explicitAnchor is the one anchor scheme docs/semantics.md uses.
	explicitAnchor = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	// semanticsRef is any mention of an anchor of the reference, in a
	// Markdown link ("](../semantics.md#f-4)"), an absolute URL or a Go
	// comment ("docs/semantics.md#f-4").
	semanticsRef = regexp.MustCompile(`([\w./:-]*)semantics\.md#([\w-]*)`)
	// itemLabel is a bare item label such as F-7, PH-2 or E-10.
	itemLabel = regexp.MustCompile(`\b(PH|[PTRVXFEQ])-[0-9]+\b`)
	// mdLink is the target of a Markdown inline link.
	mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	// mdCode is a fenced code block or an inline code span, where link
	// syntax is only text.
	mdCode = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
)

// semanticsAnchors reads the anchors of docs/semantics.md and fails on
// duplicates.
func semanticsAnchors(t *testing.T, root string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(semanticsDoc)))
	if err != nil {
		t.Fatalf("%s is podlint's model reference and must exist: %v", semanticsDoc, err)
	}
	anchors := map[string]bool{}
	for _, m := range explicitAnchor.FindAllStringSubmatch(string(data), -1) {
		if anchors[m[1]] {
			t.Errorf("%s: anchor %q is defined twice", semanticsDoc, m[1])
		}
		anchors[m[1]] = true
	}
	if len(anchors) == 0 {
		t.Fatalf("%s defines no anchors", semanticsDoc)
	}
	// Every item is introduced by its label in bold, directly below its
	// anchor: "<a id=\"f-7\"></a>" then "**F-7 …".
	items := regexp.MustCompile(`(?m)^\*\*((?:PH|[PTRVXFEQ])-[0-9]+)\b`)
	for _, loc := range items.FindAllStringSubmatchIndex(string(data), -1) {
		label := string(data[loc[2]:loc[3]])
		before := strings.TrimRight(string(data[:loc[0]]), "\n")
		if want := `<a id="` + strings.ToLower(label) + `"></a>`; !strings.HasSuffix(before, want) {
			t.Errorf("%s: item %s is not directly below %s", semanticsDoc, label, want)
		}
	}
	// Its own cross-references, such as [F-7](#f-7).
	for _, m := range mdLink.FindAllStringSubmatch(mdCode.ReplaceAllString(string(data), ""), -1) {
		if target, ok := strings.CutPrefix(m[1], "#"); ok && !anchors[target] {
			t.Errorf("%s links to %s, which it does not define", semanticsDoc, m[1])
		}
	}
	return anchors
}

// citationProblems returns what is wrong with the citations of the model
// reference in one text. file is the slash path, relative to the
// repository root, that relative links in the text are resolved from;
// labels says whether bare item labels (F-7) count as citations there.
func citationProblems(text, file string, anchors map[string]bool, labels bool) []string {
	var out []string
	if strings.Contains(text, strings.ToUpper("semantics")) {
		out = append(out, "cites the out-of-tree "+strings.ToUpper("semantics")+" document; cite "+semanticsDoc+"#<anchor> instead")
	}
	for _, m := range semanticsRef.FindAllStringSubmatch(text, -1) {
		if !anchors[m[2]] {
			out = append(out, "cites "+m[0]+": "+semanticsDoc+" has no anchor \""+m[2]+"\"")
		}
	}
	// A relative link must reach docs/semantics.md from the page it is
	// shown on: Markdown at the root and under docs/ is read where it is,
	// a rule's doc as docs/rules/<ID>.md. Markdown elsewhere may be the
	// source of a page rendered somewhere else; its anchors still count.
	rendered := strings.HasSuffix(file, ".md") && (!strings.Contains(file, "/") || strings.HasPrefix(file, "docs/"))
	if rendered || strings.HasPrefix(file, "rules.All") {
		for _, m := range mdLink.FindAllStringSubmatch(mdCode.ReplaceAllString(text, ""), -1) {
			u, err := url.Parse(m[1])
			if err != nil || u.IsAbs() || path.Base(u.Path) != "semantics.md" {
				continue
			}
			dir := path.Dir(file)
			if strings.HasPrefix(file, "rules.All") {
				dir = "docs/rules" // rule docs are rendered into docs/rules/<ID>.md
			}
			if got := path.Join(dir, u.Path); got != semanticsDoc {
				out = append(out, "links to "+m[1]+", which is "+got+", not "+semanticsDoc)
			}
		}
	}
	if labels {
		for _, l := range itemLabel.FindAllString(text, -1) {
			if !anchors[strings.ToLower(l)] {
				out = append(out, "cites item "+l+": "+semanticsDoc+" has no anchor \""+strings.ToLower(l)+"\"")
			}
		}
	}
	return out
}

// TestSemanticsCitations checks that every citation of docs/semantics.md
// in the repository resolves: links and "docs/semantics.md#anchor"
// mentions in every text file, bare item labels (F-7, R-3) in Go sources
// and in Markdown outside testdata, every rule's doc (which becomes its
// doc page and its SARIF help), and the help of the SARIF output. Nothing
// may cite the out-of-tree document the model was first written in.
func TestSemanticsCitations(t *testing.T) {
	root := repoRoot(t)
	anchors := semanticsAnchors(t, root)
	seen := map[string]bool{}
	report := func(where string, problems []string) {
		for _, p := range problems {
			if msg := where + ": " + p; !seen[msg] {
				seen[msg] = true
				t.Error(msg)
			}
		}
	}

	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > 1<<20 {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !utf8.Valid(data) || slices.Contains(data, 0) {
			return nil // not text
		}
		files++
		inTestdata := slices.Contains(strings.Split(rel, "/"), "testdata")
		labels := strings.HasSuffix(rel, ".go") || (strings.HasSuffix(rel, ".md") && !inTestdata)
		switch rel {
		case semanticsDoc:
			labels = false // the reference's own text names items it defines
		case "internal/integration/semantics_test.go":
			return nil // its test cases are broken citations on purpose
		}
		report(rel, citationProblems(string(data), rel, anchors, labels))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("scanned only %d text files under %s", files, root)
	}

	cited := 0
	for _, r := range rules.All {
		report("rules.All "+r.ID+" Doc", citationProblems(r.Doc(), "rules.All/"+r.ID, anchors, true))
		cited += len(semanticsRef.FindAllString(r.Doc(), -1))
	}
	if cited == 0 {
		t.Error("no rule doc cites docs/semantics.md; the scan of rule docs is not looking at them")
	}

	// The SARIF help of every rule: relative links are made absolute, so
	// they must lead to this repository's docs/semantics.md and its anchors.
	code, out, stderr := runCLI(t, "", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: app, image: app:1}\n",
		"check", "--format", "sarif", "-")
	if code == 2 {
		t.Fatalf("podlint check --format sarif: exit 2: %s", stderr)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID   string `json:"id"`
						Help struct {
							Text     string `json:"text"`
							Markdown string `json:"markdown"`
						} `json:"help"`
						FullDescription struct {
							Text string `json:"text"`
						} `json:"fullDescription"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF output does not parse (%v): %.200s", err, out)
	}
	const base = "https://github.com/podlint/podlint/blob/main/" + semanticsDoc + "#"
	helpLinks := 0
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		for _, text := range []string{r.Help.Markdown, r.Help.Text, r.FullDescription.Text} {
			report("SARIF help of "+r.ID, citationProblems(text, "sarif/"+r.ID, anchors, true))
			for _, m := range semanticsRef.FindAllStringSubmatch(text, -1) {
				helpLinks++
				if !strings.HasPrefix(m[0], base) {
					t.Errorf("SARIF help of %s links to %s; code scanning needs the absolute %s<anchor>", r.ID, m[0], base)
				}
			}
		}
	}
	if helpLinks == 0 {
		t.Error("no SARIF rule help cites docs/semantics.md")
	}
	t.Logf("%d anchors; %d text files, %d rule docs and %d SARIF rules scanned", len(anchors), files, len(rules.All), len(log.Runs[0].Tool.Driver.Rules))
}

// TestCitationProblemsCatchBreakage shows the checker rejects each kind of
// broken citation, so that TestSemanticsCitations passing means something.
func TestCitationProblemsCatchBreakage(t *testing.T) {
	anchors := map[string]bool{"f-4": true, "deployment": true}
	for _, c := range []struct {
		text, file string
		labels     bool
		want       string // "" = no problem
	}{
		{"see [F-4](../semantics.md#f-4)", "docs/rules/PL101.md", true, ""},
		{"see [F-4](../semantics.md#f-5)", "docs/rules/PL101.md", true, `no anchor "f-5"`},
		{"see [F-4](semantics.md#f-4)", "docs/rules/PL101.md", true, "docs/rules/semantics.md, not docs/semantics.md"},
		{"see [F-4](semantics.md#f-4)", "rules.All/PL101", true, "docs/rules/semantics.md"},
		{"see [F-4](../semantics.md#f-4)", "rules/docs/PL101.md", true, ""},
		{"see [F-4](../semantics.md#f-9)", "rules/docs/PL101.md", true, `no anchor "f-9"`},
		{"see [F-4](semantics.md#f-4)", "README.md", true, "which is semantics.md, not docs/semantics.md"},
		{"see [x](semantics.md#deployment)", "docs/timeline-output.md", false, ""},
		{"write `[F-4](../semantics.md#f-4)` in rule docs", "docs/semantics.md", false, ""},
		{"// stall detector (docs/semantics.md#deployments)", "timeline/x.go", true, `no anchor "deployments"`},
		{"// (F-4, F-9)", "timeline/x.go", true, `item F-9`},
		{"// (F-4, F-9)", "timeline/x.go", false, ""},
		{"UTF-8 and IPv4-1", "timeline/x.go", true, ""},
		{"(" + strings.ToUpper("semantics") + " F-4)", "rules/x.go", true, "out-of-tree"},
		{"https://github.com/podlint/podlint/blob/main/docs/semantics.md#nope", "sarif/PL101", true, `no anchor "nope"`},
	} {
		got := strings.Join(citationProblems(c.text, c.file, anchors, c.labels), "; ")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("citationProblems(%q, %q) = %q, want %q", c.text, c.file, got, c.want)
		}
	}
}
