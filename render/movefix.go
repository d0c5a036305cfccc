package render

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
)

// Moving a fix. A rule's fix is computed on the rendered stream, which no
// one edits; MoveFix moves it to the file the value is written in, when
// that is unambiguous: the value is a scalar written literally on a
// template line (not an action), in a kustomize patch or resource, or
// taken unchanged from one key of a values file. Only edits that set a
// scalar move (an inserted key or a deleted one would need the template's
// structure, which actions hide). What the moved fix does to the rendered
// objects is not decided here: podlint fix renders the root again with the
// edit and compares every object (fix.Root).

// MoveFix is manifest.SourceEditor's.
func (m *mapper) MoveFix(x finding.Fix) (finding.Fix, error) {
	out := finding.Fix{Title: x.Title, Safety: x.Safety, Paths: x.Paths}
	var wheres []string
	for _, e := range x.Edits {
		i := m.doc(e.StartLine)
		if i < 0 || e.StartLine < m.starts[i] {
			return finding.Fix{}, errors.New("the edit is outside every rendered document")
		}
		path, old, err := m.scalarEdited(i, e, x.Paths)
		if err != nil {
			return finding.Fix{}, err
		}
		value, ok := scalarValue(e.NewText)
		if !ok {
			return finding.Fix{}, errors.New("the fix does not set a scalar")
		}
		se, where, err := m.moveSet(i, path, old, value)
		if err != nil {
			return finding.Fix{}, fmt.Errorf("%s: %v", path, err)
		}
		out.Edits = append(out.Edits, se)
		if !slices.Contains(wheres, where) {
			wheres = append(wheres, where)
		}
	}
	out.Title += " in " + strings.Join(wheres, " and ")
	if len(out.Edits) == 0 || !finding.SortEdits(out.Edits) {
		return finding.Fix{}, errors.New("the fix's edits overlap in the source")
	}
	return out, nil
}

// scalarEdited finds the field of x.Paths whose scalar edit e replaces,
// whole, in rendered document i, and its rendered value.
func (m *mapper) scalarEdited(i int, e finding.Edit, paths []string) (string, string, error) {
	d := m.r.Docs[i]
	for _, p := range paths {
		n := nodeAt(m.node(i), workload.Path(p))
		if n == nil || n.Kind != yaml.ScalarNode {
			continue
		}
		line := m.starts[i] + n.Line - 1
		text := manifest.LineOf([]byte(d.YAML), n.Line)
		if e.StartLine != line || e.EndLine != line || e.StartColumn != manifest.ByteColumn([]byte(text), n.Column) {
			continue
		}
		if e.EndColumn-1 > len(text) || e.StartColumn > e.EndColumn {
			continue
		}
		if v, ok := scalarValue(text[e.StartColumn-1 : e.EndColumn-1]); ok && v == n.Value {
			return p, n.Value, nil
		}
	}
	return "", "", errors.New("only a fix that sets a value can be moved to a template or patch; this one inserts or deletes a field")
}

// nodeAt follows path through a rendered document; nil when it is not
// written there.
func nodeAt(doc *yaml.Node, path workload.Path) *yaml.Node {
	n := deref(doc)
	for _, s := range path.Segments() {
		if n == nil {
			return nil
		}
		if s.Index >= 0 {
			if n.Kind != yaml.SequenceNode || s.Index >= len(n.Content) {
				return nil
			}
			n = deref(n.Content[s.Index])
			continue
		}
		_, n = MapGet(n, s.Key)
	}
	return n
}

// scalarValue decodes text, one YAML scalar.
func scalarValue(text string) (string, bool) {
	var n yaml.Node
	if yaml.Unmarshal([]byte(text), &n) != nil || len(n.Content) != 1 || n.Content[0].Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Content[0].Value, true
}

// moveSet is the edit of a source file that sets the field path of rendered
// document i, whose rendered value is old, to value; where names the file
// and line for the fix's title.
func (m *mapper) moveSet(i int, path, old, value string) (finding.Edit, string, error) {
	d := &m.r.Docs[i]
	p := m.resolve(i, path)
	if len(p) == 0 || pathString(p) != path {
		return finding.Edit{}, "", errors.New("the field is not written in the rendered document")
	}
	last := p[len(p)-1].key
	if d.Template == nil {
		w := m.locateKustomize(d, p, "")
		if !w.exact {
			return finding.Edit{}, "", errors.New("no patch or resource of the kustomization writes it (a transformer or generator sets it)")
		}
		return m.literalEdit(w.file, w.line, w.col, last, old, value)
	}
	w := m.locateHelm(i, d, p, "")
	var literalErr error
	if w.exact {
		e, where, err := m.literalEdit(w.file, w.line, w.col, last, old, value)
		if err == nil || !errors.Is(err, errAction) {
			return e, where, err
		}
		literalErr = err
	}
	v := w.values
	if v == nil || !v.full {
		if literalErr == nil {
			literalErr = errors.New("the template does not write it on a line of its own")
		}
		return finding.Edit{}, "", fmt.Errorf("%v, and it is not read from one key of a values file", literalErr)
	}
	if data := m.file(v.File); !bytes.Equal(data, v.data) {
		return finding.Edit{}, "", fmt.Errorf("the values file %s is not one podlint can edit (outside the repository, or changed since it was rendered)", v.File)
	}
	e, where, err := m.literalEdit(v.File, v.Line, v.Column, v.keys[len(v.keys)-1], old, value)
	if err != nil {
		return finding.Edit{}, "", fmt.Errorf("%s: %v", v.Message, err)
	}
	return e, where, nil
}

