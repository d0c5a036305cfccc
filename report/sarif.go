package report

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
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
// locations carry their code point column (Location.CodePointColumn). A
// column past the end of its line is clamped to just after the last
// character.
//
// The log is written as it is built, one result at a time from res, which
// may be packed: the results are the bulk of the log, and holding them all
// (every finding unpacked, its SARIF objects and the encoded log) made
// SARIF's peak memory grow with the findings, 1.6× that of the other
// formats on a large run.
func writeSARIF(w sink, res *finding.Result, opts Options) error {
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
	for i := range res.Len() {
		f := res.At(i)
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
	if nr := res.Summary.NotRendered; len(nr) > 0 {
		if run.Properties == nil {
			run.Properties = sarif.Properties{}
		}
		run.Properties["notRendered"] = nr
	}
	if id := automationID(opts.Category); id != "" {
		run.WithAutomationDetails(sarif.NewRunAutomationDetails().WithID(id))
	}
	fp := newFingerprinter(sha256Hash)
	keep, cut := capResults(res.Len(), res.SeverityAt, sarifMaxResults)
	// Fingerprints are computed over every finding in output order before
	// the cap, so a finding keeps its occurrence number when others are cut:
	// with a cut, those of the kept findings are computed first.
	var prints map[int]string
	if cut > 0 {
		prints = make(map[int]string, len(keep))
		k := 0
		for i := range res.Len() {
			f := res.At(i)
			p := fp.of(&f, relPath(opts.SrcRoot, f.File))
			if k < len(keep) && keep[k] == i {
				prints[i] = p
				k++
			}
		}
	}
	inv := sarif.NewInvocation().WithExecutionSuccess(len(opts.Errors) == 0)
	inv.ToolExecutionNotifications = []*sarif.Notification{}
	for _, e := range opts.Errors {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarif.NewNotification().WithLevel("error").WithTextMessage(e))
	}
	if cut > 0 {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarif.NewNotification().WithLevel("warning").WithTextMessage(fmt.Sprintf(
				"%d findings were left out: GitHub code scanning accepts at most %d results per run; the most severe were kept, and the json format lists every finding",
				cut, sarifMaxResults)))
	}
	run.AddInvocations(inv)
	// The log without its results (null), which are written in their place.
	run.Results = nil
	log.AddRun(run)
	var head bytes.Buffer
	if err := encodeJSON(&head, log); err != nil {
		return err
	}
	at := bytes.Index(head.Bytes(), []byte(sarifResultsKey+"null"))
	if at < 0 {
		return errors.New("the SARIF log has no results")
	}
	w.Write(head.Bytes()[:at+len(sarifResultsKey)])
	err = writeJSONArray(w, "[", "        ", len(keep), func(k int) any {
		i := keep[k]
		f := res.At(i)
		print, ok := prints[i]
		if !ok {
			print = fp.of(&f, relPath(opts.SrcRoot, f.File))
		}
		return sarifResult(&f, print, index[f.RuleID], opts)
	})
	if err != nil {
		return err
	}
	_, err = w.Write(head.Bytes()[at+len(sarifResultsKey+"null"):])
	return err
}

// sarifResultsKey is how the results of the log's one run start in the
// log encoded without them: its run's keys are indented by six spaces.
const sarifResultsKey = "\n      \"results\": "

