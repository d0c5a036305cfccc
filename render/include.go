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
// in the file Helm names as the document's source. The include may be on
// the key's own line (traefik's "template: {{ include … | nindent 4 }}")
// or on the lines of its block; of several, the one that writes most of
// rest wins (a block that includes the labels helper before the Pod's).
// Nested includes are followed a few levels deep.
func (m *mapper) includeAt(tl []tline, idx int, rest []seg) (d *define, at, col, depth int, ok bool) {
	for range 4 {
		start, end := 0, len(tl)
		if idx >= 0 {
			start, end = idx, blockEnd(tl, idx, len(tl))
		}
		var best *define
		bi, bc, bd := -1, 0, 0
		for x := start; x < end; x++ {
			if !tl[x].opaque && x != idx {
				continue
			}
			for _, a := range tl[x].acts {
				mm := includeAction().FindStringSubmatch(a)
				if mm == nil {
					continue
				}
				next := m.defines()[mm[1]]
				if next == nil {
					continue
				}
				if i, c, dep := locateTemplate(next.lines, rest); i >= 0 && dep > bd {
					best, bi, bc, bd = next, i, c, dep
				}
			}
		}
		if best == nil {
			return d, at, col, depth, ok
		}
		d, at, col, depth, ok = best, bi, bc, depth+bd, true
		if bd == len(rest) {
			break
		}
		tl, idx, rest = best.lines, bi, rest[bd:]
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
		tl := scanTemplate(m.file(f))
		for i := 0; i < len(tl); i++ {
			var mm []string
			for _, a := range tl[i].acts {
				if mm = defineAction().FindStringSubmatch(a); mm != nil {
					break
				}
			}
			if mm == nil {
				continue
			}
			end := defineEnd(tl, i)
			if _, seen := m.defs[mm[1]]; !seen {
				m.defs[mm[1]] = &define{file: f, offset: i + 1, lines: tl[i+1 : end : end]}
			}
			i = end
		}
	}
	return m.defs
}

// defineEnd is the index of the line holding the {{ end }} of the define
// on line i, counting the blocks opened in between.
func defineEnd(tl []tline, i int) int {
	depth := 0
	for x := i + 1; x < len(tl); x++ {
		for _, a := range tl[x].acts {
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
	return len(tl)
}
