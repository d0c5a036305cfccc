package manifest

import (
	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
)

// Pos is a 1-based line and byte column (see columns.go).
type Pos struct{ Line, Column int }

// Locate finds where path points in the document. A scalar field resolves to
// its value, a mapping or list field to its key, a list item to the item. A
// field that is not in the document resolves to its nearest ancestor that is,
// with exact false.
func (d *Document) Locate(path workload.Path) (pos Pos, exact bool) {
	at, _, exact := d.resolve(path)
	if at == nil {
		return Pos{Line: 1 + d.LineOffset, Column: 1}, false
	}
	line := at.Line + d.LineOffset
	return Pos{Line: line, Column: d.File.byteColumn(line, at.Column)}, exact
}

// IsSet reports whether the field at path is written in the document with a
// scalar value that is not null. Typed decoding cannot tell an omitted field
// from an explicit 0 (or false, or ""); the document can.
func (d *Document) IsSet(path workload.Path) bool {
	_, n, exact := d.resolve(path)
	n = deref(n)
	return exact && n != nil && n.Kind == yaml.ScalarNode && n.Tag != "!!null"
}

// resolve walks path through the document's nodes, following aliases and
// merge keys. at is the node that positions the path (see Locate), n the
// node the path names; exact is false when the path ends early, at and n
// then being its nearest ancestor.
func (d *Document) resolve(path workload.Path) (at, n *yaml.Node, exact bool) {
	n = deref(d.Root)
	at = n // what to point at so far: the object itself, not the "---"
	for _, seg := range path.Segments() {
		cur := deref(n)
		if cur == nil {
			return at, n, false
		}
		if seg.Index >= 0 {
			if cur.Kind != yaml.SequenceNode || seg.Index >= len(cur.Content) {
				return at, n, false
			}
			n = cur.Content[seg.Index]
			at = n
			continue
		}
		if cur.Kind != yaml.MappingNode {
			return at, n, false
		}
		k, v := lookupKey(cur, seg.Key, d.maxDepth)
		if k == nil {
			return at, n, false
		}
		n = v
		at = k
		if dv := deref(v); dv != nil && dv.Kind == yaml.ScalarNode {
			at = v
		}
	}
	return at, n, true
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 100; i++ {
		switch n.Kind {
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		case yaml.AliasNode:
			n = n.Alias
		default:
			return n
		}
	}
	return n
}

// scalarAt returns the string value of a scalar field of mapping m.
func scalarAt(m *yaml.Node, key string, maxDepth int) (string, bool) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return "", false
	}
	_, v := lookupKey(m, key, maxDepth)
	v = deref(v)
	if v == nil || v.Kind != yaml.ScalarNode {
		return "", false
	}
	sv, err := resolveScalar(v)
	if err != nil || sv.kind == scalarNull {
		return "", false
	}
	return v.Value, true
}

// typeMetaAt returns apiVersion or kind of mapping m as the API machinery
// reads them: the key spelled exactly so (its JSON decoding of type
// metadata is case-sensitive) and the value a string after YAML 1.1
// resolution (`kind: 0` or `kind: true` is no kind).
func typeMetaAt(m *yaml.Node, key string, maxDepth int) (string, bool) {
	_, v := lookupExact(m, key, false, maxDepth)
	v = deref(v)
	if v == nil || v.Kind != yaml.ScalarNode {
		return "", false
	}
	sv, err := resolveScalar(v)
	if err != nil || sv.kind != scalarString || sv.s == "" {
		return "", false
	}
	return sv.s, true
}

// childAt returns the (dereferenced) value of key in mapping m.
func childAt(m *yaml.Node, key string, maxDepth int) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	_, v := lookupKey(m, key, maxDepth)
	return deref(v)
}