// sarifResult is the SARIF result of f, whose fingerprint is print and
// whose rule is the driver's rule'th.
func sarifResult(f *finding.Finding, print string, rule int, opts Options) *sarif.Result {
	rel := relPath(opts.SrcRoot, f.File)
	line, col := clampPos(f.Line, lineCodePoint(f, f.SourceColumn()))
	text, markdown := sarifMessage(f)
	r := sarif.NewRuleResult(f.RuleID).
		WithRuleIndex(rule).
		WithLevel(sarifLevel(f.Severity)).
		WithMessage(sarif.NewTextMessage(text).WithMarkdown(markdown))
	loc := sarifLocation(rel, line, col)
	if f.Line >= 1 {
		sc := f.SourceColumn()
		// A value running into the Ellipsis of a snippet cut short has
		// no known end: no end column rather than a wrong one (a line
		// that really ends in … loses its end column too).
		cutRight := strings.HasSuffix(f.SourceLine, finding.Ellipsis)
		if end := valueEnd(f.SourceLine, sc); end > sc && !(cutRight && end > len(f.SourceLine)-len(finding.Ellipsis)) {
			loc.PhysicalLocation.Region.WithEndLine(line).WithEndColumn(lineCodePoint(f, end))
		}
	}
	r.AddLocation(loc)
	for j, rl := range f.Related {
		rcol := rl.Column
		if rl.CodePointColumn > 0 {
			rcol = rl.CodePointColumn
		}
		rline, rcol := clampPos(rl.Line, rcol)
		loc := sarifLocation(relPath(opts.SrcRoot, rl.File), rline, rcol).WithId(j + 1)
		if rl.Message != "" {
			loc.WithDescriptionText(rl.Message)
		}
		r.AddRelatedLocation(loc)
	}
	for _, x := range f.Fixes {
		if fx := sarifFix(opts.SrcRoot, &x); fx != nil {
			r.AddFix(fx)
		}
	}
	r.WithPartialFingerPrints(map[string]any{fingerprintKey: print})
	if props := sarifProperties(f); props != nil {
		r.Properties = props
	}
	return r
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
	if r := f.Rendered; r != nil {
		roots := []string{filepath.ToSlash(r.Root)}
		if len(r.Roots) > 0 {
			roots = roots[:0]
			for _, root := range r.Roots {
				roots = append(roots, filepath.ToSlash(root))
			}
		}
		rendered := map[string]any{"root": filepath.ToSlash(r.Root), "roots": roots}
		if r.Name != "" {
			rendered["template"] = r.Name
		}
		if r.Path != "" {
			rendered["path"] = r.Path
		}
		props["rendered"] = rendered
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
// lineCodePoint is the code-point column in the whole source line of the
// 1-based byte column col of f.SourceLine, which may be a window cut out of
// a long line (starting with the one-character Ellipsis).
func lineCodePoint(f *finding.Finding, col int) int {
	c := codePointColumn(f.SourceLine, col)
	if f.SourceCut > 0 {
		c += f.SourceCutRunes - 1
	}
	return c
}

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

// sarifMaxResults is how many results GitHub code scanning accepts in one
// run; an upload with more is rejected whole.
const sarifMaxResults = 25000

// capResults returns the indexes of the findings to write, in their order,
// and how many were left out: past max the most severe are kept (the sort
// is stable, so within a severity the first in file order win).
func capResults(n int, severity func(int) finding.Severity, max int) (keep []int, cut int) {
	keep = make([]int, n)
	for i := range keep {
		keep[i] = i
	}
	if n <= max {
		return keep, 0
	}
	sort.SliceStable(keep, func(a, b int) bool { return severity(keep[a]) > severity(keep[b]) })
	keep = keep[:max]
	sort.Ints(keep)
	return keep, n - max
}

// sarifMessage returns a result's message.text and message.markdown. The
// text is the headline, followed by links to the related locations
// ("[grace period 30s](1)"), which code scanning renders as links to those
// lines; the markdown adds the detail. SARIF reserves "[" and "]" in text
// messages for such links, so literal ones are escaped.
func sarifMessage(f *finding.Finding) (text, markdown string) {
	esc := strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`)
	text = esc.Replace(f.Headline())
	var links []string
	for j, r := range f.Related {
		label := r.Message
		if label == "" {
			label = "related location"
		}
		links = append(links, fmt.Sprintf("[%s](%d)", esc.Replace(label), j+1))
	}
	if len(links) > 0 {
		text += " (see " + strings.Join(links, ", ") + ")"
	}
	markdown = "**" + mdEscape(f.Headline()) + "**"
	if len(links) > 0 {
		markdown += " (see " + strings.Join(links, ", ") + ")"
	}
	if d := f.Explanation(); d != "" {
		markdown += "\n\n" + mdEscape(d)
	}
	return text, markdown
}

// valueEnd returns the 1-based byte column just past the value that starts
// at col in line: a quoted scalar up to its closing quote, a key up to its
// colon, a flow sequence or mapping up to its closing bracket, a plain
// scalar up to a comment or the end of the line. It returns col when there
// is nothing to span.
func valueEnd(line string, col int) int {
	line = strings.TrimRight(line, "\r")
	off := col - 1
	if off < 0 || off >= len(line) {
		return col
	}
	rest := line[off:]
	switch rest[0] {
	case '"', '\'':
		q := rest[0]
		for i := 1; i < len(rest); i++ {
			switch {
			case q == '"' && rest[i] == '\\':
				i++
			case rest[i] == q:
				if q == '\'' && i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return col + i + 1
			}
		}
		return col + len(rest)
	case '[', '{':
		open, close, depth := rest[0], map[byte]byte{'[': ']', '{': '}'}[rest[0]], 0
		for i := 0; i < len(rest); i++ {
			switch rest[i] {
			case open:
				depth++
			case close:
				depth--
				if depth == 0 {
					return col + i + 1
				}
			}
		}
		return col + len(rest)
	}
	end := len(rest)
	if i := strings.Index(rest, " #"); i >= 0 {
		end = i
	}
	if i := strings.Index(rest[:end], ": "); i >= 0 {
		end = i
	} else if strings.HasSuffix(rest[:end], ":") {
		end--
	}
	end = len(strings.TrimRight(rest[:end], " \t"))
	if end <= 0 {
		return col
	}
	return col + end
}

// sarifFix writes a fix as whole-line replacements (Fix.LineEdits): each
// deletes lines startLine to endLine, with no columns (so the column kind
// does not matter), and inserts the lines they become without the last
// line break, which is the form reviewdog turns into a GitHub suggested
// change. A fix without whole-line edits is left out.
func sarifFix(srcRoot string, x *finding.Fix) *sarif.Fix {
	if len(x.LineEdits) == 0 {
		return nil
	}
	fx := sarif.NewFix().WithDescriptionText(x.Title + " (" + x.Safety.String() + ")")
	changes := map[string]*sarif.ArtifactChange{}
	var order []string
	for _, e := range x.LineEdits {
		endLine, text := e.EndLine, e.NewText
		if e.EndColumn == 1 {
			endLine--
			for _, brk := range []string{"\r\n", "\n", "\r"} {
				if strings.HasSuffix(text, brk) {
					text = strings.TrimSuffix(text, brk)
					break
				}
			}
		}
		if endLine < e.StartLine {
			return nil
		}
		uri := uriEscape(relPath(srcRoot, e.File))
		ch, ok := changes[uri]
		if !ok {
			ch = sarif.NewArtifactChange(sarif.NewSimpleArtifactLocation(uri).WithUriBaseId(srcRootBase))
			changes[uri] = ch
			order = append(order, uri)
		}
		ch.WithReplacement(sarif.NewReplacement(sarif.NewRegion().WithStartLine(e.StartLine).WithEndLine(endLine)).
			WithInsertedContent(sarif.NewArtifactContent().WithText(text)))
	}
	for _, uri := range order {
		fx.AddArtifactChanges(changes[uri])
	}
	return fx
}
