package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v2/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/podlint/podlint/finding"
)

// sarifSchemaPath is the official SARIF 2.1.0 schema (OASIS, errata 01),
// committed unchanged; testdata/README.md says where it comes from.
var sarifSchemaPath = filepath.Join("testdata", "sarif-schema-2.1.0.json")

// sarifSchema compiles the official schema. A missing schema fails the
// test rather than skipping it: a validation that silently does not run
// is worse than none.
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	abs, err := filepath.Abs(sarifSchemaPath)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	// Formats are annotations only unless asserted; SARIF leans on
	// "uri" and "uri-reference", which are exactly what we want checked.
	c.AssertFormat()
	sch, err := c.Compile(abs)
	if err != nil {
		t.Fatalf("compiling %s: %v", sarifSchemaPath, err)
	}
	return sch
}

func validateSARIF(sch *jsonschema.Schema, doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

func TestSARIFSchema(t *testing.T) {
	sch := sarifSchema(t)
	for name, res := range map[string]*finding.Result{"findings": fixtureResult(), "empty": emptyResult()} {
		doc := render(t, "sarif", res, testOptions(t))
		if err := validateSARIF(sch, doc); err != nil {
			t.Errorf("%s: SARIF does not match the 2.1.0 schema: %v", name, err)
		}
		if problems := gitHubSARIFProblems(doc); len(problems) > 0 {
			t.Errorf("%s: SARIF breaks GitHub's rules:\n%s", name, strings.Join(problems, "\n"))
		}
	}
}

// TestSARIFSchemaRejectsBrokenDocuments proves the schema validation above
// really runs: each mutation of a valid document must fail it.
func TestSARIFSchemaRejectsBrokenDocuments(t *testing.T) {
	sch := sarifSchema(t)
	good := render(t, "sarif", fixtureResult(), testOptions(t))
	for name, mutate := range map[string]func(doc map[string]any){
		"wrong version":      func(doc map[string]any) { doc["version"] = "1.0.0" },
		"no runs":            func(doc map[string]any) { delete(doc, "runs") },
		"unknown top field":  func(doc map[string]any) { doc["extra"] = true },
		"bad level":          func(doc map[string]any) { firstResult(doc)["level"] = "fatal" },
		"startLine 0":        func(doc map[string]any) { firstRegion(doc)["startLine"] = 0 },
		"ruleIndex negative": func(doc map[string]any) { firstResult(doc)["ruleIndex"] = -2 },
		"uri not a string":   func(doc map[string]any) { firstArtifact(doc)["uri"] = 7 },
		"bad helpUri":        func(doc map[string]any) { firstRule(doc)["helpUri"] = "not a uri" },
	} {
		var doc map[string]any
		if err := json.Unmarshal(good, &doc); err != nil {
			t.Fatal(err)
		}
		mutate(doc)
		bad, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if validateSARIF(sch, bad) == nil {
			t.Errorf("%s: schema accepted a broken document", name)
		}
	}
}

func firstRun(doc map[string]any) map[string]any {
	return doc["runs"].([]any)[0].(map[string]any)
}

func firstResult(doc map[string]any) map[string]any {
	return firstRun(doc)["results"].([]any)[0].(map[string]any)
}

func firstRule(doc map[string]any) map[string]any {
	return firstRun(doc)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)[0].(map[string]any)
}

func firstPhysical(doc map[string]any) map[string]any {
	return firstResult(doc)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
}

func firstRegion(doc map[string]any) map[string]any {
	return firstPhysical(doc)["region"].(map[string]any)
}

func firstArtifact(doc map[string]any) map[string]any {
	return firstPhysical(doc)["artifactLocation"].(map[string]any)
}

