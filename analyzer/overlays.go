package analyzer

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/podlint/podlint/finding"
)

// mergeOverlays reports once what several roots find in one file: a
// kustomize base rendered through overlays dev and prod yields each of its
// findings twice, at the same place with the same text. Findings that are
// the same but for the root (and the rendered object's name and field,
// which overlays change, and the names an overlay's namePrefix or
// nameSuffix gives the objects a message names) become one naming every
// root (Rendered.Roots); those that differ (a patch of one overlay changed
// the value) stay apart, each naming its own root. Findings in a file that
// only one root renders are left as they are. fs are in run order, and so
// is the result; a merged finding keeps the text of the first root.
func mergeOverlays(fs []finding.Finding) []finding.Finding {
	roots := map[string][]string{} // file → roots rendering it, in order
	for i := range fs {
		f := &fs[i]
		if rs := roots[f.File]; !contains(rs, f.Rendered.Root) {
			roots[f.File] = append(rs, f.Rendered.Root)
		}
	}
	affixes := nameAffixes(fs, roots)
	out := fs[:0]
	first := map[string]int{} // key → index in out
	for i, f := range fs {
		if len(roots[f.File]) < 2 {
			out = append(out, f)
			continue
		}
		k := overlayKey(&f, affixes[i])
		if i, ok := first[k]; ok {
			r := *out[i].Rendered
			if !contains(r.Roots, f.Rendered.Root) {
				r.Roots = append(r.Roots[:len(r.Roots):len(r.Roots)], f.Rendered.Root)
			}
			out[i].Rendered = &r
			continue
		}
		r := *f.Rendered
		r.Roots = []string{r.Root}
		f.Rendered = &r
		first[k] = len(out)
		out = append(out, f)
	}
	return out
}

// affix is what a root's namePrefix (or nameSuffix) added to the names of
// the objects a finding is about: the object "dev-web" of the base's "web"
// has prefix "dev-", and the Service the finding's message names is
// "dev-web" where the base says "web".
type affix struct {
	text   string
	suffix bool
}

// nameAffixes finds, for each finding at a position that several roots
// report, the affix its root gave the object's name: the part of the name
// outside what the names of all those findings share (a common suffix when
// the overlays set prefixes, else a common prefix). Findings whose objects
// have one name, or names with nothing in common, get none.
func nameAffixes(fs []finding.Finding, roots map[string][]string) map[int]affix {
	groups := map[string][]int{}
	for i := range fs {
		if f := &fs[i]; len(roots[f.File]) >= 2 && f.Object != nil && f.Object.Name != "" {
			k := positionKey(f)
			groups[k] = append(groups[k], i)
		}
	}
	out := map[int]affix{}
	for _, g := range groups {
		names := make([]string, len(g))
		for j, i := range g {
			names[j] = fs[i].Object.Name
		}
		pre, suf := commonAffixes(names)
		for j, i := range g {
			n := names[j]
			switch {
			case pre == n || suf == n:
				// A root without a prefix: nothing to take away.
			case suf != "":
				out[i] = affix{text: n[:len(n)-len(suf)]}
			case pre != "":
				out[i] = affix{text: n[len(pre):], suffix: true}
			}
		}
	}
	return out
}

// commonAffixes are the longest prefix and the longest suffix that all
// names share, without the separator at their inner end; "" for both when
// all names are the same.
func commonAffixes(names []string) (pre, suf string) {
	pre, suf = names[0], names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, pre) {
			pre = pre[:len(pre)-1]
		}
		for !strings.HasSuffix(n, suf) {
			suf = suf[1:]
		}
	}
	if pre == names[0] {
		return "", ""
	}
	// The separator belongs to the affix (namePrefix "dev-"), so that a
	// suffix "-b" does not take the b off a quoted "web".
	return strings.TrimRight(pre, "-."), strings.TrimLeft(suf, "-.")
}

// positionKey is where a finding points and what it is about, without its
// text.
func positionKey(f *finding.Finding) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%d\x00%s\x00%d\x00%d\x00%s", f.RuleID, f.Severity, f.File, f.Line, f.Column, f.Container)
	for _, r := range f.Related {
		fmt.Fprintf(&b, "\x00%s\x00%d\x00%d", r.File, r.Line, r.Column)
	}
	return b.String()
}

// overlayKey is what two findings of different roots share when they are
// one problem of one file: the position and the text as printed (an
// approximate position's note names the rendered field), with the root's
// affix taken off the quoted names of the text.
func overlayKey(f *finding.Finding, a affix) string {
	var b strings.Builder
	b.WriteString(positionKey(f))
	fmt.Fprintf(&b, "\x00%s\x00%s", a.strip(f.Headline()), a.strip(f.Explanation()))
	for _, r := range f.Related {
		fmt.Fprintf(&b, "\x00%s", a.strip(r.Message))
	}
	return b.String()
}

// quoted is a name as messages quote it (%q).
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// strip takes the affix off every quoted name of s that starts (a prefix)
// or ends (a suffix) with it, leaving a mark where it was.
func (a affix) strip(s string) string {
	if a.text == "" {
		return s
	}
	return quoted.ReplaceAllStringFunc(s, func(q string) string {
		name := q[1 : len(q)-1]
		switch {
		case !a.suffix && strings.HasPrefix(name, a.text):
			return "\"\x01" + name[len(a.text):] + "\""
		case a.suffix && strings.HasSuffix(name, a.text):
			return "\"" + name[:len(name)-len(a.text)] + "\x01\""
		}
		return q
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
