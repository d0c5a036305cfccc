package render

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/podlint/podlint/manifest"
	yaml "go.yaml.in/yaml/v3"
)

// seg is one step of a field path: a key, or an index into a list with the
// rendered item (to match list items by name, as strategic merge does).
type seg struct {
	key   string
	index int // -1 for a key
	item  *yaml.Node
}

func pathString(p []seg) string {
	var b strings.Builder
	for _, s := range p {
		if s.index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

func deref(n *yaml.Node) *yaml.Node { return manifest.Deref(n) }

// MapGet returns the last key and value named key in mapping m.
func MapGet(m *yaml.Node, key string) (k, v *yaml.Node) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			k, v = m.Content[i], deref(m.Content[i+1])
		}
	}
	return k, v
}

// pathAt finds the field at line:col of a rendered document: the key or
// scalar value there, or the list item starting there (the shorter path
// wins, as the analyzer points at list items by their first key).
func pathAt(n *yaml.Node, line, col int) []seg {
	n = deref(n)
	if n == nil {
		return nil
	}
	var found []seg
	var rec func(n *yaml.Node, p []seg) bool
	rec = func(n *yaml.Node, p []seg) bool {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				kp := append(p[:len(p):len(p)], seg{key: k.Value, index: -1})
				if (k.Line == line && k.Column == col) || (v.Kind == yaml.ScalarNode && v.Line == line && v.Column == col) {
					found = kp
					return true
				}
				if rec(v, kp) {
					return true
				}
			}
		case yaml.SequenceNode:
			for i, it := range n.Content {
				ip := append(p[:len(p):len(p)], seg{index: i, item: it})
				if it.Line == line && it.Column == col {
					found = ip
					return true
				}
				if rec(it, ip) {
					return true
				}
			}
		}
		return false
	}
	if n.Line == line && n.Column == col {
		return []seg{}
	}
	rec(n, nil)
	return found
}

// mergeKeys identify list items the way strategic merge patches do for the
// Pod spec's lists.
var mergeKeys = []string{"name", "containerPort", "mountPath", "devicePath", "ip", "topologyKey"}

func itemKey(it *yaml.Node) (string, string) {
	for _, k := range mergeKeys {
		if _, v := MapGet(it, k); v != nil && v.Kind == yaml.ScalarNode {
			return k, v.Value
		}
	}
	return "", ""
}

// walkNode follows p through src, a source document (a resource file or a
// patch), matching list items by their merge key. It returns the position
// of the deepest field found and how many segments were found.
func walkNode(src *yaml.Node, p []seg) (line, col, depth int) {
	n := deref(src)
	if n == nil {
		return 0, 0, 0
	}
	line, col = n.Line, n.Column
	for i, s := range p {
		n = deref(n)
		if n == nil {
			return line, col, i
		}
		if s.index >= 0 {
			if n.Kind != yaml.SequenceNode {
				return line, col, i
			}
			var it *yaml.Node
			if k, v := itemKey(s.item); k != "" {
				for _, c := range n.Content {
					if _, cv := MapGet(c, k); cv != nil && cv.Value == v {
						it = c
					}
				}
			} else if s.index < len(n.Content) {
				it = n.Content[s.index]
			}
			if it == nil {
				return line, col, i
			}
			n = it
			line, col = it.Line, it.Column
			continue
		}
		k, v := MapGet(n, s.key)
		if k == nil {
			return line, col, i
		}
		line, col = k.Line, k.Column
		if v != nil && v.Kind == yaml.ScalarNode && v.Line == k.Line {
			line, col = v.Line, v.Column
		}
		n = v
	}
	return line, col, len(p)
}

// tline is one line of a template, as its indentation structure sees it.
type tline struct {
	indent int    // column of the key (after "- ")
	dash   int    // column of "- ", or -1
	key    string // a literal key, or ""
	opaque bool   // only template actions, blank or a comment
	text   string
	acts   []string // the actions that start on this line, each whole
}

