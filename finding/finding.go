// Package finding holds the types shared by the analysis and the output
// writers: a positioned finding, its severity and the rule catalog entry.
// It has no dependencies so that report writers never import the analysis.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package finding

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Severity orders findings; --fail-on compares against it.
type Severity int

const (
	// Off disables a rule; no finding ever carries it.
	Off Severity = iota
	Info
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "off"
}

// ParseSeverity accepts the names printed by String.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "none":
		return Off, nil
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	}
	return Off, fmt.Errorf("unknown severity %q (want error, warning, info or off)", s)
}

// Location is a 1-based position in a file: Column counts bytes from the
// start of the line. Line and Column are always ≥ 1 for findings that
// point into a file.
type Location struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message,omitempty"`
	// CodePointColumn is Column counted in Unicode code points, for SARIF,
	// on related locations (a finding converts with its SourceLine); 0
	// when unknown, and then Column is used.
	CodePointColumn int `json:"-"`
}

// ObjectRef names the Kubernetes object a finding belongs to.
type ObjectRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
}

func (o ObjectRef) String() string {
	s := o.Kind
	if o.Namespace != "" {
		s += " " + o.Namespace + "/" + o.Name
	} else if o.Name != "" {
		s += " " + o.Name
	}
	return s
}

// Finding is one positioned diagnostic, ready for output.
type Finding struct {
	RuleID    string     `json:"id"`
	RuleName  string     `json:"name"`
	Severity  Severity   `json:"-"`
	Location             // where to change the manifest
	Object    *ObjectRef `json:"object,omitempty"`
	Container string     `json:"container,omitempty"`
	// Message is the headline: one sentence, at most about 100
	// characters, no arithmetic. Detail is the rest: the mechanism at
	// runtime, the numbers and the fix; it may be empty.
	Message string     `json:"message"`
	Detail  string     `json:"detail,omitempty"`
	Related []Location `json:"related,omitempty"`
	// Path is the field path the rule reported at (empty for the loader's
	// findings). Fingerprints use it instead of the line, so a finding
	// keeps its identity when lines move.
	Path string `json:"path,omitempty"`
	// Fixes are the ways to resolve the finding by editing its file, the
	// default first (see Fix); nil when the rule offers none or the
	// finding is in rendered output.
	Fixes []Fix `json:"fixes,omitempty"`
	// Rendered is set for findings in the output of a Helm chart or a
	// kustomization: which root produced the object, while Location is in
	// the template or patch the user edits.
	Rendered *RenderOrigin `json:"rendered,omitempty"`
	// SourceLine is the text of the line Location points at, without its
	// line break; the text writer prints it under the message with a caret.
	// A long line is cut to a window around the column (about 160 bytes),
	// with Ellipsis where it was cut; SourceCut and SourceCutRunes are then
	// the bytes and characters of the line before the window. Empty for
	// files whose content must not be echoed (binary, not UTF-8).
	SourceLine     string `json:"-"`
	SourceCut      int    `json:"-"`
	SourceCutRunes int    `json:"-"`
}

// Ellipsis marks where a SourceLine was cut.
const Ellipsis = "…"

// SourceColumn is the 1-based byte column of SourceLine that Column points
// at.
func (f *Finding) SourceColumn() int {
	if f.SourceCut == 0 {
		return f.Column
	}
	return f.Column - f.SourceCut + len(Ellipsis)
}

// RenderOrigin identifies where in a rendered chart or kustomization a
// finding's object and field are.
type RenderOrigin struct {
	Root string `json:"root"`           // the chart or kustomization folder
	Name string `json:"name,omitempty"` // Helm's template name ("podinfo/templates/deployment.yaml")
	Path string `json:"path,omitempty"` // the field in the rendered object
	// Approximate is set when the field is not written literally in the
	// file Location points into (a value a template computes, a field a
	// kustomize transformer adds): the position is the closest one found.
	// Reports say so in words (Headline, Explanation).
	Approximate bool `json:"approximate,omitempty"`
	// Roots are the roots a finding in a file rendered by several roots
	// (a kustomize base under overlays dev and prod) was found through,
	// in run order; nil when one root renders the file.
	Roots []string `json:"roots,omitempty"`
}

// HeadlineMax is the longest headline, in characters, that the words
// about an approximate position are added to (Headline).
const HeadlineMax = 100

// inRendered ends the headline of a finding whose position is approximate.
const inRendered = " (in the rendered output)"

// Headline is the headline as reports print it: Message, and for a finding
// whose position in a rendered chart or kustomization is only approximate,
// " (in the rendered output)" when the headline stays one short line.
func (f *Finding) Headline() string {
	if !f.approximate() || utf8.RuneCountInString(f.Message)+len(inRendered) > HeadlineMax {
		return f.Message
	}
	return f.Message + inRendered
}

