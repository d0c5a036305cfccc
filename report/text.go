package report

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
)

// tabWidth is the tab stop used when a source line is echoed. Expanding
// tabs ourselves (rather than printing them) is what keeps the caret under
// the right character whatever the terminal's tab setting is.
const tabWidth = 4

// palette holds the text format's colors. Every color is created with
// EnableColor so that fatih/color's global NO_COLOR and terminal detection
// cannot override the decision the CLI already made; with Color off the
// functions are the identity.
type palette struct {
	pos, err, warn, info, caret func(...any) string
}

func newPalette(on bool) palette {
	if !on {
		plain := func(a ...any) string { return fmt.Sprint(a...) }
		return palette{plain, plain, plain, plain, plain}
	}
	mk := func(attrs ...color.Attribute) func(...any) string {
		c := color.New(attrs...)
		c.EnableColor()
		return c.SprintFunc()
	}
	return palette{
		pos:   mk(color.Bold),
		err:   mk(color.FgRed),
		warn:  mk(color.FgYellow),
		info:  mk(color.FgCyan),
		caret: mk(color.FgGreen),
	}
}

func (p palette) severity(s finding.Severity) string {
	switch s {
	case finding.Error:
		return p.err(s.String())
	case finding.Warning:
		return p.warn(s.String())
	case finding.Info:
		return p.info(s.String())
	}
	return s.String()
}

// writeText prints findings the way actionlint and rustc do: the position,
// severity and headline on one line, the source line with a caret, the
// detail indented and wrapped to Options.Width, then related locations:
//
//	deploy/app.yaml:12:9: error: liveness probe kills "app" 20s–31s after start, … [PL101 liveness-kills-before-ready]
//	12 |         livenessProbe:
//	   |         ^
//	  The probe kills "app" 20s–31s after start if it is not answering
//	  yet, … Add a startupProbe …
//	  deploy/app.yaml:20:5: grace period is 30s
//
// With Options.Brief only the first line of each finding is printed. The
// output ends with a per-rule summary (all of res, shown or not: findings
// below Options.Show are counted there) and the one-line tally. Paths are
// printed as the user gave them (see displayPath) so they can be pasted
// into an editor.
func writeText(buf sink, res, all *finding.Result, opts Options) error {
	p := newPalette(opts.Color)
	width := opts.Width
	if width <= 0 {
		width = defaultWidth
	}
	for i := range res.Len() {
		v := res.At(i)
		f := &v
		fmt.Fprintf(buf, "%s: %s: %s%s [%s %s]\n",
			p.pos(position(displayPath(f.File), f.Line, f.Column)), p.severity(f.Severity), textsafe.Escape(f.Headline()), textsafe.Escape(overlays(f)), f.RuleID, f.RuleName)
		if opts.Brief {
			continue
		}
		writeSnippet(buf, f, p)
		if d := f.Explanation(); d != "" {
			// Escaped before wrapping, so a line break or an escape
			// sequence quoted from a manifest is shown, not obeyed, and
			// the width counts what is printed.
			for _, ln := range wrap(textsafe.Escape(d), width-len(detailIndent)) {
				buf.WriteString(detailIndent + ln + "\n")
			}
		}
		for _, r := range f.Related {
			fmt.Fprintf(buf, "%s%s: %s\n", detailIndent, p.pos(position(displayPath(r.File), r.Line, r.Column)), textsafe.Escape(r.Message))
		}
		buf.WriteByte('\n')
	}
	if opts.Brief && res.Len() > 0 {
		buf.WriteByte('\n')
	}
	writeRuleSummary(buf, res, all, p)
	for _, block := range []struct {
		title string
		roots []string
	}{{"Rendered:", all.Summary.Rendered}, {"Not rendered, the render budget being spent:", all.Summary.NotRendered}} {
		if list := renderedList(block.roots); list != nil {
			buf.WriteString(block.title + "\n")
			for _, r := range list {
				buf.WriteString(detailIndent + r + "\n")
			}
			buf.WriteByte('\n')
		}
	}
	writeSuppressed(buf, all.Summary.Suppressed, p)
	buf.WriteString(summaryLine(all))
	buf.WriteByte('\n')
	return nil
}

// writeSuppressed lists the findings of organisation policies that a
// suppression hid, each with the reason it gives, so that a reviewer sees
// what a change exempted itself from.
func writeSuppressed(buf sink, list []finding.Suppressed, p palette) {
	if len(list) == 0 {
		return
	}
	buf.WriteString("Suppressed, with the reasons given:\n")
	for i := range list {
		f := &list[i].Finding
		fmt.Fprintf(buf, "%s%s: %s: %s [%s %s]\n", detailIndent, p.pos(position(displayPath(f.File), f.Line, f.Column)), p.severity(f.Severity),
			textsafe.Escape(f.Headline()), f.RuleID, f.RuleName)
		fmt.Fprintf(buf, "%s%sreason: %s\n", detailIndent, detailIndent, textsafe.Escape(list[i].Reason))
	}
	buf.WriteByte('\n')
}

