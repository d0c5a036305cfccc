package report

import (
	"bytes"
	"fmt"
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

// writeText prints findings the way actionlint does:
//
//	deploy/app.yaml:12:9: error: liveness probe kills "app" … [PL101 liveness-kills-before-ready]
//	12 |         livenessProbe:
//	   |         ^
//	  deploy/app.yaml:20:5: grace period is 30s
//
// followed by a blank line and the summary. Paths are printed as the user
// gave them (see displayPath) so they can be pasted into an editor.
func writeText(buf *bytes.Buffer, res *finding.Result, opts Options) error {
	p := newPalette(opts.Color)
	for i := range res.Findings {
		f := &res.Findings[i]
		fmt.Fprintf(buf, "%s: %s: %s [%s %s]\n",
			p.pos(position(displayPath(f.File), f.Line, f.Column)), p.severity(f.Severity), textsafe.Escape(f.Message), f.RuleID, f.RuleName)
		if f.Line >= 1 && strings.TrimRight(f.SourceLine, "\r") != "" {
			src, caretAt := expandLine(f.SourceLine, f.SourceColumn())
			num := strconv.Itoa(f.Line)
			gutter := strings.Repeat(" ", len(num))
			fmt.Fprintf(buf, "%s | %s\n", num, src)
			fmt.Fprintf(buf, "%s | %s%s\n", gutter, strings.Repeat(" ", caretAt), p.caret("^"))
		}
		for _, r := range f.Related {
			fmt.Fprintf(buf, "  %s: %s\n", p.pos(position(displayPath(r.File), r.Line, r.Column)), textsafe.Escape(r.Message))
		}
	}
	if len(res.Findings) > 0 {
		buf.WriteByte('\n')
	}
	buf.WriteString(summaryLine(res))
	buf.WriteByte('\n')
	return nil
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