// gitHubSARIFProblems checks what GitHub code scanning requires beyond the
// schema: every rule has help text, every result names a described rule
// (and its ruleIndex agrees), and every location has a non-empty relative
// URI and a region starting at line ≥ 1, column ≥ 1.
func gitHubSARIFProblems(doc []byte) []string {
	var problems []string
	report, err := sarif.FromBytes(doc)
	if err != nil {
		return []string{err.Error()}
	}
	if len(report.Runs) == 0 {
		return []string{"no runs"}
	}
	for _, run := range report.Runs {
		ids := map[string]int{}
		for i, r := range run.Tool.Driver.Rules {
			if r.Help == nil || r.Help.Text == nil || strings.TrimSpace(*r.Help.Text) == "" {
				problems = append(problems, fmt.Sprintf("rule %s has no help.text", r.ID))
			}
			if _, dup := ids[r.ID]; dup {
				problems = append(problems, fmt.Sprintf("rule %s listed twice", r.ID))
			}
			ids[r.ID] = i
		}
		checkLoc := func(where string, loc *sarif.Location) {
			pl := loc.PhysicalLocation
			if pl == nil || pl.ArtifactLocation == nil || pl.ArtifactLocation.URI == nil || *pl.ArtifactLocation.URI == "" {
				problems = append(problems, where+": no artifactLocation.uri")
				return
			}
			u, err := url.Parse(*pl.ArtifactLocation.URI)
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("%s: uri %q: %v", where, *pl.ArtifactLocation.URI, err))
			case u.IsAbs() || strings.HasPrefix(u.Path, "/"):
				problems = append(problems, fmt.Sprintf("%s: uri %q is not relative", where, *pl.ArtifactLocation.URI))
			}
			if r := pl.Region; r == nil || r.StartLine == nil || *r.StartLine < 1 || r.StartColumn == nil || *r.StartColumn < 1 {
				problems = append(problems, where+": region must start at line ≥ 1, column ≥ 1")
			}
		}
		for i, res := range run.Results {
			where := fmt.Sprintf("result %d", i)
			if res.RuleID == nil {
				problems = append(problems, where+": no ruleId")
				continue
			}
			idx, ok := ids[*res.RuleID]
			if !ok {
				problems = append(problems, fmt.Sprintf("%s: ruleId %s is not in tool.driver.rules", where, *res.RuleID))
			} else if res.RuleIndex == nil || int(*res.RuleIndex) != idx {
				problems = append(problems, fmt.Sprintf("%s: ruleIndex does not point at %s", where, *res.RuleID))
			}
			if len(res.Locations) != 1 {
				problems = append(problems, fmt.Sprintf("%s: %d locations, want 1", where, len(res.Locations)))
			}
			for _, loc := range res.Locations {
				checkLoc(where, loc)
			}
			for j, loc := range res.RelatedLocations {
				checkLoc(fmt.Sprintf("%s related %d", where, j), loc)
			}
		}
	}
	return problems
}

// TestGitHubSARIFChecksCatchProblems keeps the checker above honest.
func TestGitHubSARIFChecksCatchProblems(t *testing.T) {
	good := render(t, "sarif", fixtureResult(), testOptions(t))
	for name, c := range map[string]struct {
		mutate func(doc map[string]any)
		want   string
	}{
		"absolute uri":   {func(doc map[string]any) { firstArtifact(doc)["uri"] = "file:///etc/app.yaml" }, "not relative"},
		"rooted uri":     {func(doc map[string]any) { firstArtifact(doc)["uri"] = "/etc/app.yaml" }, "not relative"},
		"empty uri":      {func(doc map[string]any) { firstArtifact(doc)["uri"] = "" }, "no artifactLocation.uri"},
		"column 0":       {func(doc map[string]any) { firstRegion(doc)["startColumn"] = 0 }, "column ≥ 1"},
		"no help":        {func(doc map[string]any) { delete(firstRule(doc), "help") }, "no help.text"},
		"unknown rule":   {func(doc map[string]any) { firstResult(doc)["ruleId"] = "PL999" }, "not in tool.driver.rules"},
		"wrong index":    {func(doc map[string]any) { firstResult(doc)["ruleIndex"] = 3 }, "ruleIndex does not point"},
		"missing region": {func(doc map[string]any) { delete(firstPhysical(doc), "region") }, "line ≥ 1"},
	} {
		var doc map[string]any
		if err := json.Unmarshal(good, &doc); err != nil {
			t.Fatal(err)
		}
		c.mutate(doc)
		bad, _ := json.Marshal(doc)
		problems := strings.Join(gitHubSARIFProblems(bad), "\n")
		if !strings.Contains(problems, c.want) {
			t.Errorf("%s: want a problem mentioning %q, got %q", name, c.want, problems)
		}
	}
}

