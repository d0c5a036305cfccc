package manifest

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// checkAliases walks a whole document the way yaml.v2 decodes it under
// kubectl (sigs.k8s.io/yaml), expanding aliases and merge keys, and returns a
// problem where kubectl would refuse it:
//
//   - yaml.v2 fails with "document contains excessive aliasing" once more
//     than 1000 nodes were decoded, more than 100 of them through aliases,
//     and the share of aliased nodes is above a ratio that falls from 99%
//     (up to 400 000 nodes) to 10% (from 4 000 000 nodes);
//   - yaml.v2 fails with "anchor 'x' value contains itself" when an alias is
//     expanded inside its own expansion.
//
// The converter only walks the part of a document that is decoded (a custom
// resource's spec.template), so without this walk a "billion laughs" in the
// rest of the document would pass silently where kubectl refuses the whole
// document. The walk also stops at maxNodes visits (--max-nodes), which
// bounds its cost whatever the document does.
func checkAliases(root *yaml.Node, maxNodes int) (p *Problem) {
	w := aliasWalk{maxNodes: maxNodes, active: map[*yaml.Node]bool{}}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(errBudget); !ok {
				panic(r)
			}
			p = w.problem
		}
	}()
	w.walk(root)
	return nil
}

type aliasWalk struct {
	decodes, aliased int
	aliasDepth       int
	maxNodes         int
	active           map[*yaml.Node]bool // alias nodes being expanded
	problem          *Problem
}

// allowedAliasRatio is yaml.v2's.
func allowedAliasRatio(decodes int) float64 {
	const low, high = 400_000, 4_000_000
	switch {
	case decodes <= low:
		return 0.99
	case decodes >= high:
		return 0.10
	}
	return 0.99 - 0.89*(float64(decodes-low)/float64(high-low))
}

// stop records the problem and unwinds the walk.
func (w *aliasWalk) stop(n *yaml.Node, rule, format string, args ...any) {
	w.problem = &Problem{Rule: rule, Line: max(n.Line, 1), Column: max(n.Column, 1), Message: fmt.Sprintf(format, args...)}
	panic(errBudget{})
}

func (w *aliasWalk) walk(n *yaml.Node) {
	w.decodes++
	if w.aliasDepth > 0 {
		w.aliased++
	}
	if w.aliased > 100 && w.decodes > 1000 && float64(w.aliased)/float64(w.decodes) > allowedAliasRatio(w.decodes) {
		w.stop(n, RuleInvalidYAML, "document contains excessive aliasing (a \"billion laughs\" document): %d of the first %d nodes come from aliases; kubectl refuses it", w.aliased, w.decodes)
	}
	if w.decodes > w.maxNodes && w.aliased > 0 {
		w.stop(n, RuleLimitExceeded, "document expands to more than %d nodes through YAML aliases and merge keys; it was not linted (limit: --max-nodes)", w.maxNodes)
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			w.walk(c)
		}
	case yaml.AliasNode:
		if n.Alias == nil {
			return // the parser reports unknown anchors
		}
		if w.active[n] {
			w.stop(n, RuleInvalidYAML, "anchor %q value contains itself; kubectl cannot read this document", n.Value)
		}
		w.active[n] = true
		w.aliasDepth++
		w.walk(n.Alias)
		w.aliasDepth--
		delete(w.active, n)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if isMergeKey(n.Content[i]) {
				w.merge(n.Content[i+1])
				continue
			}
			w.walk(n.Content[i])
			w.walk(n.Content[i+1])
		}
	}
}

// merge follows yaml.v2's decoder.merge: the merged value is decoded only
// when it is (an alias of) a mapping or a list of such.
func (w *aliasWalk) merge(v *yaml.Node) {
	switch v.Kind {
	case yaml.MappingNode:
		w.walk(v)
	case yaml.AliasNode:
		if v.Alias != nil && v.Alias.Kind == yaml.MappingNode {
			w.walk(v)
		}
	case yaml.SequenceNode:
		for i := len(v.Content) - 1; i >= 0; i-- {
			item := v.Content[i]
			if item.Kind == yaml.AliasNode && (item.Alias == nil || item.Alias.Kind != yaml.MappingNode) {
				return
			}
			if item.Kind != yaml.MappingNode && item.Kind != yaml.AliasNode {
				return
			}
			w.walk(item)
		}
	}
}
