package manifest

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Pos is a 1-based line and column.
type Pos struct{ Line, Column int }

// Locate finds where path points in the document. A scalar field resolves to
// its value, a mapping or list field to its key, a list item to the item. A
// field that is not in the document resolves to its nearest ancestor that is,
// with exact false.
func (d *Document) Locate(path string) (pos Pos, exact bool) {
	n := deref(d.Root)
	at := n // what to point at so far: the object itself, not the "---"
	exact = true
	for _, seg := range parsePath(path) {
		n = deref(n)
		if n == nil {
			exact = false
			break
		}
		if seg.index >= 0 {
			if n.Kind != yaml.SequenceNode || seg.index >= len(n.Content) {
				exact = false
				break
			}
			n = n.Content[seg.index]
			at = n
			continue
		}
		if n.Kind != yaml.MappingNode {
			exact = false
			break
		}
		k, v := lookupKey(n, seg.key, 0)
		if k == nil {
			exact = false
			break
		}
		n = v
		at = k
		if dv := deref(v); dv != nil && dv.Kind == yaml.ScalarNode {
			at = v
		}
	}
	if at == nil {
		return Pos{Line: 1 + d.LineOffset, Column: 1}, false
	}
	return Pos{Line: at.Line + d.LineOffset, Column: at.Column}, exact
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

// lookupKey finds the pair that yaml.v2 would keep for key in mapping m,
// following merge keys. An exact spelling wins over a case-insensitive one,
// which encoding/json would also accept.
func lookupKey(m *yaml.Node, key string, depth int) (k, v *yaml.Node) {
	l := keyLookup{key: key}
	if k, v = l.find(m, depth); k == nil {
		l.fold, l.memo = true, nil
		k, v = l.find(m, depth)
	}
	return k, v
}

type keyLookup struct {
	key  string
	fold bool
	// memo holds the answer for each merged mapping already searched: merge
	// keys can name the same mapping many times over (`<<: [*a, *a, *a]`
	// on every level), which would make the search exponential.
	memo map[*yaml.Node][2]*yaml.Node
}

func (l *keyLookup) find(m *yaml.Node, depth int) (k, v *yaml.Node) {
	if depth > 50 {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn, vn := m.Content[i], m.Content[i+1]
		if isMergeKey(kn) {
			mv := deref(vn)
			if mv == nil {
				continue
			}
			switch mv.Kind {
			case yaml.MappingNode:
				if mk, mvv := l.merged(mv, depth+1); mk != nil {
					k, v = mk, mvv
				}
			case yaml.SequenceNode:
				for j := len(mv.Content) - 1; j >= 0; j-- {
					if item := deref(mv.Content[j]); item != nil && item.Kind == yaml.MappingNode {
						if mk, mvv := l.merged(item, depth+1); mk != nil {
							k, v = mk, mvv
						}
					}
				}
			}
			continue
		}
		dk := deref(kn)
		if dk == nil || dk.Kind != yaml.ScalarNode {
			continue
		}
		if dk.Value == l.key || (l.fold && strings.EqualFold(dk.Value, l.key)) {
			k, v = kn, vn
		}
	}
	return k, v
}

func (l *keyLookup) merged(m *yaml.Node, depth int) (k, v *yaml.Node) {
	if r, ok := l.memo[m]; ok {
		return r[0], r[1]
	}
	k, v = l.find(m, depth)
	if l.memo == nil {
		l.memo = map[*yaml.Node][2]*yaml.Node{}
	}
	l.memo[m] = [2]*yaml.Node{k, v}
	return k, v
}

// scalarAt returns the string value of a scalar field of mapping m.
func scalarAt(m *yaml.Node, key string) (string, bool) {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return "", false
	}
	_, v := lookupKey(m, key, 0)
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
func typeMetaAt(m *yaml.Node, key string) (string, bool) {
	l := keyLookup{key: key}
	_, v := l.find(m, 0)
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
func childAt(m *yaml.Node, key string) *yaml.Node {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	_, v := lookupKey(m, key, 0)
	return deref(v)
}