var (
	tKey     = lazyRegexp(`^(\s*)(- +)?("[^"]*"|'[^']*'|[A-Za-z0-9_.\-/$]+)\s*:(\s|$)`)
	tDash    = lazyRegexp(`^(\s*)- `)
	tActions = lazyRegexp(`\{\{.*?\}\}`)
)

// scanTemplate reads a template line by line. Actions are found in the
// whole text, as text/template's lexer does: one may span lines (grafana's
// _pod.tpl opens an {{ if ( or … }} over seven), and a line that starts
// inside one, or holds nothing but actions, is opaque.
func scanTemplate(data []byte) []tline {
	text := string(data)
	spans := actionSpans(text)
	var out []tline
	s, off := 0, 0 // the first span that may touch the line; the line's offset
	for _, raw := range strings.Split(text, "\n") {
		lineEnd := off + len(raw)
		raw = strings.TrimRight(raw, "\r")
		l := tline{text: raw, dash: -1}
		for s < len(spans) && spans[s][1] <= off {
			s++
		}
		inside := s < len(spans) && spans[s][0] < off
		var rest strings.Builder
		at := off
		for j := s; j < len(spans) && spans[j][0] <= lineEnd; j++ {
			if spans[j][0] >= off {
				l.acts = append(l.acts, text[spans[j][0]:spans[j][1]])
				rest.WriteString(text[at:spans[j][0]])
			}
			at = max(at, min(spans[j][1], lineEnd))
		}
		if at < off+len(raw) {
			rest.WriteString(text[at : off+len(raw)])
		}
		off = lineEnd + 1
		r := strings.TrimSpace(rest.String())
		if inside || r == "" || strings.HasPrefix(r, "#") {
			l.opaque = true
			out = append(out, l)
			continue
		}
		if m := tKey().FindStringSubmatchIndex(raw); m != nil && !strings.Contains(raw[m[6]:m[7]], "{{") {
			l.indent = m[6]
			if m[4] >= 0 {
				l.dash = m[4]
			}
			l.key = strings.Trim(raw[m[6]:m[7]], `"'`)
		} else {
			l.indent = len(raw) - len(strings.TrimLeft(raw, " "))
			if d := tDash().FindStringIndex(raw); d != nil {
				l.dash = d[1] - 2
				l.indent = d[1]
			}
		}
		out = append(out, l)
	}
	return out
}

// actionSpans returns the byte ranges of the actions of a template, "{{"
// to "}}": a comment ends at "*/}}" (or "*/ -}}"), and a "}}" inside a
// quoted or raw string does not end an action. An action that is never
// closed runs to the end, where Helm's parser would have refused it.
func actionSpans(text string) [][2]int {
	var out [][2]int
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			break
		}
		start := i + j
		end := len(text)
		body := start + 2
		if strings.HasPrefix(text[body:], "- ") {
			body += 2
		}
		if strings.HasPrefix(text[body:], "/*") {
			if c := strings.Index(text[body:], "*/"); c >= 0 {
				if e := strings.Index(text[body+c+2:], "}}"); e >= 0 {
					end = body + c + 2 + e + 2
				}
			}
		} else {
			end = actionEnd(text, body)
		}
		out = append(out, [2]int{start, end})
		i = end
	}
	return out
}

// actionEnd is the offset after the "}}" closing the action whose body
// starts at i, skipping strings, or len(text).
func actionEnd(text string, i int) int {
	for i < len(text) {
		switch c := text[i]; c {
		case '"', '\'', '`':
			i++
			for i < len(text) && text[i] != c {
				if text[i] == '\\' && c != '`' {
					i++
				}
				i++
			}
			i++
		case '}':
			if strings.HasPrefix(text[i:], "}}") {
				return i + 2
			}
			i++
		default:
			i++
		}
	}
	return len(text)
}