// Explanation is the detail as reports print it: Detail, preceded for a
// finding whose position is only approximate by a note naming the field in
// the rendered output.
func (f *Finding) Explanation() string {
	if !f.approximate() {
		return f.Detail
	}
	note := "The field is not written literally in this file, so the position is the closest one found."
	if f.Rendered.Path != "" {
		note = "The finding is at " + f.Rendered.Path + " in the rendered output; it is not written literally in this file, so the position is the closest one found."
	}
	return strings.TrimSpace(note + " " + f.Detail)
}

func (f *Finding) approximate() bool { return f.Rendered != nil && f.Rendered.Approximate }

// Less orders findings by file, line, column, rule, then message, which is the
// order every writer prints them in.
func Less(a, b *Finding) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Column != b.Column {
		return a.Column < b.Column
	}
	if a.RuleID != b.RuleID {
		return a.RuleID < b.RuleID
	}
	return a.Message < b.Message
}

// Compare is Less as a three-way comparison (slices.SortStableFunc).
func Compare(a, b *Finding) int {
	switch {
	case Less(a, b):
		return -1
	case Less(b, a):
		return 1
	}
	return 0
}

// RuleInfo is what output formats need to know of a rule (SARIF lists every
// rule in tool.driver.rules).
type RuleInfo struct {
	ID       string
	Name     string
	Title    string   // lower-case one-liner
	Doc      string   // Markdown
	Severity Severity // default severity
	HelpURI  string
}

// Summary counts what a run looked at.
type Summary struct {
	// Files counts the files on disk the run read, each once however many
	// sources read it (a base of two overlays, a file linted and also
	// rendered); standard input is one. Renders are listed apart
	// (Rendered).
	Files int `json:"files"`
	// Paths are the files on disk a source read (absolute), from which a
	// run counts Files; nil when a source counts only Files.
	Paths []string `json:"-"`
	// Skipped counts the .json files a folder walk found that are not
	// Kubernetes objects (package.json, tsconfig.json, a JSON report):
	// not linted, and not in Files.
	Skipped   int `json:"skipped,omitempty"`
	Objects   int `json:"objects"`
	Workloads int `json:"workloads"`
	// Rendered names the charts and kustomizations that were rendered.
	Rendered []string `json:"rendered,omitempty"`
	// NotRendered names the charts and kustomizations the run's render
	// budget left unrendered (each also has a finding).
	NotRendered []string `json:"notRendered,omitempty"`
	// ConfigFile is the configuration file the run used, "" for none:
	// reports name it, since a config can turn rules off or exclude paths.
	ConfigFile string `json:"configFile,omitempty"`
	// Suppressed lists the findings of audited rules (an organisation's
	// policies) that a suppression with a reason hid, so that a reviewer
	// sees what a change exempted itself from.
	Suppressed []Suppressed `json:"suppressed,omitempty"`
}

// Suppressed is a finding that a suppression hid, with the reason it
// gives.
type Suppressed struct {
	Finding
	Reason string `json:"reason"`
}

// Result is everything one run produced. Its findings are held as values
// (Findings) or, for a run over many files, compactly (Packed; analyzer.Run
// does so); Len, At and List see both, Findings first.
type Result struct {
	Findings []Finding
	Packed   *Store
	Summary  Summary
}

// Len is the number of findings.
func (r *Result) Len() int { return len(r.Findings) + r.Packed.Len() }

// At returns finding i. What it points to (object, related locations) is
// shared with the result.
func (r *Result) At(i int) Finding {
	if i < len(r.Findings) {
		return r.Findings[i]
	}
	return r.Packed.At(i - len(r.Findings))
}

// List returns every finding as a value.
func (r *Result) List() []Finding {
	if r.Packed.Len() == 0 {
		return r.Findings
	}
	out := make([]Finding, 0, r.Len())
	out = append(out, r.Findings...)
	for i := range r.Packed.Len() {
		out = append(out, r.Packed.At(i))
	}
	return out
}

// SeverityAt is the severity of finding i.
func (r *Result) SeverityAt(i int) Severity {
	if i < len(r.Findings) {
		return r.Findings[i].Severity
	}
	return r.Packed.Severity(i - len(r.Findings))
}

// Sorted reports whether the findings are in Less order, Findings first
// and then Packed, as report.Write requires. The engine sorts a run's
// findings once, in its Store (analyzer.Run); a caller that builds a
// Result of its own sorts it (slices.SortStableFunc with Compare).
func (r *Result) Sorted() bool {
	if !r.Packed.Sorted() {
		return false
	}
	for i := 1; i < len(r.Findings); i++ {
		if Less(&r.Findings[i], &r.Findings[i-1]) {
			return false
		}
	}
	if n := len(r.Findings); n > 0 && r.Packed.Len() > 0 {
		first := r.Packed.At(0)
		return !Less(&first, &r.Findings[n-1])
	}
	return true
}

// Counts returns the number of findings per severity.
func (r *Result) Counts() (errors, warnings, infos int) {
	for i := range r.Len() {
		switch r.SeverityAt(i) {
		case Error:
			errors++
		case Warning:
			warnings++
		case Info:
			infos++
		}
	}
	return
}
