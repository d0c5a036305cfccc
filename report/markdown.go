package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
)

// writeMarkdown renders a GitHub-flavored Markdown table, the shape of a
// GitHub Actions job summary ($GITHUB_STEP_SUMMARY), a pull or merge
// request comment, or a GitLab MR note. Paths are relative to
// Options.SrcRoot like the other CI formats, since these are read next to
// the repository. One row per finding keeps the table scannable; related
// locations go into the message cell as extra lines.
func writeMarkdown(buf *bytes.Buffer, res *finding.Result, opts Options) error {
	rules := ruleIndex(opts.Rules)
	buf.WriteString("## podlint\n\n")
	buf.WriteString(mdEscape(summaryLine(res)))
	buf.WriteString("\n")
	if len(res.Findings) == 0 {
		return nil
	}
	buf.WriteString("\n| Severity | Location | Rule | Message |\n|---|---|---|---|\n")
	for i := range res.Findings {
		f := &res.Findings[i]
		rule := mdEscape(f.RuleID)
		if r := rules[f.RuleID]; r != nil && r.HelpURI != "" {
			rule = "[" + rule + "](" + mdURL(r.HelpURI) + ")"
		}
		rule += " " + mdEscape(f.RuleName)
		msg := mdEscape(f.Message)
		for _, r := range f.Related {
			msg += "<br>↳ " + mdEscape(position(relPath(opts.SrcRoot, r.File), r.Line, r.Column)+": "+r.Message)
		}
		fmt.Fprintf(buf, "| %s | %s | %s | %s |\n", f.Severity, mdEscape(position(relPath(opts.SrcRoot, f.File), f.Line, f.Column)), rule, msg)
	}
	return nil
}

// mdEscape makes s literal text inside a table cell: a "|" would end the
// cell, a line break the row, "<stdin>" would vanish as an HTML tag, and
// "*", "_", "`", "[", "]" and "~" would start emphasis, code, links or
// strike-through. CommonMark allows a backslash before any ASCII
// punctuation, so escaping is always safe; "&" becomes an entity so that
// "&amp;" in a message stays as written.
func mdEscape(s string) string {
	var b strings.Builder
	// Line breaks become <br> below; every other control character is
	// escaped visibly first.
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i := range lines {
		lines[i] = textsafe.Escape(lines[i])
	}
	for _, r := range strings.Join(lines, "\n") {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '&':
			b.WriteString("&amp;")
		case '\r':
		case '\n':
			b.WriteString("<br>")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdURL keeps a link target from ending the link early.
func mdURL(u string) string {
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "|", "%7C").Replace(u)
}