func decodeSARIF(t *testing.T, doc []byte) *sarif.Report {
	t.Helper()
	report, err := sarif.FromBytes(doc)
	if err != nil {
		t.Fatal(err)
	}
	return report
}

func TestSARIFContent(t *testing.T) {
	opts := testOptions(t)
	report := decodeSARIF(t, render(t, "sarif", fixtureResult(), opts))
	run := report.Runs[0]
	d := run.Tool.Driver
	if d.Name != "podlint" || d.Version == nil || *d.Version != "1.2.3" || d.InformationURI == nil || *d.InformationURI != informationURI {
		t.Errorf("driver = %s %v %v", d.Name, d.Version, d.InformationURI)
	}
	var ids []string
	for _, r := range d.Rules {
		ids = append(ids, r.ID)
	}
	// The catalog sorted by ID, then the rule only findings know.
	if got, want := strings.Join(ids, " "), "PL001 PL101 PL201 PL301 PL402 PL502 PL000"; got != want {
		t.Errorf("rules = %s, want %s", got, want)
	}
	pl101 := d.Rules[1]
	if *pl101.Name != "liveness-kills-before-ready" || *pl101.ShortDescription.Text != "liveness probe kills the container before it can become ready" ||
		pl101.DefaultConfiguration.Level != "error" ||
		*pl101.HelpURI != "https://github.com/podlint/podlint/blob/main/docs/rules/PL101.md" ||
		*pl101.Help.Markdown != fixtureRules()[1].Doc || *pl101.Help.Text != fixtureRules()[1].Doc {
		t.Errorf("PL101 rule is incomplete: %+v", pl101)
	}
	if got, want := *pl101.FullDescription.Text, "A liveness probe that fails before the readiness probe can first pass restarts the container forever."; got != want {
		t.Errorf("fullDescription = %q, want %q", got, want)
	}
	if d.Rules[0].DefaultConfiguration.Level != "note" || d.Rules[2].DefaultConfiguration.Level != "warning" {
		t.Errorf("severity levels not mapped: %s %s", d.Rules[0].DefaultConfiguration.Level, d.Rules[2].DefaultConfiguration.Level)
	}

	if len(run.Results) != len(fixtureResult().Findings) {
		t.Fatalf("%d results, want %d", len(run.Results), len(fixtureResult().Findings))
	}
	uris := map[string]bool{}
	for _, r := range run.Results {
		al := r.Locations[0].PhysicalLocation.ArtifactLocation
		uris[*al.URI] = true
		if al.URIBaseId == nil || *al.URIBaseId != "%SRCROOT%" {
			t.Errorf("result %s: uriBaseId = %v", *r.RuleID, al.URIBaseId)
		}
		if len(r.PartialFingerprints) != 1 || r.PartialFingerprints[fingerprintKey] == nil {
			t.Errorf("result %s: partialFingerprints = %v", *r.RuleID, r.PartialFingerprints)
		}
	}
	for _, want := range []string{"deploy/app.yaml", "deploy/my%20app%20%C3%BC%231.yaml", "stdin", "../outside/job.yaml"} {
		if !uris[want] {
			t.Errorf("no result with uri %q; have %v", want, uris)
		}
	}

	// PL402 points at "1.0" after the two-byte "é": byte column 21,
	// code point column 20.
	for _, r := range run.Results {
		if *r.RuleID == "PL402" {
			if got := *r.Locations[0].PhysicalLocation.Region.StartColumn; got != strings.Index(unicodeLine, "1.0") {
				t.Errorf("PL402 startColumn = %d, want the code point column %d", got, strings.Index(unicodeLine, "1.0"))
			}
			if r.Properties["container"] != "proxy" {
				t.Errorf("PL402 properties = %v", r.Properties)
			}
		}
		if *r.RuleID == "PL301" {
			// Column 200 of a 23-character line: just past its end.
			if got := *r.Locations[0].PhysicalLocation.Region.StartColumn; got != len("  restartPolicy: Always")+1 {
				t.Errorf("PL301 startColumn = %d, want it clamped to %d", got, len("  restartPolicy: Always")+1)
			}
		}
		if *r.RuleID == "PL101" && len(r.RelatedLocations) > 0 {
			rl := r.RelatedLocations[1]
			if *rl.Id != 2 || *rl.Message.Text != "readiness can first pass at initialDelaySeconds 45s" || *rl.PhysicalLocation.Region.StartLine != 17 {
				t.Errorf("related location = %+v", rl)
			}
		}
	}
}