// errAction: the template writes the value with an action.
var errAction = errors.New("the template computes the value ({{ }})")

// literalEdit replaces the scalar written at line:col of file (or after
// "key:" there) with value, in the same quoting, after checking that it is
// a literal whose value is old.
func (m *mapper) literalEdit(file string, line, col int, key, old, value string) (finding.Edit, string, error) {
	if !inside(m.root, file) {
		// A base, a component or a values file elsewhere can be shared by
		// other charts or overlays, which rendering this root again does
		// not check.
		return finding.Edit{}, "", fmt.Errorf("%s:%d is outside %s, and may be shared with other charts or kustomizations", file, line, m.root)
	}
	data := m.file(file)
	if data == nil {
		return finding.Edit{}, "", fmt.Errorf("%s cannot be read inside the repository", file)
	}
	text := manifest.LineOf(data, line)
	if col < 1 || col > len(text)+1 {
		return finding.Edit{}, "", fmt.Errorf("%s:%d: no value at column %d", file, line, col)
	}
	at := col - 1
	for _, k := range []string{key, `"` + key + `"`, `'` + key + `'`} {
		if rest, ok := strings.CutPrefix(text[at:], k); ok && strings.HasPrefix(strings.TrimLeft(rest, " "), ":") {
			after := strings.TrimLeft(rest, " ")[1:]
			at = len(text) - len(strings.TrimLeft(after, " "))
			break
		}
	}
	start, end, quote, err := scalarToken(text, at)
	if err != nil {
		return finding.Edit{}, "", fmt.Errorf("%s:%d: %w", file, line, err)
	}
	if v, ok := scalarValue(text[start:end]); !ok || v != old {
		return finding.Edit{}, "", fmt.Errorf("%s:%d says %s, not the rendered %s", file, line, strconv.Quote(text[start:end]), strconv.Quote(old))
	}
	newText, err := writeScalar(value, quote)
	if err != nil {
		return finding.Edit{}, "", err
	}
	off := lineOffset(data, line)
	if off < 0 {
		return finding.Edit{}, "", fmt.Errorf("%s:%d: no such line", file, line)
	}
	e := finding.Edit{File: file, Start: off + start, End: off + end, StartLine: line, StartColumn: start + 1,
		EndLine: line, EndColumn: end + 1, NewText: newText}
	return e, fmt.Sprintf("%s:%d", file, line), nil
}

// scalarToken finds the one-line scalar that starts at byte at of a line:
// quoted, or plain up to a comment, the end of the line or the end of a
// flow item. quote is its quote character, 0 for plain.
func scalarToken(line string, at int) (start, end int, quote byte, err error) {
	rest := line[at:]
	switch {
	case strings.HasPrefix(rest, "{{"):
		return 0, 0, 0, errAction
	case rest == "" || strings.HasPrefix(rest, "#"):
		return 0, 0, 0, errors.New("the value is not on the key's line")
	case rest[0] == '|' || rest[0] == '>' || rest[0] == '&' || rest[0] == '*' || rest[0] == '!':
		return 0, 0, 0, errors.New("the value is a block scalar, an anchor, an alias or tagged")
	case rest[0] == '"' || rest[0] == '\'':
		q := rest[0]
		for j := 1; j < len(rest); j++ {
			switch {
			case q == '"' && rest[j] == '\\':
				j++
			case q == '\'' && rest[j] == q && j+1 < len(rest) && rest[j+1] == q:
				j++
			case rest[j] == q:
				end = at + j + 1
				if err := tokenEnds(line[end:]); err != nil {
					return 0, 0, 0, err
				}
				return at, end, q, nil
			}
		}
		return 0, 0, 0, errors.New("the quoted value spans lines")
	}
	j := 0
	for j < len(rest) && plainByte(rest[j]) {
		j++
	}
	if j == 0 {
		return 0, 0, 0, errors.New("no plain value here")
	}
	if err := tokenEnds(rest[j:]); err != nil {
		return 0, 0, 0, err
	}
	return at, at + j, 0, nil
}

// plainByte: the bytes of the plain values a fix replaces (numbers,
// restart policies, durations); anything else is left to a person.
func plainByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._/+-", c) >= 0
}

// tokenEnds checks what follows a value on its line: nothing, a comment
// or the rest of a flow collection, and no template action.
func tokenEnds(rest string) error {
	if strings.Contains(rest, "{{") {
		return errAction
	}
	t := strings.TrimLeft(rest, " \t\r")
	if t == "" || (t[0] == '#' && len(t) < len(rest)) || t[0] == ',' || t[0] == '}' || t[0] == ']' {
		return nil
	}
	return errors.New("the value is not a scalar of its own")
}

// writeScalar writes value quoted as the value it replaces was (0:
// plain, when it reads back as the same string or number).
func writeScalar(value string, quote byte) (string, error) {
	if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "", errors.New("the new value holds a control character")
	}
	switch quote {
	case '\'':
		return "'" + strings.ReplaceAll(value, "'", "''") + "'", nil
	case '"':
		return strconv.Quote(value), nil
	}
	for i := 0; i < len(value); i++ {
		if !plainByte(value[i]) {
			return strconv.Quote(value), nil
		}
	}
	return value, nil
}

// lineOffset is the byte offset of 1-based line in data, or -1.
func lineOffset(data []byte, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off
}

// inside reports whether file is in the folder root (both as given, made
// absolute).
func inside(root, file string) bool {
	rel, err := filepath.Rel(absPath(root), absPath(file))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