// locateTemplate finds the line of field p in a template by its indentation
// structure: template actions are opaque, literal keys are followed. It
// returns the 0-based index of the deepest literal line found, the column,
// and how many segments were matched.
func locateTemplate(tl []tline, p []seg) (idx, col, depth int) {
	start, end, parent := 0, len(tl), -1 // the block being searched
	idx, col = -1, 1
	for i := 0; i < len(p); i++ {
		s := p[i]
		if s.index >= 0 {
			items := listItems(tl, start, end)
			if len(items) == 0 {
				// The list is generated by an action (range, toYaml):
				// nothing literal below this.
				return idx, col, i
			}
			pick := pickItem(tl, items, end, s)
			if pick < 0 {
				return idx, col, i
			}
			it := items[pick]
			start, end = it, itemEnd(tl, items, pick, end)
			parent = tl[it].dash
			idx, col = it, tl[it].dash+1
			// The item's first key is on the dash line: let the next key
			// search include it.
			continue
		}
		found := -1
		minIndent := -1
		for x := start; x < end; x++ {
			l := tl[x]
			if l.opaque || l.key == "" || l.indent <= parent {
				continue
			}
			if minIndent < 0 || l.indent < minIndent {
				minIndent = l.indent
			}
		}
		for x := start; x < end; x++ {
			l := tl[x]
			if !l.opaque && l.key == s.key && l.indent == minIndent {
				found = x
			}
		}
		if found < 0 {
			return idx, col, i
		}
		idx, col = found, tl[found].indent+1
		parent = tl[found].indent
		start, end = found+1, blockEnd(tl, found, end)
	}
	return idx, col, len(p)
}

// pickItem chooses the template list item (an index into items) that
// rendered the list item s, or -1. An item whose merge key (a container's
// name) is written literally and equal wins. Otherwise each item's
// first-level keys with scalar values are compared with the rendered item:
// a value whose literal text, with every action standing for any text,
// cannot produce the rendered value rules the item out, and the item
// with the most literal text matched wins. The index decides only among
// items nothing tells apart, counting the items that remain: an item in
// an {{ if }} block that is off renders nothing and must not shift the
// others, which is what matching by content avoids.
func pickItem(tl []tline, items []int, end int, s seg) int {
	if k, v := itemKey(s.item); k != "" {
		for j, it := range items {
			for x := it; x < itemEnd(tl, items, j, end); x++ {
				if tl[x].key == k && (literalValue(tl[x].text, k) == v) {
					return j
				}
			}
		}
	}
	best, bestScore := []int(nil), -1
	for j, it := range items {
		score := 0
		for x := it; x < itemEnd(tl, items, j, end) && score >= 0; x++ {
			l := tl[x]
			if l.opaque || l.key == "" || l.indent != tl[it].indent {
				continue
			}
			_, v := MapGet(s.item, l.key)
			tv, ok := scalarText(l.text, l.key)
			if v == nil || v.Kind != yaml.ScalarNode || !ok {
				continue
			}
			if !valuePattern(tv).MatchString(v.Value) {
				score = -1
				break
			}
			score += len(tActions().ReplaceAllString(tv, "")) + 1
		}
		switch {
		case score > bestScore:
			best, bestScore = []int{j}, score
		case score == bestScore:
			best = append(best, j)
		}
	}
	if bestScore < 0 || len(best) == 0 {
		return -1
	}
	if len(best) == 1 {
		return best[0]
	}
	if s.index < len(best) {
		return best[s.index]
	}
	return best[len(best)-1]
}

