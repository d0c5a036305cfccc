package report

import (
	"bytes"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/podlint/podlint/finding"
)

const (
	informationURI = "https://github.com/podlint/podlint"
	// srcRootBase is the uriBaseId of every artifact location. The run
	// deliberately has no originalUriBaseIds entry giving its absolute
	// value: that would leak the build machine's paths into uploaded
	// reports and make the output differ between checkouts. GitHub code
	// scanning resolves relative URIs against the repository root anyway.
	srcRootBase = "%SRCROOT%"
	// fingerprintKey names our partialFingerprints entry; the "/v1" lets a
	// future change of the fingerprint recipe use a new key instead of
	// silently reopening every alert.
	fingerprintKey = "podlint/v1"
)

// sarifLevel maps a severity to a SARIF level.
func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	case finding.Info:
		return "note"
	}
	return "none"
}

// writeSARIF renders a SARIF 2.1.0 log with one run.
//
// tool.driver.rules holds the whole catalog sorted by ID, so code scanning
// can show help for a rule before it ever fires, followed by an entry for
// any rule ID a finding carries that the catalog lacks (the analyzer's own
// diagnostics, for example): GitHub rejects a result whose ruleId is not
// described.
//
// Columns are counted in Unicode code points (run.columnKind), converted
// from podlint's byte columns using the finding's source line; related
// locations have no source line at hand and keep byte columns, which is
// the same number for the ASCII keys they point at. A column past the end
// of its line is clamped to just after the last character.
func writeSARIF(buf *bytes.Buffer, res *finding.Result, opts Options) error {
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	driver := sarif.NewDriver("podlint").WithInformationURI(informationURI)
	if opts.ToolVersion != "" {
		driver.WithVersion(opts.ToolVersion)
	}

	index := map[string]int{}
	add := func(r finding.RuleInfo) {
		if _, ok := index[r.ID]; ok {
			return
		}
		index[r.ID] = len(driver.Rules)
		driver.Rules = append(driver.Rules, sarifRule(r))
	}
	catalog := append([]finding.RuleInfo(nil), opts.Rules...)
	sort.SliceStable(catalog, func(i, j int) bool { return catalog[i].ID < catalog[j].ID })
	for _, r := range catalog {
		add(r)
	}
	var missing []finding.RuleInfo
	seen := map[string]bool{}
	for i := range res.Findings {
		f := &res.Findings[i]
		if _, ok := index[f.RuleID]; !ok && !seen[f.RuleID] {
			seen[f.RuleID] = true
			missing = append(missing, finding.RuleInfo{ID: f.RuleID, Name: f.RuleName, Severity: f.Severity})
		}
	}
	sort.Slice(missing, func(i, j int) bool { return missing[i].ID < missing[j].ID })
	for _, r := range missing {
		add(r)
	}

	run := sarif.NewRun(sarif.Tool{Driver: driver})
	run.ColumnKind = "unicodeCodePoints"
	if res.Summary.ConfigFile != "" {
		run.Properties = sarif.Properties{"configFile": res.Summary.ConfigFile}
	}
	if id := automationID(opts.Category); id != "" {
		run.WithAutomationDetails(sarif.NewRunAutomationDetails().WithID(id))
	}
	fp := newFingerprinter(sha256Hash)
	for i := range res.Findings {
		f := &res.Findings[i]
		rel := relPath(opts.SrcRoot, f.File)
		col := codePointColumn(f.SourceLine, f.SourceColumn())
		if f.SourceCut > 0 {
			col += f.SourceCutRunes - 1 // SourceLine starts with the one-character Ellipsis
		}
		line, col := clampPos(f.Line, col)
		r := sarif.NewRuleResult(f.RuleID).
			WithRuleIndex(index[f.RuleID]).
			WithLevel(sarifLevel(f.Severity)).
			WithMessage(sarif.NewTextMessage(f.Message))
		r.AddLocation(sarifLocation(rel, line, col))
		for j, rl := range f.Related {
			rline, rcol := clampPos(rl.Line, rl.Column)
			loc := sarifLocation(relPath(opts.SrcRoot, rl.File), rline, rcol).WithId(j + 1)
			if rl.Message != "" {
				loc.WithDescriptionText(rl.Message)
			}
			r.AddRelatedLocation(loc)
		}
		r.WithPartialFingerPrints(map[string]any{fingerprintKey: fp.of(f, rel)})
		if props := sarifProperties(f); props != nil {
			r.Properties = props
		}
		run.Results = append(run.Results, r)
	}
	log.AddRun(run)
	return encodeJSON(buf, log)
}

