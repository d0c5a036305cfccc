package report

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/textsafe"
)

// markdownLimit is what the markdown format stays under: GitHub refuses a
// job summary ($GITHUB_STEP_SUMMARY) larger than 1 MiB. A little is kept in
// reserve for the closing lines.
const markdownLimit = 1<<20 - 4096

// writeMarkdown renders a GitHub-flavored Markdown report, the shape of a
// GitHub Actions job summary, a pull or merge request comment, or a GitLab
// MR note. It opens with the tally and a per-rule table (errors first),
// then a table of errors, one of warnings, and the infos in a collapsed
// <details> section, so the findings that fail the build come first however
// many infos there are. Paths are relative to Options.SrcRoot like the
// other CI formats. Past markdownLimit the remaining rows are left out
// between rows, never inside one, and a line says how many.
func writeMarkdown(buf *bytes.Buffer, res, all *finding.Result, opts Options) error {
	rules := ruleIndex(opts.Rules)
	buf.WriteString("## podlint\n\n")
	buf.WriteString(mdEscape(summaryLine(all)))
	buf.WriteString("\n")
	for _, block := range []struct {
		title string
		roots []string
	}{{"Rendered", all.Summary.Rendered}, {"Not rendered, the render budget being spent", all.Summary.NotRendered}} {
		if list := renderedList(block.roots); list != nil {
			buf.WriteString("\n<details><summary>" + block.title + "</summary>\n\n")
			for _, r := range list {
				buf.WriteString("- " + mdEscape(r) + "\n")
			}
			buf.WriteString("\n</details>\n")
		}
	}
	if len(all.Findings) == 0 {
		return nil
	}
	ruleLink := func(id, name string) string {
		link := mdEscape(id)
		if r := rules[id]; r != nil && r.HelpURI != "" {
			link = "[" + link + "](" + mdURL(r.HelpURI) + ")"
		}
		return link + " " + mdEscape(name)
	}
	buf.WriteString("\n| Rule | Severity | Count | Files |\n|---|---|---:|---:|\n")
	for _, r := range ruleCounts(all) {
		fmt.Fprintf(buf, "| %s | %s | %d | %d |\n", ruleLink(r.ID, r.Name), r.Severity, r.Count, r.Files)
	}
	omitted := 0
	for _, sev := range []finding.Severity{finding.Error, finding.Warning, finding.Info} {
		var rows []string
		for i := range res.Findings {
			f := &res.Findings[i]
			if f.Severity != sev {
				continue
			}
			msg := "**" + mdEscape(f.Headline()) + "**"
			if d := f.Explanation(); d != "" {
				msg += "<br>" + mdEscape(d)
			}
			for _, r := range f.Related {
				msg += "<br>↳ " + mdEscape(position(relPath(opts.SrcRoot, r.File), r.Line, r.Column)+": "+r.Message)
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |\n", mdEscape(position(relPath(opts.SrcRoot, f.File), f.Line, f.Column)), ruleLink(f.RuleID, f.RuleName), msg))
		}
		if len(rows) == 0 {
			continue
		}
		title := fmt.Sprintf("%s (%d)", map[finding.Severity]string{finding.Error: "Errors", finding.Warning: "Warnings", finding.Info: "Infos"}[sev], len(rows))
		head := "\n### " + title + "\n\n"
		tail := ""
		if sev == finding.Info {
			head = "\n<details><summary>" + title + "</summary>\n\n"
			tail = "\n</details>\n"
		}
		const tableHead = "| Location | Rule | Message |\n|---|---|---|\n"
		if buf.Len()+len(head)+len(tableHead)+len(rows[0])+len(tail) > markdownLimit {
			omitted += len(rows)
			continue
		}
		buf.WriteString(head + tableHead)
		for k, row := range rows {
			if buf.Len()+len(row)+len(tail) > markdownLimit {
				omitted += len(rows) - k
				break
			}
			buf.WriteString(row)
		}
		buf.WriteString(tail)
	}
	if omitted > 0 {
		fmt.Fprintf(buf, "\n%s left out to stay under GitHub's 1 MiB job summary limit; the json and sarif formats list every finding.\n",
			plural(omitted, "finding", "findings"))
	}
	writeMarkdownTimelines(buf, opts)
	return nil
}

// writeMarkdownTimelines ends the report with the workloads' Mermaid
// timelines, each collapsed under its name and place; GitHub draws them.
// A chart that would pass markdownLimit is left out, and a line says how
// many were.
func writeMarkdownTimelines(buf *bytes.Buffer, opts Options) {
	if len(opts.Timelines) == 0 {
		return
	}
	const head = "\n### Timelines\n"
	left := 0
	for i, t := range opts.Timelines {
		block := fmt.Sprintf("\n<details><summary>%s (<code>%s</code>)</summary>\n\n%s\n</details>\n",
			htmlEscape(t.Title), htmlEscape(position(relPath(opts.SrcRoot, t.File), t.Line, 0)), strings.TrimRight(t.Mermaid, "\n"))
		extra := 0
		if i == left {
			extra = len(head) // nothing written yet: the heading comes first
		}
		if buf.Len()+extra+len(block) > markdownLimit {
			left++
			continue
		}
		if extra > 0 {
			buf.WriteString(head)
		}
		buf.WriteString(block)
	}
	if left > 0 {
		fmt.Fprintf(buf, "\n%s left out to stay under GitHub's 1 MiB job summary limit; podlint timeline -f mermaid draws them.\n",
			plural(left, "timeline", "timelines"))
	}
}

// htmlEscape makes s literal text inside an HTML element (a <summary>),
// with control and invisible characters escaped visibly.
func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(textsafe.Escape(s))
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
