package manifest

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// This file is the one place that resolves YAML merge keys (`<<`). The
// converter walks every effective pair of a mapping to build the JSON
// kubectl would send; lookups by key (Document.Locate, Document.IsSet, the
// loader's reads of kind and metadata) walk the same pairs and keep the last
// match. Both use the same order, the same depth limit (Limits.MaxDepth) and
// the same notion of a malformed merge.

// pairVisitor receives the pairs of a mapping from walkPairs.
type pairVisitor interface {
	// step is called once for every pair written in a mapping, merge keys
	// included, before anything else is done with it.
	step()
	// pair sees one effective key/value pair; direct is false for a pair
	// merged in from another mapping. Returning false stops the walk of
	// the mapping the pair is written in (the mappings it was merged into
	// go on).
	pair(k, v *yaml.Node, direct bool) bool
	// enter is called before a merged mapping is walked and may return
	// false to skip it; leave is called after a walk that enter allowed.
	enter(m *yaml.Node) bool
	leave(m *yaml.Node)
	// tooDeep reports a merged mapping nested more than maxDepth levels
	// deep, which is not walked; badMerge a merge value that is neither a
	// mapping nor a list of mappings (the rest of such a list is skipped).
	tooDeep(m *yaml.Node)
	badMerge(v *yaml.Node)
}

// walkPairs visits the effective key/value pairs of mapping m as yaml.v2
// (and so kubectl) sees them: in order, each merge key standing for the
// pairs of the mapping it names, or of each mapping of a list taken from
// last to first so that the first one wins; a later pair overrides an
// earlier one with the same key. depth is the nesting depth of m.
func walkPairs(m *yaml.Node, direct bool, depth, maxDepth int, vis pairVisitor) {
	if depth > maxDepth {
		vis.tooDeep(m)
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		vis.step()
		if isMergeKey(k) {
			mergePairs(v, depth+1, maxDepth, vis)
			continue
		}
		if !vis.pair(k, v, direct) {
			return
		}
	}
}

func mergePairs(v *yaml.Node, depth, maxDepth int, vis pairVisitor) {
	target := v
	for target.Kind == yaml.AliasNode && target.Alias != nil {
		target = target.Alias
	}
	switch target.Kind {
	case yaml.MappingNode:
		walkMerged(target, depth, maxDepth, vis)
		return
	case yaml.SequenceNode:
		// Earlier mappings in a merge list take precedence, so apply them last.
		for i := len(target.Content) - 1; i >= 0; i-- {
			item := target.Content[i]
			for item.Kind == yaml.AliasNode && item.Alias != nil {
				item = item.Alias
			}
			if item.Kind != yaml.MappingNode {
				vis.badMerge(v)
				return
			}
			walkMerged(item, depth, maxDepth, vis)
		}
		return
	}
	vis.badMerge(v)
}

func walkMerged(m *yaml.Node, depth, maxDepth int, vis pairVisitor) {
	if !vis.enter(m) {
		return
	}
	walkPairs(m, false, depth, maxDepth, vis)
	vis.leave(m)
}

func isMergeKey(k *yaml.Node) bool {
	if k.Kind != yaml.ScalarNode || k.Value != "<<" {
		return false
	}
	if t := explicitTag(k); t != "" {
		return t == tagMerge
	}
	return !isQuoted(k)
}

// lookupKey finds the pair that yaml.v2 would keep for key in mapping m,
// following merge keys up to maxDepth levels. The key must be spelled
// exactly so: the API server's decoder is case-sensitive, and drops a
// `Spec:` or `ReadinessProbe:` key.
func lookupKey(m *yaml.Node, key string, maxDepth int) (k, v *yaml.Node) {
	return lookupExact(m, key, false, maxDepth)
}

// lookupExact finds the pair of key in m spelled exactly so, or with fold
// spelled the same but for case.
func lookupExact(m *yaml.Node, key string, fold bool, maxDepth int) (k, v *yaml.Node) {
	// Most mappings have no merge key: their pairs are read in place, as
	// walkPairs would give them, without the visitor (which the interface
	// call moves to the heap, one allocation per lookup).
	if maxDepth >= 0 {
		plain := true
		for i := 0; i+1 < len(m.Content); i += 2 {
			pk := m.Content[i]
			if isMergeKey(pk) {
				plain = false
				break
			}
			if sameKey(pk, key, fold) {
				k, v = pk, m.Content[i+1]
			}
		}
		if plain {
			return k, v
		}
	}
	return lookupWalk(m, key, fold, maxDepth)
}

// lookupWalk is lookupExact through walkPairs, merge keys and all.
func lookupWalk(m *yaml.Node, key string, fold bool, maxDepth int) (k, v *yaml.Node) {
	l := keyLookup{key: key, fold: fold}
	walkPairs(m, true, 0, maxDepth, &l)
	return l.k, l.v
}

// keyLookup is the pairVisitor of lookupKey: the last matching pair wins.
type keyLookup struct {
	key  string
	fold bool
	k, v *yaml.Node
	// memo holds the last match in each merged mapping already walked:
	// merge keys can name the same mapping many times over (`<<: [*a, *a,
	// *a]` on every level), which would make the walk exponential, and a
	// mapping contributes the same last match each time.
	memo  map[*yaml.Node][2]*yaml.Node
	saved [][2]*yaml.Node
}

func (l *keyLookup) step() {}

func (l *keyLookup) pair(k, v *yaml.Node, _ bool) bool {
	if sameKey(k, l.key, l.fold) {
		l.k, l.v = k, v
	}
	return true
}

// sameKey reports whether the key node k spells key (or, with fold, spells
// it but for case).
func sameKey(k *yaml.Node, key string, fold bool) bool {
	dk := deref(k)
	return dk != nil && dk.Kind == yaml.ScalarNode && (dk.Value == key || (fold && strings.EqualFold(dk.Value, key)))
}

func (l *keyLookup) enter(m *yaml.Node) bool {
	if r, ok := l.memo[m]; ok {
		if r[0] != nil {
			l.k, l.v = r[0], r[1]
		}
		return false
	}
	l.saved = append(l.saved, [2]*yaml.Node{l.k, l.v})
	l.k, l.v = nil, nil
	return true
}

func (l *keyLookup) leave(m *yaml.Node) {
	if l.memo == nil {
		l.memo = map[*yaml.Node][2]*yaml.Node{}
	}
	l.memo[m] = [2]*yaml.Node{l.k, l.v}
	prev := l.saved[len(l.saved)-1]
	l.saved = l.saved[:len(l.saved)-1]
	if l.k == nil {
		l.k, l.v = prev[0], prev[1]
	}
}

func (l *keyLookup) tooDeep(*yaml.Node)  {}
func (l *keyLookup) badMerge(*yaml.Node) {}
