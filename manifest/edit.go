package manifest

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
)

// Edits. A fix is a list of operations on field paths (set a scalar,
// insert a key, delete a key or a list item) that Document.Edit resolves to
// byte-range text edits against the file as read: the YAML is never
// encoded again, so comments, quoting, flow style, blank lines and line
// breaks outside the changed bytes stay as they are. An operation that
// cannot be done in place exactly (a field reached through an alias or a
// merge key, or anchored; a block scalar; a deletion in a flow collection
// with nested values) is refused with an error, and the fix is not offered.

// OpKind is what an Op does.
type OpKind int

const (
	// OpSet replaces the scalar at Path with Value, keeping its quoting.
	OpSet OpKind = iota + 1
	// OpInsert adds the key that Path ends with to the mapping Path's
	// parent names, after the key After ("" for the last one), with the
	// scalar Value or, when Lines is set, the block mapping Lines.
	OpInsert
	// OpDelete removes the key or list item at Path, with its value.
	OpDelete
)

// Op is one change to a document, by field path.
type Op struct {
	Kind  OpKind
	Path  workload.Path
	Value string // OpSet, OpInsert: the new scalar, unquoted
	After string // OpInsert: the sibling key to insert after
	// Lines is the value of an OpInsert that is a block mapping: YAML
	// lines indented by two spaces a level, re-indented to the file's
	// indentation.
	Lines []string
}

// ErrNoEdit wraps the reasons an operation cannot be done in place.
var ErrNoEdit = errors.New("cannot edit in place")

func noEdit(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNoEdit, fmt.Sprintf(format, args...))
}

// Edit resolves op to a text edit of the document's file.
func (d *Document) Edit(op Op) (finding.Edit, error) {
	f := d.File
	if f.Base < 0 {
		return finding.Edit{}, noEdit("the file was transcoded from UTF-16")
	}
	segs := op.Path.Segments()
	if len(segs) == 0 {
		return finding.Edit{}, noEdit("empty path")
	}
	switch op.Kind {
	case OpSet:
		parent, _, v, err := d.walk(segs)
		if err != nil {
			return finding.Edit{}, err
		}
		start, end, err := d.scalarRange(v)
		if err != nil {
			return finding.Edit{}, err
		}
		text, err := scalarText(op.Value, v.Style)
		if v.Style == 0 && jsonStyle(parent) {
			text, err = jsonScalar(op.Value)
		}
		if err != nil {
			return finding.Edit{}, err
		}
		return d.edit(start, end, text), nil
	case OpDelete:
		parent, k, v, err := d.walk(segs)
		if err != nil {
			return finding.Edit{}, err
		}
		return d.deleteEdit(parent, k, v)
	case OpInsert:
		last := segs[len(segs)-1]
		if last.Index >= 0 {
			return finding.Edit{}, noEdit("insert names a list item")
		}
		var m *yaml.Node
		if len(segs) == 1 {
			m = d.Root
			if m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
				m = m.Content[0]
			}
		} else {
			var err error
			if _, _, m, err = d.walk(segs[:len(segs)-1]); err != nil {
				return finding.Edit{}, err
			}
		}
		return d.insertEdit(m, last.Key, op)
	}
	return finding.Edit{}, noEdit("unknown operation %d", op.Kind)
}

