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
	failed := testOptions(t)
	failed.Errors = []string{"missing.yaml: no such file or directory"}
	for name, c := range map[string]struct {
		res  *finding.Result
		opts Options
	}{"findings": {fixtureResult(), testOptions(t)}, "empty": {emptyResult(), testOptions(t)}, "failed run": {fixtureResult(), failed}} {
		doc := render(t, "sarif", c.res, c.opts)
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
	if got, want := strings.Join(ids, " "), "PL005 PL101 PL201 PL304 PL404 PL601 PL009"; got != want {
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

	// PL404 points at "1.0" after the two-byte "é": byte column 21,
	// code point column 20.
	for _, r := range run.Results {
		if *r.RuleID == "PL404" {
			if got := *r.Locations[0].PhysicalLocation.Region.StartColumn; got != strings.Index(unicodeLine, "1.0") {
				t.Errorf("PL404 startColumn = %d, want the code point column %d", got, strings.Index(unicodeLine, "1.0"))
			}
			if r.Properties["container"] != "proxy" {
				t.Errorf("PL404 properties = %v", r.Properties)
			}
		}
		if *r.RuleID == "PL601" {
			// Column 200 of a 23-character line: just past its end.
			if got := *r.Locations[0].PhysicalLocation.Region.StartColumn; got != len("  restartPolicy: Always")+1 {
				t.Errorf("PL601 startColumn = %d, want it clamped to %d", got, len("  restartPolicy: Always")+1)
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

// TestSARIFFingerprints: inserting lines above a finding or rewording its
// message keeps its fingerprint (no alert churn in code scanning), changing
// the object or the field path changes it, and two identical findings still
// get distinct fingerprints.
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
	moved.Findings[5].Line += 40 // PL404, the last finding in sort order either way
	if got := sarifFingerprints(t, moved); got[5] != fps[5] {
		t.Errorf("moving a finding changed its fingerprint: %s → %s", fps[5], got[5])
	}

	// PL101 in deploy/app.yaml has a field path.
	inserted := fixtureResult()
	for i := range inserted.Findings {
		if inserted.Findings[i].File == "deploy/app.yaml" {
			inserted.Findings[i].Line += 3 // three lines inserted at the top
		}
	}
	if got := sarifFingerprints(t, inserted); got[2] != fps[2] || got[3] != fps[3] {
		t.Errorf("inserting lines above findings changed their fingerprints: %s %s → %s %s", fps[2], fps[3], got[2], got[3])
	}

	reworded := fixtureResult()
	reworded.Findings[2].Message = `liveness probe kills "app" 30s–31s after start, before it is ready`
	reworded.Findings[2].Detail = "Reworded in a later release."
	if got := sarifFingerprints(t, reworded); got[2] != fps[2] {
		t.Errorf("rewording a message changed its fingerprint: %s → %s", fps[2], got[2])
	}

	for name, change := range map[string]func(f *finding.Finding){
		"object name": func(f *finding.Finding) {
			f.Object = &finding.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "api"}
		},
		"object kind": func(f *finding.Finding) {
			f.Object = &finding.ObjectRef{APIVersion: "apps/v1", Kind: "StatefulSet", Namespace: "shop", Name: "web"}
		},
		"namespace": func(f *finding.Finding) {
			f.Object = &finding.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "prod", Name: "web"}
		},
		"field path":   func(f *finding.Finding) { f.Path = "spec.template.spec.containers[1].livenessProbe" },
		"container":    func(f *finding.Finding) { f.Container = "sidecar" },
		"another rule": func(f *finding.Finding) { f.RuleID = "PL102" },
	} {
		changed := fixtureResult()
		change(&changed.Findings[2])
		if got := sarifFingerprints(t, changed); got[2] == fps[2] {
			t.Errorf("changing the %s kept the fingerprint %s", name, fps[2])
		}
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

// TestSARIFForCodeScanning checks what code scanning reads beyond the
// schema: the headline with related locations linked, the detail in
// markdown, the region spanning the value, and the invocation that says
// whether the run succeeded.
func TestSARIFForCodeScanning(t *testing.T) {
	run := decodeSARIF(t, render(t, "sarif", fixtureResult(), testOptions(t))).Runs[0]
	r := run.Results[2] // PL101 in deploy/app.yaml with two related locations
	if want := `liveness probe kills "app" 31s after start, before its readiness probe can first pass at 45s (see [liveness starts failing after initialDelaySeconds 1s + 3 × periodSeconds 10s](1), [readiness can first pass at initialDelaySeconds 45s](2))`; *r.Message.Text != want {
		t.Errorf("message.text = %q\nwant %q", *r.Message.Text, want)
	}
	if r.Message.Markdown == nil || !strings.Contains(*r.Message.Markdown, "\n\nThe probe kills") {
		t.Errorf("message.markdown lacks the detail: %v", r.Message.Markdown)
	}
	reg := r.Locations[0].PhysicalLocation.Region
	if reg.EndLine == nil || *reg.EndLine != 12 || reg.EndColumn == nil || *reg.EndColumn != 9+len("livenessProbe") {
		t.Errorf("region = %+v, want it to end after livenessProbe on line 12", reg)
	}
	if len(run.Invocations) != 1 || run.Invocations[0].ExecutionSuccessful == nil || !*run.Invocations[0].ExecutionSuccessful {
		t.Errorf("a clean run must say executionSuccessful true: %+v", run.Invocations)
	}

	opts := testOptions(t)
	opts.Errors = []string{"missing.yaml: no such file or directory"}
	failed := decodeSARIF(t, render(t, "sarif", fixtureResult(), opts)).Runs[0]
	inv := failed.Invocations[0]
	if *inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 ||
		*inv.ToolExecutionNotifications[0].Message.Text != opts.Errors[0] || inv.ToolExecutionNotifications[0].Level != "error" {
		t.Errorf("a run with errors must say so: %+v", inv)
	}
}

func TestSARIFResultCap(t *testing.T) {
	res := &finding.Result{}
	base := fixtureResult().Findings
	for i := 0; i < sarifMaxResults+7; i++ {
		f := base[4] // an info
		f.Line = i + 1
		res.Findings = append(res.Findings, f)
	}
	for _, i := range []int{100, 20000, sarifMaxResults + 3} {
		res.Findings[i] = base[2] // errors scattered through the file
		res.Findings[i].File, res.Findings[i].Line = base[4].File, i+1
	}
	run := decodeSARIF(t, render(t, "sarif", res, testOptions(t))).Runs[0]
	if len(run.Results) != sarifMaxResults {
		t.Fatalf("%d results, want %d", len(run.Results), sarifMaxResults)
	}
	errors := 0
	for _, r := range run.Results {
		if *r.Level == "error" {
			errors++
		}
	}
	if errors != 3 {
		t.Errorf("%d errors kept, want all 3", errors)
	}
	n := run.Invocations[0].ToolExecutionNotifications
	if len(n) != 1 || !strings.HasPrefix(*n[0].Message.Text, "7 findings were left out") || !*run.Invocations[0].ExecutionSuccessful {
		t.Errorf("notifications = %+v", n)
	}
}

func TestValueEnd(t *testing.T) {
	for _, c := range []struct {
		line      string
		col, want int
	}{
		{"  periodSeconds: 0", 18, 19},
		{"  livenessProbe:", 3, 16},
		{`  image: "a b" # c`, 10, 15},
		{"  command: [\"sh\", \"-c\"]  # x", 12, 24},
		{"  x: plain value # comment", 6, 17},
		{"  - name: app", 5, 9},
		{"short", 9, 9},
	} {
		if got := valueEnd(c.line, c.col); got != c.want {
			t.Errorf("valueEnd(%q, %d) = %d, want %d", c.line, c.col, got, c.want)
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