// scalarText is the value written after "key:" on a template line, without
// quotes and comment; ok is false when there is none (a block follows).
func scalarText(line, key string) (string, bool) {
	i := strings.Index(line, key+":")
	if i < 0 {
		return "", false
	}
	v := strings.TrimSpace(line[i+len(key)+1:])
	if v == "" || strings.HasPrefix(v, "#") {
		return "", false
	}
	// A comment starts at " #" outside quotes and actions.
	from := 0
	if v[0] == '"' || v[0] == '\'' {
		if q := strings.IndexByte(v[1:], v[0]); q >= 0 {
			from = q + 2
		}
	}
	for j := from; j < len(v)-1; j++ {
		if v[j] == ' ' && v[j+1] == '#' && strings.Count(v[:j], "{{") == strings.Count(v[:j], "}}") {
			v = strings.TrimSpace(v[:j])
			break
		}
	}
	if v == "" || v == "|" || v == ">" || strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">") {
		return "", false
	}
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	}
	return v, true
}

// literalValue is the value after "key:" when it holds no action, or "".
func literalValue(line, key string) string {
	v, ok := scalarText(line, key)
	if !ok || strings.Contains(v, "{{") {
		return ""
	}
	return v
}

// valuePattern turns a template value into a pattern of the values it can
// render: literal text as written, each action as any text.
func valuePattern(v string) *regexp.Regexp {
	parts := tActions().Split(v, -1)
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile(`^(?s)` + strings.Join(parts, ".*") + `$`)
}

// blockEnd is the line after the block of key line k: lines indented deeper
// (or opaque) that follow it.
func blockEnd(tl []tline, k, limit int) int {
	ind := tl[k].indent
	for x := k + 1; x < limit; x++ {
		l := tl[x]
		if l.opaque {
			continue
		}
		li := l.indent
		if l.dash >= 0 {
			li = l.dash
		}
		if li < ind || (li == ind && l.dash < 0) {
			return x
		}
	}
	return limit
}

// listItems returns the "- " lines at the shallowest dash column of a block.
func listItems(tl []tline, start, end int) []int {
	minDash := -1
	for x := start; x < end; x++ {
		if l := tl[x]; !l.opaque && l.dash >= 0 && (minDash < 0 || l.dash < minDash) {
			minDash = l.dash
		}
	}
	var out []int
	for x := start; x < end; x++ {
		if l := tl[x]; !l.opaque && l.dash == minDash && minDash >= 0 {
			out = append(out, x)
		}
	}
	return out
}

func itemEnd(tl []tline, items []int, j, end int) int {
	if j+1 < len(items) {
		return items[j+1]
	}
	return end
}

// condition matches actions that test values rather than write them.
var condition = lazyRegexp(`^\{\{-?\s*(?:if|else|end)\b`)

var valuesRef = lazyRegexp(`\.Values((?:\.[A-Za-z0-9_]+)+)`)

// valuesPath returns the .Values path a template line (or, for a key whose
// value is written by an action on the lines below, those lines) reads.
func valuesPath(tl []tline, idx int) []string {
	if idx < 0 || idx >= len(tl) {
		return nil
	}
	cand := [][]string{tl[idx].acts}
	// "livenessProbe:" with its value written by actions below it
	// ({{- toYaml .Values.probe | nindent 12 }}, or a with block), up to
	// the {{ end }} of the block around it: the {{ with }} after that
	// belongs to the next key (grafana's readinessProbe).
	if _, written := scalarText(tl[idx].text, tl[idx].key); tl[idx].key != "" && !written {
	below:
		for x := idx + 1; x < len(tl) && tl[x].opaque && len(tl[x].acts) > 0; x++ {
			for _, a := range tl[x].acts {
				if endAction().MatchString(a) {
					break below
				}
			}
			cand = append(cand, tl[x].acts)
		}
	}
	for _, acts := range cand {
		for _, a := range acts {
			if condition().MatchString(a) {
				continue
			}
			if m := valuesRef().FindStringSubmatch(a); m != nil {
				return strings.Split(strings.TrimPrefix(m[1], "."), ".")
			}
			// {{ .initialDelaySeconds }} inside {{- with .Values.probes.liveness }}
			if m := dotRef().FindStringSubmatch(a); m != nil {
				if base := enclosingWith(tl, idx); base != nil {
					return append(base, strings.Split(m[1], ".")...)
				}
			}
			// {{- toYaml . | nindent 6 }} inside {{- with .Values.livenessProbe }}
			if wholeDot().MatchString(a) {
				if base := enclosingWith(tl, idx); base != nil {
					return base
				}
			}
		}
	}
	return mergedValues(tl, idx)
}

