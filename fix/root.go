package fix

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/workload"
)

// Fixing a render root. A finding in a Helm chart or kustomization is in
// rendered text; its fix moves to the file the value is written in (a
// template line, a values key, a patch: analyzer.RootForFix) and is
// verified by rendering the root again, in the same limited child as
// check, with the edited text in place of the file: the finding must be
// gone, no finding may appear, and every rendered object is compared with
// what it was. A change outside the fix's own fields (a values key that
// also feeds another container, a template line inside a range) makes the
// fix unsafe, and its title names the fields it would also change.

// MaxRootRenders bounds the renders Root spends on one root: one per fix
// it verifies, and one to start.
const MaxRootRenders = 40

// RootResult is what Root did to a render root.
type RootResult struct {
	// Changed are the files the applied fixes edit, sorted by path.
	Changed []ChangedFile
	// Edited is src.Edited with the text the fixes gave files, by
	// absolute path: the root renders the fixed text with it.
	Edited  map[string][]byte
	Applied []Applied
	Skipped []Skipped
	// Findings are the root's findings after the fixes.
	Findings []finding.Finding
}

// ChangedFile is a file Root changed: its text as read, and after.
type ChangedFile struct {
	Path          string // as the findings name it
	Abs           string // absolute, as Edited keys it
	Before, After []byte
}

// Root applies the fixes of the findings of render root src at safety
// max, one at a time, each verified by rendering again (see above), until
// none is left or MaxRootRenders renders were spent. src.Edited may hold
// the text earlier fixes of the run gave files; it is not changed.
func Root(cfg *analyzer.Linter, src manifest.Source, max finding.FixSafety, fixable func(*finding.Finding) bool) (*RootResult, error) {
	if fixable == nil {
		fixable = func(*finding.Finding) bool { return true }
	}
	edited := maps.Clone(src.Edited)
	if edited == nil {
		edited = map[string][]byte{}
	}
	render := func(e map[string][]byte) (*analyzer.RootFixes, error) {
		s := src
		s.Edited = e
		return cfg.RootForFix(s)
	}
	cur, err := render(edited)
	if err != nil {
		return nil, err
	}
	res := &RootResult{}
	before := map[string][]byte{} // absolute path → text as first read
	names := map[string]string{}  // absolute path → path as named
	failed := map[key]Skipped{}
	for renders := 1; renders < MaxRootRenders; {
		f := nextFixable(cur.Findings, max, fixable, failed)
		if f == nil {
			break
		}
		var first *Skipped
		applied := false
		for i := range f.Fixes {
			x := &f.Fixes[i]
			if x.Safety > max || renders >= MaxRootRenders {
				continue
			}
			renders++
			after, next, y, err := verifyRoot(render, edited, cur, f, x)
			if err == nil && y.Safety > max {
				// y's title names the other fields.
				if first == nil {
					first = &Skipped{Finding: *f, Fix: y, Reason: "unsafe: applied only with --unsafe"}
				}
				continue
			}
			if err != nil {
				if first == nil {
					first = &Skipped{Finding: *f, Fix: *x, Reason: "verification failed: " + err.Error()}
				}
				continue
			}
			for _, e := range y.Edits {
				abs := absPath(e.File)
				if _, ok := before[abs]; !ok {
					before[abs], names[abs] = cur.Files[e.File], e.File
				}
			}
			res.Applied = append(res.Applied, Applied{Finding: *f, Fix: y})
			edited, cur, applied = next, after, true
			break
		}
		if !applied {
			if first == nil {
				first = &Skipped{Finding: *f, Fix: f.Fixes[0], Reason: "not verified: the root was rendered " + fmt.Sprint(MaxRootRenders) + " times"}
			}
			failed[keyOf(f)] = *first
		}
	}
	res.Findings, res.Edited = cur.Findings, edited
	for abs, old := range before {
		res.Changed = append(res.Changed, ChangedFile{Path: names[abs], Abs: abs, Before: old, After: edited[abs]})
	}
	sort.Slice(res.Changed, func(i, j int) bool { return res.Changed[i].Path < res.Changed[j].Path })
	for i := range cur.Findings {
		f := &cur.Findings[i]
		if !fixable(f) {
			continue
		}
		if s, ok := failed[keyOf(f)]; ok {
			s.Finding = *f
			res.Skipped = append(res.Skipped, s)
		} else if nm, ok := cur.NotMoved[analyzer.NotMovedKey(f)]; ok && len(f.Fixes) == 0 && nm.Fix.Safety <= max {
			res.Skipped = append(res.Skipped, Skipped{Finding: *f, Fix: nm.Fix, Reason: nm.Reason})
		}
	}
	return res, nil
}