// overlays names the roots a finding in a file that several roots render
// was found through, " (in overlays dev, prod)", by folder name when
// those differ, else by path; "" for other findings.
func overlays(f *finding.Finding) string {
	if f.Rendered == nil || len(f.Rendered.Roots) == 0 {
		return ""
	}
	names := make([]string, len(f.Rendered.Roots))
	seen := map[string]bool{}
	for i, r := range f.Rendered.Roots {
		names[i] = filepath.Base(r)
		seen[names[i]] = true
	}
	if len(seen) < len(names) {
		for i, r := range f.Rendered.Roots {
			names[i] = displayPath(r)
		}
	}
	what := "overlay"
	if len(names) > 1 {
		what = "overlays"
	}
	return fmt.Sprintf(" (in %s %s)", what, strings.Join(names, ", "))
}

// defaultWidth is the text width when the CLI does not know the terminal's
// (output to a file or a pipe).
const defaultWidth = 100

// detailIndent sets the detail and related locations off from the next
// finding's position.
const detailIndent = "  "

// writeSnippet prints the source line a finding points at with a caret
// under its column.
func writeSnippet(buf sink, f *finding.Finding, p palette) {
	if f.Line < 1 || strings.TrimRight(f.SourceLine, "\r") == "" {
		return
	}
	// SourceLine may be a window of a long line; SourceColumn is the
	// column within it.
	src, caretAt := expandLine(f.SourceLine, f.SourceColumn())
	num := strconv.Itoa(f.Line)
	gutter := strings.Repeat(" ", len(num))
	fmt.Fprintf(buf, "%s | %s\n", num, src)
	fmt.Fprintf(buf, "%s | %s%s\n", gutter, strings.Repeat(" ", caretAt), p.caret("^"))
}

// writeRuleSummary prints one row per rule and severity, errors first (see
// ruleCounts), so that on a large repository the errors are on the last
// screen however many infos were printed above them. Rows of findings that
// --show hid are marked, and a final line says how to see them.
func writeRuleSummary(buf sink, res, all *finding.Result, p palette) {
	rows := ruleCounts(all)
	if len(rows) == 0 {
		return
	}
	shown := map[string]bool{}
	for i := range res.Len() {
		f := res.At(i)
		shown[f.RuleID+"/"+f.Severity.String()] = true
	}
	// Rule IDs and names are podlint's own, but the table is escaped like
	// every other line of the report.
	label := func(r ruleCount) string { return textsafe.Escape(r.ID + " " + r.Name) }
	nameW := len("rule")
	for _, r := range rows {
		nameW = max(nameW, utf8.RuneCountInString(label(r)))
	}
	fmt.Fprintf(buf, "%-*s  %-8s  %6s  %5s\n", nameW, "rule", "severity", "count", "files")
	hidden := 0
	for _, r := range rows {
		sev := fmt.Sprintf("%-8s", r.Severity)
		switch r.Severity {
		case finding.Error:
			sev = p.err(sev)
		case finding.Warning:
			sev = p.warn(sev)
		case finding.Info:
			sev = p.info(sev)
		}
		note := ""
		if !shown[r.ID+"/"+r.Severity.String()] {
			note = "  (not shown)"
			hidden += r.Count
		}
		fmt.Fprintf(buf, "%-*s  %s  %6d  %5d%s\n", nameW, label(r), sev, r.Count, r.Files, note)
	}
	if hidden > 0 {
		fmt.Fprintf(buf, "%s not shown; --show info prints every finding\n", plural(hidden, "finding", "findings"))
	}
	buf.WriteByte('\n')
}

// wrap breaks text into lines of at most width display cells at spaces; a
// word longer than width gets a line of its own.
func wrap(text string, width int) []string {
	width = max(width, 20)
	var lines []string
	var cur strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		wl := utf8.RuneCountInString(w)
		if n > 0 && n+1+wl > width {
			lines = append(lines, cur.String())
			cur.Reset()
			n = 0
		}
		if n > 0 {
			cur.WriteByte(' ')
			n++
		}
		cur.WriteString(w)
		n += wl
	}
	if n > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// expandLine returns the source line ready to print (tabs expanded to
// tabWidth stops, a trailing CR from CRLF files dropped) and the number of
// display cells before the caret for the 1-based byte column col.
//
// Cells are counted per rune, so "é" before the column moves the caret by
// one, not two (East Asian wide characters are not measured; YAML keys
// where that matters are rare). A column inside a multi-byte rune points
// at that rune. A column past the end of the line puts the caret just
// after the last character: the position is usually where a missing value
// belongs, and padding to a far-away column would point at nothing.
func expandLine(line string, col int) (string, int) {
	line = strings.TrimRight(line, "\r")
	off := max(col, 1) - 1
	var b strings.Builder
	cells, caretAt := 0, -1
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		if caretAt < 0 && i+size > off {
			caretAt = cells
		}
		i += size
		if r == '\t' {
			n := tabWidth - cells%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			cells += n
			continue
		}
		// Control, bidi and other invisible characters (and bytes that are
		// not UTF-8) are shown as visible escapes, never sent raw.
		if esc := textsafe.Escape(line[i-size : i]); len(esc) != size || esc != line[i-size:i] {
			b.WriteString(esc)
			cells += len(esc)
			continue
		}
		b.WriteRune(r)
		cells++
	}
	if caretAt < 0 {
		caretAt = cells
	}
	return b.String(), caretAt
}