// mergedValues is the .Values path of a map a key's block completes with
// toYaml after its literal keys (traefik's "livenessProbe:" writes httpGet
// and then {{- toYaml .Values.livenessProbe | nindent 10 }} at the same
// indentation), or nil.
func mergedValues(tl []tline, idx int) []string {
	if tl[idx].key == "" {
		return nil
	}
	end := blockEnd(tl, idx, len(tl))
	child := -1
	for x := idx + 1; x < end && child < 0; x++ {
		if !tl[x].opaque {
			child = indentOf(tl[x].text)
		}
	}
	for x := idx + 1; x < end; x++ {
		if !tl[x].opaque || indentOf(tl[x].text) != child {
			continue
		}
		for _, a := range tl[x].acts {
			if m := toYamlValues().FindStringSubmatch(a); m != nil {
				return strings.Split(strings.TrimPrefix(m[1], "."), ".")
			}
		}
	}
	return nil
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

var (
	dotRef       = lazyRegexp(`^\{\{-?\s*\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)`)
	toYamlValues = lazyRegexp(`^\{\{-?\s*toYaml\s+\.Values((?:\.[A-Za-z0-9_]+)+)`)
	wholeDot     = lazyRegexp(`^\{\{-?\s*(?:toYaml\s+\.|tpl\s+\(\s*toYaml\s+\.\s*\))(?:\s|\||-?\}\})`)
	blockOpen    = lazyRegexp(`^\{\{-?\s*(if|with|range|define|block)\b`)
	endAction    = lazyRegexp(`^\{\{-?\s*end\b`)
)

// enclosingWith returns the .Values path of the innermost
// {{ with .Values.x }} block around line idx, or nil.
func enclosingWith(tl []tline, idx int) []string {
	depth := 0
	for x := idx - 1; x >= 0 && x > idx-200; x-- {
		acts := tl[x].acts
		for j := len(acts) - 1; j >= 0; j-- {
			a := acts[j]
			switch {
			case endAction().MatchString(a):
				depth++
			case blockOpen().MatchString(a):
				if depth > 0 {
					depth--
					continue
				}
				if m := blockOpen().FindStringSubmatch(a); m[1] != "with" {
					return nil
				}
				if m := valuesRef().FindStringSubmatch(a); m != nil {
					return strings.Split(strings.TrimPrefix(m[1], "."), ".")
				}
				return nil
			}
		}
	}
	return nil
}

// locateValues finds keys in a values file (as read for rendering): the
// deepest of them present.
func locateValues(data []byte, keys []string) (line, col, depth int) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return 0, 0, 0
	}
	n := deref(&doc)
	for i, k := range keys {
		kn, v := MapGet(n, k)
		if kn == nil {
			return line, col, i
		}
		line, col = kn.Line, byteColumn(data, kn.Line, kn.Column)
		n = v
	}
	return line, col, len(keys)
}

// byteColumn converts yaml.v3's character column col on 1-based line of
// data to the byte column findings carry.
func byteColumn(data []byte, line, col int) int {
	return manifest.ByteColumn([]byte(manifest.LineOf(data, line)), col)
}

// uniqueLine finds the one line of data whose trimmed text is text.
func uniqueLine(data []byte, text string) (line, col int, ok bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return 0, 0, false
	}
	found := 0
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == text {
			if found > 0 {
				return 0, 0, false
			}
			found = i + 1
			col = len(l) - len(strings.TrimLeft(l, " \t")) + 1
		}
	}
	return found, col, found > 0
}