// nextFixable is the first finding with a fix at safety max that was not
// tried yet.
func nextFixable(fs []finding.Finding, max finding.FixSafety, fixable func(*finding.Finding) bool, failed map[key]Skipped) *finding.Finding {
	for i := range fs {
		f := &fs[i]
		if _, ok := failed[keyOf(f)]; !ok && Choose(f, max) != nil && fixable(f) {
			return f
		}
	}
	return nil
}

// verifyRoot applies fix x of finding f to the text cur was rendered
// from, renders the root again with it and checks the result: f is gone,
// no finding is new, and the rendered objects differ from cur's only at
// x.Paths of f's object, or else the fix comes back unsafe, naming the
// fields it also changes. It returns the root linted after the fix, the
// edited texts, the fix as it is to be applied, and the other fields it
// changes.
func verifyRoot(render func(map[string][]byte) (*analyzer.RootFixes, error), edited map[string][]byte, cur *analyzer.RootFixes,
	f *finding.Finding, x *finding.Fix) (after *analyzer.RootFixes, next map[string][]byte, y finding.Fix, err error) {
	y = *x
	next = maps.Clone(edited)
	byFile := map[string][]finding.Edit{}
	for _, e := range x.Edits {
		byFile[e.File] = append(byFile[e.File], e)
	}
	for file, edits := range byFile {
		text, ok := cur.Files[file]
		if !ok || text == nil {
			return nil, nil, y, fmt.Errorf("%s cannot be read inside the repository", file)
		}
		edits, err := sorted(edits)
		if err != nil {
			return nil, nil, y, err
		}
		out, err := finding.ApplyEdits(text, edits)
		if err != nil {
			return nil, nil, y, err
		}
		next[absPath(file)] = out
	}
	if after, err = render(next); err != nil {
		return nil, nil, y, err
	}
	for i := range after.Findings {
		if sameFinding(&after.Findings[i], f) {
			return nil, nil, y, fmt.Errorf("rendered again, the finding is still there: %s", after.Findings[i].Message)
		}
	}
	if n := newFindings(cur.Findings, after.Findings); len(n) > 0 {
		return nil, nil, y, fmt.Errorf("rendered again, the chart has a new finding %s (%s) at %s:%d: %s", n[0].RuleID, n[0].RuleName, n[0].File, n[0].Line, n[0].Message)
	}
	others, err := otherChanges(cur.Stream, after.Stream, f.Object, x.Paths)
	if err != nil {
		return nil, nil, y, err
	}
	if len(others) > 0 {
		y.Safety = finding.Unsafe
		y.Title += " (it also changes " + strings.Join(others, ", ") + ")"
	}
	return after, next, y, nil
}

// maxNamed bounds the other fields a fix's title names.
const maxNamed = 5

// otherChanges compares every rendered object before and after a fix and
// names the fields that changed other than paths of obj.
func otherChanges(before, after []byte, obj *finding.ObjectRef, paths []string) ([]string, error) {
	a, err := decodeAll(before)
	if err != nil {
		return nil, fmt.Errorf("the rendered output does not parse: %v", err)
	}
	b, err := decodeAll(after)
	if err != nil {
		return nil, fmt.Errorf("rendered again, the output does not parse: %v", err)
	}
	if len(a) != len(b) {
		return nil, fmt.Errorf("rendered again, the chart has %d documents instead of %d", len(b), len(a))
	}
	var own [][]workload.Segment
	for _, p := range paths {
		own = append(own, workload.Path(p).Segments())
	}
	var out []string
	for i := range a {
		var allowed [][]workload.Segment
		if isObject(a[i], obj) {
			allowed = slices.Clip(own)
		}
		for len(out) <= maxNamed {
			d := diff(a[i], b[i], nil, allowed)
			if d == "" {
				break
			}
			out = append(out, objectName(a[i])+" "+d)
			if d == "the document" {
				break
			}
			allowed = append(allowed, workload.Path(d).Segments())
		}
	}
	if len(out) > maxNamed {
		out = append(out[:maxNamed], "more")
	}
	return out, nil
}

// isObject reports whether a decoded document is the object ref names.
func isObject(doc any, ref *finding.ObjectRef) bool {
	if ref == nil {
		return false
	}
	kind, ns, name := identity(doc)
	return kind == ref.Kind && name == ref.Name && (ref.Namespace == "" || ns == ref.Namespace)
}

func identity(doc any) (kind, ns, name string) {
	m, _ := doc.(map[string]any)
	kind, _ = m["kind"].(string)
	md, _ := m["metadata"].(map[string]any)
	ns, _ = md["namespace"].(string)
	name, _ = md["name"].(string)
	return kind, ns, name
}

// objectName names a decoded document as findings name objects.
func objectName(doc any) string {
	kind, ns, name := identity(doc)
	return finding.ObjectRef{Kind: kind, Namespace: ns, Name: name}.String()
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