// automationID turns a category into a SARIF automationDetails.id. The id
// is "category/instance" (SARIF 2.1.0 §3.17.4): without a slash the whole
// string would be read as an instance of no category, so a category gets
// a trailing slash, as github/codeql-action/upload-sarif does with its
// category input.
func automationID(category string) string {
	category = strings.TrimSpace(category)
	if category == "" || strings.HasSuffix(category, "/") {
		return category
	}
	return category + "/"
}

func sarifLocation(rel string, line, col int) *sarif.Location {
	return sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
		WithArtifactLocation(sarif.NewSimpleArtifactLocation(uriEscape(rel)).WithUriBaseId(srcRootBase)).
		WithRegion(sarif.NewRegion().WithStartLine(line).WithStartColumn(col)))
}

// sarifProperties carries the Kubernetes object and container, which SARIF
// has no field for, so that SARIF consumers can group alerts by workload.
func sarifProperties(f *finding.Finding) sarif.Properties {
	props := sarif.Properties{}
	if o := f.Object; o != nil {
		obj := map[string]string{}
		for k, v := range map[string]string{"apiVersion": o.APIVersion, "kind": o.Kind, "namespace": o.Namespace, "name": o.Name} {
			if v != "" {
				obj[k] = v
			}
		}
		if len(obj) > 0 {
			props["object"] = obj
		}
	}
	if f.Container != "" {
		props["container"] = f.Container
	}
	if len(props) == 0 {
		return nil
	}
	return props
}

func sarifRule(r finding.RuleInfo) *sarif.ReportingDescriptor {
	title := firstNonEmpty(r.Title, r.Name, r.ID)
	// GitHub requires help.text on every rule; a rule without a Doc (only
	// synthesized ones) falls back to its title.
	doc := absoluteLinks(firstNonEmpty(r.Doc, title), r.HelpURI)
	rd := sarif.NewRule(r.ID).
		WithShortDescription(sarif.NewMultiformatMessageString(title)).
		WithFullDescription(sarif.NewMultiformatMessageString(firstNonEmpty(firstParagraph(doc), title))).
		WithTextHelp(doc).
		WithMarkdownHelp(doc).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(r.Severity)))
	if r.Name != "" {
		rd.WithName(r.Name)
	}
	if r.HelpURI != "" {
		rd.WithHelpURI(r.HelpURI)
	}
	return rd
}

// mdLinkTarget matches the target of a Markdown inline link: "](target)".
var mdLinkTarget = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// absoluteLinks resolves the relative Markdown link targets of a rule doc
// (written for its page docs/rules/<ID>.md, such as
// "../semantics.md#f-4") against the rule's help URI, the URL of that page.
// Code scanning shows the help text far from the repository, where a
// relative link would lead nowhere. Without a help URI the doc is returned
// unchanged.
func absoluteLinks(doc, helpURI string) string {
	base, err := url.Parse(helpURI)
	if helpURI == "" || err != nil || !base.IsAbs() {
		return doc
	}
	return mdLinkTarget.ReplaceAllStringFunc(doc, func(m string) string {
		target := m[2 : len(m)-1]
		ref, err := url.Parse(target)
		if err != nil || ref.IsAbs() || strings.HasPrefix(target, "#") {
			return m
		}
		return "](" + base.ResolveReference(ref).String() + ")"
	})
}

// firstParagraph returns the first prose paragraph of a Markdown doc with
// its line breaks joined, skipping headings and code blocks. GitHub shows
// fullDescription in narrow places where the whole doc would not fit.
func firstParagraph(doc string) string {
	var out []string
	inFence := false
	for _, ln := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(ln)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			inFence = !inFence
		case inFence:
			continue
		case t != "" && !strings.HasPrefix(t, "#"):
			out = append(out, t)
			continue
		}
		// A blank line, heading or fence ends the paragraph once one began.
		if len(out) > 0 {
			break
		}
	}
	return strings.Join(out, " ")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// codePointColumn converts a 1-based byte column in line to a 1-based
// column in Unicode code points. Without a source line the byte column is
// kept, which is exact for ASCII. A column past the end of the line is
// clamped to just after its last character, where the text format puts its
// caret too: viewers highlight nothing at a column the line does not have.
func codePointColumn(line string, col int) int {
	if line == "" || col <= 1 {
		return col
	}
	off := col - 1
	if off >= len(line) {
		return utf8.RuneCountInString(line) + 1
	}
	// A column inside a multi-byte rune counts that rune's start.
	for off > 0 && !utf8.RuneStart(line[off]) {
		off--
	}
	return utf8.RuneCountInString(line[:off]) + 1
}
