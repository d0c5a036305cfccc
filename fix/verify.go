// Package fix verifies and applies the fixes rules attach to findings.
// Verify is the one check every fix passes before anything offers it
// (`podlint fix`, the rule tests, the editor's code actions): the edited
// file parses as the original did, its decoded objects differ from the
// original's only at the fix's paths, the finding is gone and no finding
// appears that was not there. File applies fixes to a file until none is
// left (at most MaxPasses rounds), skipping conflicting ones.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package fix

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
)

// Verify checks fix x of finding f of the file at path, whose bytes as read
// are data and whose findings are before (cfg.File(path, data, true); f
// may come from a run with other rules enabled), and returns the edited
// bytes. An error says why the fix must not be offered. To verify several
// fixes of one file, VerifyAll costs less.
func Verify(cfg *analyzer.Linter, path string, data []byte, before []finding.Finding, f *finding.Finding, x *finding.Fix) ([]byte, error) {
	out, _, err := newChecker(cfg, path, data, before).verify(f, x)
	return out, err
}

// verify is Verify, also returning the findings of the edited file.
func (c *checker) verify(f *finding.Finding, x *finding.Fix) ([]byte, []finding.Finding, error) {
	if _, _, err := c.local(x); err != nil {
		return nil, nil, err
	}
	return c.lint(f, x)
}

// lint applies x, whose text check (local) passed, lints the edited file
// and checks that f is gone and no finding is new.
func (c *checker) lint(f *finding.Finding, x *finding.Fix) ([]byte, []finding.Finding, error) {
	edits, err := sorted(x.Edits)
	if err != nil {
		return nil, nil, err
	}
	out, err := finding.ApplyEdits(c.data, edits)
	if err != nil {
		return nil, nil, err
	}
	after, _ := c.cfg.File(c.path, out, true)
	for i := range after {
		a := &after[i]
		if sameFinding(a, f) {
			return nil, nil, fmt.Errorf("the finding is still there after the fix: %s", a.Message)
		}
	}
	if n := newFindings(c.fileFindings(), after); len(n) > 0 {
		return nil, nil, fmt.Errorf("the fix adds finding %s (%s) at line %d: %s", n[0].RuleID, n[0].RuleName, n[0].Line, n[0].Message)
	}
	return out, after, nil
}

// sorted returns a sorted copy of edits, or an error when they overlap.
func sorted(edits []finding.Edit) ([]finding.Edit, error) {
	edits = slices.Clone(edits)
	if !finding.SortEdits(edits) {
		return nil, errors.New("the fix's edits overlap")
	}
	return edits, nil
}

// key identifies a finding across edits, which move lines.
type key struct {
	rule, object, path, container string
}

func keyOf(f *finding.Finding) key {
	k := key{rule: f.RuleID, path: f.Path, container: f.Container}
	if f.Object != nil {
		k.object = f.Object.String()
	}
	if f.Path == "" {
		k.path = f.Message // the loader's findings have no path
	}
	return k
}

func sameFinding(a, b *finding.Finding) bool { return keyOf(a) == keyOf(b) }

// newFindings returns the findings of after that before did not have (by
// rule, object, path and container, counting repeats).
func newFindings(before, after []finding.Finding) []finding.Finding {
	seen := map[key]int{}
	for i := range before {
		seen[keyOf(&before[i])]++
	}
	var out []finding.Finding
	for i := range after {
		k := keyOf(&after[i])
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		out = append(out, after[i])
	}
	return out
}

// sameExceptAt decodes both versions of the file document by document and
// fails unless they have the same documents and differ only at or under
// one of paths. Both must parse.
func sameExceptAt(old, new []byte, paths []string) error {
	a, err := decodeAll(old)
	if err != nil {
		return fmt.Errorf("the original does not parse: %v", err)
	}
	return sameAs(a, new, paths)
}

// sameAs is sameExceptAt with the original already decoded (decodeAll).
func sameAs(a []any, new []byte, paths []string) error {
	b, err := decodeAll(new)
	if err != nil {
		return fmt.Errorf("the fixed file does not parse: %v", err)
	}
	return sameDecoded(a, b, paths)
}