// walk follows segs through the document without aliases, merge keys or
// anchors (an edit there would change other places too) and returns the
// last step's parent, key (nil for a list item) and value.
func (d *Document) walk(segs []workload.Segment) (parent, key, val *yaml.Node, err error) {
	n := d.Root
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	for _, s := range segs {
		if n.Kind == yaml.AliasNode || n.Anchor != "" {
			return nil, nil, nil, noEdit("the path goes through an anchor or alias")
		}
		parent, key = n, nil
		if s.Index >= 0 {
			if n.Kind != yaml.SequenceNode || s.Index >= len(n.Content) {
				return nil, nil, nil, noEdit("no item %d", s.Index)
			}
			n = n.Content[s.Index]
			continue
		}
		if n.Kind != yaml.MappingNode {
			return nil, nil, nil, noEdit("%q is not in a mapping", s.Key)
		}
		var found *yaml.Node
		merged := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag != "!!str" {
				merged = true
			}
			if k.Kind == yaml.ScalarNode && k.Value == s.Key {
				if found != nil {
					return nil, nil, nil, noEdit("key %q is duplicated", s.Key)
				}
				found, key = n.Content[i+1], k
			}
		}
		if found == nil {
			if merged {
				return nil, nil, nil, noEdit("%q may come from a merge key", s.Key)
			}
			return nil, nil, nil, noEdit("no key %q", s.Key)
		}
		n = found
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" || (key != nil && key.Anchor != "") {
		return nil, nil, nil, noEdit("the field is an anchor or alias")
	}
	return parent, key, n, nil
}

// offset is the byte offset in the file's Data where node n starts.
func (d *Document) offset(n *yaml.Node) (int, error) {
	line := n.Line + d.LineOffset
	lb := d.File.lineBytes(line)
	if lb == nil {
		return 0, noEdit("line %d is not in the file", line)
	}
	start := cap(d.File.Data) - cap(lb)
	return start + d.File.byteColumn(line, n.Column) - 1, nil
}

// lineStart returns the offset of the start of the line holding off.
func (d *Document) lineStart(off int) int {
	b := d.File.Data
	for off > 0 {
		if c := b[off-1]; c == '\n' || c == '\r' {
			break
		}
		if off >= 2 && b[off-2] == 0xC2 && b[off-1] == 0x85 {
			break
		}
		if off >= 3 && breakLen(b[off-3:off]) == 3 {
			break
		}
		off--
	}
	return off
}

// lineEnd returns the offset of the line break after off (or len) and the
// offset past it.
func (d *Document) lineEnd(off int) (brk, next int) {
	b := d.File.Data
	i, w := nextBreak(b[off:])
	if i < 0 {
		return len(b), len(b)
	}
	return off + i, off + i + w
}

// breakIn reports whether b holds a line break.
func breakIn(b []byte) bool {
	i, _ := nextBreak(b)
	return i >= 0
}

// scalarRange returns the bytes the scalar n is written with. Only scalars
// on one line are edited: plain ones whose text is their value, and quoted
// ones.
func (d *Document) scalarRange(n *yaml.Node) (start, end int, err error) {
	if n.Kind != yaml.ScalarNode {
		return 0, 0, noEdit("not a scalar")
	}
	start, err = d.offset(n)
	if err != nil {
		return 0, 0, err
	}
	b := d.File.Data
	// Only the scalar's own bytes are scanned for a line break, not the
	// rest of its line: on a one-line JSON document of a megabyte, finding
	// the end of the line for each of thousands of fixes was quadratic.
	switch n.Style {
	case 0, yaml.TaggedStyle:
		if n.Style == yaml.TaggedStyle || (start < len(b) && (b[start] == '!' || b[start] == '&')) {
			return 0, 0, noEdit("the scalar has a tag")
		}
		end = start + len(n.Value)
		if n.Value == "" {
			return 0, 0, noEdit("the value is empty")
		}
		if end > len(b) || string(b[start:end]) != n.Value || breakIn(b[start:end]) {
			return 0, 0, noEdit("the scalar spans lines or is escaped")
		}
		return start, end, nil
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		q := byte('"')
		if n.Style == yaml.SingleQuotedStyle {
			q = '\''
		}
		if start >= len(b) || b[start] != q {
			return 0, 0, noEdit("the scalar has a tag")
		}
		for i := start + 1; i < len(b) && breakLen(b[i:]) == 0; i++ {
			switch {
			case q == '"' && b[i] == '\\':
				if i+1 < len(b) && breakLen(b[i+1:]) > 0 {
					return 0, 0, noEdit("the quoted scalar spans lines")
				}
				i++
			case b[i] == q && q == '\'' && i+1 < len(b) && b[i+1] == '\'':
				i++
			case b[i] == q:
				return start, i + 1, nil
			}
		}
		return 0, 0, noEdit("the quoted scalar spans lines")
	}
	return 0, 0, noEdit("block scalars are not edited")
}

var plainSafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`) })

// scalarText writes value in style.
func scalarText(value string, style yaml.Style) (string, error) {
	if !utf8.ValidString(value) || strings.ContainsFunc(value, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		return "", noEdit("the new value is not printable UTF-8 text")
	}
	switch style {
	case yaml.SingleQuotedStyle:
		return "'" + strings.ReplaceAll(value, "'", "''") + "'", nil
	case yaml.DoubleQuotedStyle:
		return strconv.Quote(value), nil
	}
	if plainSafe().MatchString(value) {
		return value, nil
	}
	return strconv.Quote(value), nil
}

// isFlow reports whether collection n is written in flow style.
func isFlow(n *yaml.Node) bool { return n.Style&yaml.FlowStyle != 0 }

// indentOf returns the number of spaces before off on its line, and
// whether only spaces precede it.
func (d *Document) indentOf(off int) (int, bool) {
	ls := d.lineStart(off)
	for i := ls; i < off; i++ {
		if d.File.Data[i] != ' ' {
			return off - ls, false
		}
	}
	return off - ls, true
}

// extentEnd returns where the block value of an entry that starts on the
// line of off, indented by indent, ends: past the last line indented more
// than indent (or, for a block sequence written at the key's indentation,
// its items), leaving trailing blank and comment lines in place.
func (d *Document) extentEnd(off, indent int, seqAtIndent bool) int {
	b := d.File.Data
	_, end := d.lineEnd(off)
	for i := end; i < len(b); {
		brk, next := d.lineEnd(i)
		line := b[i:brk]
		t := trimBlank(line)
		if len(t) == 0 || t[0] == '#' {
			i = next
			continue
		}
		ind := 0
		for ind < len(line) && line[ind] == ' ' {
			ind++
		}
		if ind > indent || (seqAtIndent && ind == indent && line[ind] == '-' && (ind+1 == len(line) || line[ind+1] == ' ')) {
			end = next
			i = next
			continue
		}
		break
	}
	return end
}

func (d *Document) deleteEdit(parent, k, v *yaml.Node) (finding.Edit, error) {
	if parent != nil && isFlow(parent) {
		return finding.Edit{}, noEdit("deleting from a flow collection")
	}
	at := v
	if k != nil {
		at = k
		if _, _, err := d.scalarRange(k); err != nil {
			return finding.Edit{}, noEdit("the key is not a plain or quoted scalar: %v", err)
		}
	}
	off, err := d.offset(at)
	if err != nil {
		return finding.Edit{}, err
	}
	indent, alone := d.indentOf(off)
	if k == nil {
		// A list item: "- " before it, nothing else.
		ls := d.lineStart(off)
		t := strings.TrimLeft(string(d.File.Data[ls:off]), " ")
		if t != "- " && !(strings.HasPrefix(t, "-") && strings.TrimSpace(t) == "-") {
			return finding.Edit{}, noEdit("the item does not start its line")
		}
		indent = ls + strings.Index(string(d.File.Data[ls:off]), "-") - ls
		alone = true
	}
	if !alone {
		return finding.Edit{}, noEdit("the key does not start its line")
	}
	start := d.lineStart(off)
	seq := k != nil && v.Kind == yaml.SequenceNode && !isFlow(v)
	end := d.extentEnd(off, indent, seq)
	if b := d.File.Data; end == len(b) && start > 0 && breakLen(b[d.lineStart(end):end]) == 0 && d.lineStart(end) != end {
		// The last line of a file without a final line break: the break
		// before the entry goes with it, so the file still ends without
		// one, and a key inserted at the end (which starts with a line
		// break then) leaves no blank line behind.
		start = d.breakBefore(start)
	}
	return d.edit(start, end, ""), nil
}

func (d *Document) insertEdit(m *yaml.Node, key string, op Op) (finding.Edit, error) {
	if m.Kind != yaml.MappingNode || len(m.Content) < 2 {
		return finding.Edit{}, noEdit("the parent is not a mapping with keys")
	}
	if m.Anchor != "" {
		return finding.Edit{}, noEdit("the parent is anchored")
	}
	si := len(m.Content) - 2
	for i := 0; i+1 < len(m.Content); i += 2 {
		kv := m.Content[i].Value
		if kv == key || kv == "<<" {
			return finding.Edit{}, noEdit("key %q is already there, or may come from a merge key", key)
		}
		if op.After != "" && kv == op.After {
			si = i
		}
	}
	sk, sv := m.Content[si], m.Content[si+1]
	if _, _, err := d.scalarRange(sk); err != nil {
		return finding.Edit{}, noEdit("the key before is not a plain or quoted scalar: %v", err)
	}
	keyText, err := scalarText(key, 0)
	if err != nil || keyText != key {
		return finding.Edit{}, noEdit("key %q needs quoting", key)
	}
	if isFlow(m) {
		if op.Lines != nil {
			return finding.Edit{}, noEdit("a block value in a flow mapping")
		}
		_, end, err := d.scalarRange(sv)
		if err != nil {
			return finding.Edit{}, err
		}
		if jsonStyle(m) {
			text, err := jsonScalar(op.Value)
			if err != nil {
				return finding.Edit{}, err
			}
			return d.edit(end, end, ", "+strconv.Quote(key)+": "+text), nil
		}
		text, err := scalarText(op.Value, 0)
		if err != nil {
			return finding.Edit{}, err
		}
		return d.edit(end, end, ", "+key+": "+text), nil
	}
	off, err := d.offset(sk)
	if err != nil {
		return finding.Edit{}, err
	}
	indent, _ := d.indentOf(off)
	end := d.extentEnd(off, indent, sv.Kind == yaml.SequenceNode && !isFlow(sv))
	brk := d.lineBreak(off)
	pad := strings.Repeat(" ", indent)
	var sb strings.Builder
	if end == len(d.File.Data) && end > 0 && breakLen(d.File.Data[d.lineStart(end):end]) == 0 && d.lineStart(end) != end {
		sb.WriteString(brk) // the file does not end with a line break
	}
	if op.Lines == nil {
		text, err := scalarText(op.Value, 0)
		if err != nil {
			return finding.Edit{}, err
		}
		sb.WriteString(pad + key + ": " + text + brk)
	} else {
		// The step of the sibling the value goes after (a probe after a
		// probe), else the file's.
		unit := d.stepOf(sk, sv)
		if unit <= 0 {
			unit = d.indentUnit(m)
		}
		sb.WriteString(pad + key + ":" + brk)
		for _, l := range op.Lines {
			t := strings.TrimLeft(l, " ")
			levels := (len(l) - len(t)) / 2
			sb.WriteString(pad + strings.Repeat(" ", unit*(levels+1)) + t + brk)
		}
	}
	return d.edit(end, end, sb.String()), nil
}

// lineBreak returns the line break that ends the line of off ("\n" on the
// last line of a file without one).
func (d *Document) lineBreak(off int) string {
	brk, next := d.lineEnd(off)
	if brk == next {
		return "\n"
	}
	return string(d.File.Data[brk:next])
}

// indentUnit guesses how many spaces the file indents a level by: the
// step from a key to the first key of its block mapping value, found first
// in m and then anywhere in the document; 2 when there is none.
func (d *Document) indentUnit(m *yaml.Node) int {
	if u := d.stepIn(m, 0); u > 0 {
		return u
	}
	if u := d.stepIn(d.Root, 0); u > 0 {
		return u
	}
	return 2
}

// stepOf returns how many spaces deeper than key k the first key of its
// block mapping value v is, or 0.
func (d *Document) stepOf(k, v *yaml.Node) int {
	if v == nil || v.Kind != yaml.MappingNode || isFlow(v) || len(v.Content) == 0 {
		return 0
	}
	ko, err1 := d.offset(k)
	co, err2 := d.offset(v.Content[0])
	if err1 != nil || err2 != nil {
		return 0
	}
	ki, ok1 := d.indentOf(ko)
	ci, ok2 := d.indentOf(co)
	if ok1 && ok2 && ci > ki {
		return ci - ki
	}
	return 0
}

// breakBefore returns the offset of the line break that ends the line
// before the one starting at ls (ls when there is none).
func (d *Document) breakBefore(ls int) int {
	b := d.File.Data
	if ls >= 2 && b[ls-2] == '\r' && b[ls-1] == '\n' {
		return ls - 2
	}
	if ls >= 1 && (b[ls-1] == '\n' || b[ls-1] == '\r') {
		return ls - 1
	}
	return ls
}

// stepIn returns the indentation step below the first block mapping key
// of n that has a block mapping value, or 0.
func (d *Document) stepIn(n *yaml.Node, depth int) int {
	if n == nil || depth > 50 {
		return 0
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if u := d.stepIn(c, depth+1); u > 0 {
				return u
			}
		}
	case yaml.MappingNode:
		if isFlow(n) {
			return 0
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if u := d.stepOf(k, v); u > 0 {
				return u
			}
			if u := d.stepIn(v, depth+1); u > 0 {
				return u
			}
		}
	}
	return 0
}

// edit builds the finding.Edit replacing Data[start:end] with text, in
// the offsets of the file as read.
func (d *Document) edit(start, end int, text string) finding.Edit {
	base := d.File.Base
	sl, sc := d.File.position(start)
	el, ec := d.File.position(end)
	if sl == 1 {
		sc += base
	}
	if el == 1 {
		ec += base
	}
	return finding.Edit{File: d.File.Path, Start: start + base, End: end + base, StartLine: sl, StartColumn: sc,
		EndLine: el, EndColumn: ec, NewText: text}
}

// duplicate is the earlier of two pairs with one key in a mapping.
type duplicate struct {
	key, value *yaml.Node
	equal      bool // both values are the same (sameValue)
}

// sameValue reports whether a and b are the same value: scalars with the
// same tag and value, or mappings and sequences of the same values, keys
// in the same order, written in any style, so either pair of a duplicate
// key gives the same object. Anything with an anchor, an alias or a merge
// key is not compared (it is not the same), nor past a depth of 100 or a
// budget of nodes.
func sameValue(a, b *yaml.Node) bool {
	budget := 10000
	return sameNode(a, b, 0, &budget)
}

func sameNode(a, b *yaml.Node, depth int, budget *int) bool {
	if *budget--; *budget < 0 || depth > 100 || a == nil || b == nil {
		return false
	}
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Anchor != "" || b.Anchor != "" || a.Kind == yaml.AliasNode {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		return a.Value == b.Value && a.Value != "<<"
	case yaml.MappingNode, yaml.SequenceNode:
		if len(a.Content) != len(b.Content) {
			return false
		}
		for i := range a.Content {
			if !sameNode(a.Content[i], b.Content[i], depth+1, budget) {
				return false
			}
		}
		return true
	}
	return false
}

// duplicateFixes deletes the earlier pair of a duplicate key: kubectl reads
// the last one, so the object stays as it is. It is safe when both values
// are the same scalar, and unsafe otherwise (the author may have meant the
// first). Rendered documents get none.
func (d *Document) duplicateFixes(dup *duplicate) []finding.Fix {
	if dup == nil || d.Source != "" || dup.key.Anchor != "" || dup.value.Anchor != "" || dup.value.Kind == yaml.AliasNode {
		return nil
	}
	e, err := d.deleteEdit(nil, dup.key, dup.value)
	if err != nil {
		return nil
	}
	x := finding.Fix{Title: "Delete the first " + dup.key.Value + ", which the last one overrides", Safety: finding.Unsafe, Edits: []finding.Edit{e}}
	if dup.equal {
		x.Title, x.Safety = "Delete the duplicate "+dup.key.Value+" (both have the same value)", finding.Safe
	}
	x.LineEdits = d.File.WholeLines(x.Edits)
	return []finding.Fix{x}
}
