package render

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// define is the body of a named template ({{ define "name" }} … {{ end }}).
type define struct {
	file   string
	offset int // the body's first line is line offset+1 of file
	lines  []tline
}

var (
	defineAction  = lazyRegexp(`\{\{-?\s*define\s+"([^"]+)"\s*-?\}\}`)
	includeAction = lazyRegexp(`\{\{-?\s*(?:include|template)\s+"([^"]+)"`)
)

// includeAt is where the rest of a field path (rest) is written in a named
// template that the block of template line idx (the whole template when
// idx is -1) includes: the define's file, its lines, the index of the
// deepest literal line found there and its column, how many segments of
// rest were found, and the define's line offset. Pod templates built by a
// named template (grafana, pushgateway, traefik) are written there, not
// in the file Helm names as the document's source. Nested includes are
// followed a few levels deep.
func (m *mapper) includeAt(tl []tline, idx int, rest []seg) (d *define, at, col, depth int, ok bool) {
	for range 4 {
		start, end := 0, len(tl)
		if idx >= 0 {
			start, end = idx+1, blockEnd(tl, idx, len(tl))
		}
		name := ""
		for x := start; x < end && name == ""; x++ {
			if tl[x].opaque {
				if mm := includeAction().FindStringSubmatch(tl[x].text); mm != nil {
					name = mm[1]
				}
			}
		}
		next := m.defines()[name]
		if name == "" || next == nil {
			return d, at, col, depth, ok
		}
		i, c, dep := locateTemplate(next.lines, rest)
		if i < 0 {
			return d, at, col, depth, ok
		}
		d, at, col, depth, ok = next, i, c, depth+dep, true
		if dep == len(rest) {
			break
		}
		tl, idx, rest = next.lines, i, rest[dep:]
	}
	return d, at, col, depth, ok
}

// defines reads the named templates of every template file under the
// root being rendered (the chart, its subcharts and library charts), once.
func (m *mapper) defines() map[string]*define {
	if m.defs != nil {
		return m.defs
	}
	m.defs = map[string]*define{}
	var files []string
	seen := 0
	filepath.WalkDir(m.root, func(p string, e fs.DirEntry, err error) error {
		// The loader reads at most MaxChartFiles of a chart; a tree
		// larger than that is not walked further here either.
		if seen++; seen > MaxChartFiles {
			return filepath.SkipAll
		}
		if err != nil || e.IsDir() || !strings.Contains(filepath.ToSlash(p), "/templates/") {
			return nil
		}
		switch filepath.Ext(p) {
		case ".tpl", ".yaml", ".yml", ".txt":
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files { // WalkDir's lexical order: the first definition of a name wins
		lines := strings.Split(string(m.file(f)), "\n")
		for i := 0; i < len(lines); i++ {
			mm := defineAction().FindStringSubmatch(lines[i])
			if mm == nil {
				continue
			}
			end := defineEnd(lines, i)
			if _, seen := m.defs[mm[1]]; !seen {
				m.defs[mm[1]] = &define{file: f, offset: i + 1, lines: scanTemplate([]byte(strings.Join(lines[i+1:end], "\n")))}
			}
			i = end
		}
	}
	return m.defs
}

// defineEnd is the index of the line holding the {{ end }} of the define
// on line i, counting the blocks opened in between.
func defineEnd(lines []string, i int) int {
	depth := 0
	for x := i + 1; x < len(lines); x++ {
		for _, a := range tActions().FindAllString(lines[x], -1) {
			switch {
			case endAction().MatchString(a):
				if depth == 0 {
					return x
				}
				depth--
			case blockOpen().MatchString(a):
				depth++
			}
		}
	}
	return len(lines)
}