func sarifFingerprints(t *testing.T, res *finding.Result) []string {
	t.Helper()
	var fps []string
	for _, r := range decodeSARIF(t, render(t, "sarif", res, testOptions(t))).Runs[0].Results {
		fps = append(fps, r.PartialFingerprints[fingerprintKey].(string))
	}
	return fps
}

// TestSARIFFingerprints: moving a finding to another line keeps its
// fingerprint (no alert churn), a different message changes it, and two
// identical findings still get distinct fingerprints.
func TestSARIFFingerprints(t *testing.T) {
	base := fixtureResult()
	fps := sarifFingerprints(t, base)
	seen := map[string]bool{}
	for _, fp := range fps {
		if len(fp) != 64 || seen[fp] {
			t.Errorf("fingerprint %q is not a unique sha256 hex", fp)
		}
		seen[fp] = true
	}

	moved := fixtureResult()
	moved.Findings[5].Line += 40 // PL402, the last finding in sort order either way
	if got := sarifFingerprints(t, moved); got[5] != fps[5] {
		t.Errorf("moving a finding changed its fingerprint: %s → %s", fps[5], got[5])
	}

	reworded := fixtureResult()
	reworded.Findings[5].Message += " (again)"
	if got := sarifFingerprints(t, reworded); got[5] == fps[5] {
		t.Errorf("a different message kept the fingerprint %s", fps[5])
	}

	dup := &finding.Result{Findings: []finding.Finding{fixtureResult().Findings[2], fixtureResult().Findings[2]}}
	dup.Findings[1].Line++
	if got := sarifFingerprints(t, dup); got[0] == got[1] {
		t.Errorf("identical findings share fingerprint %s", got[0])
	}
}

func TestCodePointColumn(t *testing.T) {
	for _, c := range []struct {
		line      string
		col, want int
	}{
		{"", 5, 5},
		{"abc", 0, 0},
		{"abc", 2, 2},
		{"é=1", 3, 2},  // the byte after the two-byte é
		{"é=1", 2, 1},  // inside é: counts é
		{"ab", 3, 3},   // just past the end
		{"éb", 10, 3},  // far past the end: just after the last rune
		{"\tx", 2, 2},  // a tab is one code point
		{"üü x", 6, 4}, // two two-byte runes and a space
	} {
		if got := codePointColumn(c.line, c.col); got != c.want {
			t.Errorf("codePointColumn(%q, %d) = %d, want %d", c.line, c.col, got, c.want)
		}
	}
}

func TestFirstParagraph(t *testing.T) {
	for doc, want := range map[string]string{
		"":                                "",
		"# Title\n\nFirst\nline.\n\nNext": "First line.",
		"```yaml\na: 1\n\nb: 2\n```\n\nAfter the code.": "After the code.",
		"Lead in:\n```yaml\nx: 1\n```":                  "Lead in:",
		"## Only a heading":                             "",
	} {
		if got := firstParagraph(doc); got != want {
			t.Errorf("firstParagraph(%q) = %q, want %q", doc, got, want)
		}
	}
}

func TestAbsoluteLinks(t *testing.T) {
	const page = "https://github.com/podlint/podlint/blob/main/docs/rules/PL101.md"
	for _, c := range []struct{ doc, help, want string }{
		{"See [F-4](../semantics.md#f-4).", page,
			"See [F-4](https://github.com/podlint/podlint/blob/main/docs/semantics.md#f-4)."},
		{"[PL102](PL102.md) and [x](https://example.com/a#b) and [here](#fix)", page,
			"[PL102](https://github.com/podlint/podlint/blob/main/docs/rules/PL102.md) and [x](https://example.com/a#b) and [here](#fix)"},
		{"See [F-4](../semantics.md#f-4).", "", "See [F-4](../semantics.md#f-4)."},
		{"`f(x)` and [a] (b)", page, "`f(x)` and [a] (b)"},
	} {
		if got := absoluteLinks(c.doc, c.help); got != c.want {
			t.Errorf("absoluteLinks(%q, %q) = %q, want %q", c.doc, c.help, got, c.want)
		}
	}
}
