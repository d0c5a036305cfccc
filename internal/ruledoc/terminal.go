package ruledoc

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Terminal renders a rule page (Markdown) as plain text for `podlint rules
// ID`: headings underlined, tables aligned, code blocks indented, and no
// Markdown markup left (emphasis, code spans, link syntax). Links relative
// to the published page become absolute URLs, which a terminal can open.
//
// It handles the subset the rule pages use (ruledoc's own page frame and
// rules/doc/*.md, which TestTerminalLeavesNoMarkup holds to it) instead of
// a full Markdown renderer such as glamour, which would add about 25
// modules to every build of the pre-commit hook and the Action for one
// subcommand.
func Terminal(md string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(md, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "```"):
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				b.WriteString(strings.TrimRight("    "+lines[i], " ") + "\n")
			}
		case strings.HasPrefix(line, "#"):
			level := len(line) - len(strings.TrimLeft(line, "#"))
			text := inline(strings.TrimSpace(line[level:]))
			rule := "="
			if level > 1 {
				rule = "-"
			}
			b.WriteString(text + "\n" + strings.Repeat(rule, utf8.RuneCountInString(text)) + "\n")
		case strings.HasPrefix(line, "|"):
			var rows [][]string
			for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				if cells := tableCells(lines[i]); cells != nil {
					rows = append(rows, cells)
				}
			}
			i--
			writeTable(&b, rows)
		case strings.HasPrefix(line, "    "):
			b.WriteString(line + "\n") // an indented code block: kept as written
		case strings.TrimSpace(line) == "":
			b.WriteString("\n")
		default:
			// A paragraph or list: its inline markup may span lines.
			var para []string
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && !strings.HasPrefix(lines[i], "```") &&
				!strings.HasPrefix(lines[i], "#") && !strings.HasPrefix(lines[i], "|") && !strings.HasPrefix(lines[i], "    "); i++ {
				l := lines[i]
				if strings.HasPrefix(l, "* ") {
					l = "- " + l[2:]
				}
				para = append(para, l)
			}
			i--
			b.WriteString(inline(strings.Join(para, "\n")) + "\n")
		}
	}
	return b.String()
}

// tableCells splits a table row into its cells, with their markup
// rendered; nil for the delimiter row and for an all-empty header.
func tableCells(line string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	empty := true
	for j, p := range parts {
		p = strings.TrimSpace(p)
		if strings.Trim(p, "-: ") == "" && p != "" {
			return nil
		}
		parts[j] = inline(p)
		empty = empty && parts[j] == ""
	}
	if empty {
		return nil
	}
	return parts
}

func writeTable(b *strings.Builder, rows [][]string) {
	var widths []int
	for _, r := range rows {
		for j, c := range r {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for j, c := range r {
			line.WriteString(c)
			if j < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

var (
	mdLink = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	// A code span between double backquotes holds single ones.
	mdCode2    = regexp.MustCompile("`` ?(.+?) ?``")
	mdCode     = regexp.MustCompile("`([^`]+)`")
	mdStrong   = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdEmphasis = regexp.MustCompile(`(^|[\s(])\*([^*\s](?:[^*]*[^*\s])?)\*`)
	mdEscape   = regexp.MustCompile(`\\([\\<>*_\[\]#|` + "`" + `])`)
)

// repoBase is where the repository's files are published; rule pages are
// in docs/rules there, and their relative links resolve against it.
const repoBase = "https://github.com/podlint/podlint/blob/main/"

// inline renders the inline markup of one line.
func inline(s string) string {
	s = mdLink.ReplaceAllStringFunc(s, func(m string) string {
		sub := mdLink.FindStringSubmatch(m)
		text, url := sub[1], sub[2]
		if !strings.Contains(url, "://") {
			url = repoBase + path.Join("docs/rules", url)
		}
		if strings.Trim(text, "`") == url {
			return url
		}
		return text + " (" + url + ")"
	})
	// Code spans are shown bare; their content is not markup.
	s = mdCode2.ReplaceAllStringFunc(s, func(m string) string {
		return strings.ReplaceAll(mdCode2.FindStringSubmatch(m)[1], "`", "\x00")
	})
	s = mdCode.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, "\x00", "`")
	s = mdStrong.ReplaceAllString(s, "$1")
	s = mdEmphasis.ReplaceAllString(s, "$1$2")
	return mdEscape.ReplaceAllString(s, "$1")
}