// sameDecoded is sameAs with both versions decoded.
func sameDecoded(a, b []any, paths []string) error {
	if len(a) != len(b) {
		return fmt.Errorf("the fix changes the number of documents from %d to %d", len(a), len(b))
	}
	allowed := make([][]workload.Segment, len(paths))
	for i, p := range paths {
		allowed[i] = workload.Path(p).Segments()
	}
	for i := range a {
		if d := diff(a[i], b[i], nil, allowed); d != "" {
			return fmt.Errorf("the fix changes %s of document %d, which is not among its paths %s", d, i+1, strings.Join(paths, ", "))
		}
	}
	return nil
}

// decodeAll decodes every document of data into plain values, as kubectl
// would read them (merge keys applied, aliases resolved, the last of
// duplicate keys winning).
func decodeAll(data []byte) ([]any, error) {
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		data = data[3:]
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var out []any
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		budget := 1 << 20
		v, err := plain(&n, &budget)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// plain converts a node to maps, slices and scalars.
func plain(n *yaml.Node, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, errors.New("the document expands to too many nodes")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return plain(n.Content[0], budget)
	case yaml.AliasNode:
		return plain(n.Alias, budget)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := plain(c, budget)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Tag == "!!merge" {
				merges = append(merges, v)
				continue
			}
			kv, err := plain(k, budget)
			if err != nil {
				return nil, err
			}
			vv, err := plain(v, budget)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(kv)] = vv
		}
		for _, m := range merges {
			if m.Kind == yaml.AliasNode {
				m = m.Alias
			}
			list := []*yaml.Node{m}
			if m.Kind == yaml.SequenceNode {
				list = m.Content
			}
			for _, mm := range list {
				mv, err := plain(mm, budget)
				if err != nil {
					return nil, err
				}
				if mp, ok := mv.(map[string]any); ok {
					for k, v := range mp {
						if _, ok := out[k]; !ok {
							out[k] = v
						}
					}
				}
			}
		}
		return out, nil
	case yaml.ScalarNode:
		if n.ShortTag() == "!!str" {
			// What Decode gives a string (it resolves a !!str scalar to
			// its value, however it is quoted), without a decoder per
			// scalar: most scalars of a manifest, all its keys.
			return n.Value, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return n.Value, nil
		}
		return v, nil
	}
	return nil, nil
}

// diff returns the first path where a and b differ outside the allowed
// paths, or "".
func diff(a, b any, at []workload.Segment, allowed [][]workload.Segment) string {
	for _, p := range allowed {
		if hasPrefix(at, p) {
			return ""
		}
	}
	if equalPlain(a, b) {
		return "" // no difference to name: nothing to allocate
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return pathString(at)
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			next := append(slices.Clip(at), workload.Segment{Key: k, Index: -1})
			x, inA := av[k]
			y, inB := bv[k]
			if inA != inB {
				if allowedAt(next, allowed) {
					continue
				}
				return pathString(next)
			}
			if d := diff(x, y, next, allowed); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok {
			return pathString(at)
		}
		if len(av) != len(bv) {
			// Only a deleted item may change the length.
			for i := range max(len(av), len(bv)) {
				if allowedAt(append(slices.Clip(at), workload.Segment{Index: i}), allowed) {
					return ""
				}
			}
			return pathString(at)
		}
		for i := range av {
			if d := diff(av[i], bv[i], append(slices.Clip(at), workload.Segment{Index: i}), allowed); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return pathString(at)
	}
	return ""
}

// equalPlain reports whether two plain values are equal, without
// allocating; false for values it cannot tell equal with ==, such as NaN
// (diff then compares them as it always does).
func equalPlain(a, b any) bool {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for k, x := range av {
			if y, ok := bv[k]; !ok || !equalPlain(x, y) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !equalPlain(av[i], bv[i]) {
				return false
			}
		}
		return true
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && (ta == nil || ta.Comparable()) && a == b
}

func allowedAt(at []workload.Segment, allowed [][]workload.Segment) bool {
	for _, p := range allowed {
		if hasPrefix(at, p) {
			return true
		}
	}
	return false
}

func hasPrefix(at, p []workload.Segment) bool {
	return len(at) >= len(p) && slices.Equal(at[:len(p)], p)
}

func pathString(segs []workload.Segment) string {
	var p workload.Path
	for _, s := range segs {
		if s.Index >= 0 {
			p = p.Index(s.Index)
		} else {
			p = p.Field(s.Key)
		}
	}
	if p == "" {
		return "the document"
	}
	return string(p)
}
