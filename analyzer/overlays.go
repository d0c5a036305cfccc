package analyzer

import (
	"fmt"
	"strings"

	"github.com/podlint/podlint/finding"
)

// mergeOverlays reports once what several roots find in one file: a
// kustomize base rendered through overlays dev and prod yields each of its
// findings twice, at the same place with the same text. Findings that are
// the same but for the root (and the rendered object's name and field,
// which overlays change) become one naming every root (Rendered.Roots);
// those that differ (a patch of one overlay changed the value) stay apart,
// each naming its own root. Findings in a file that only one root renders
// are left as they are. fs are in run order, and so is the result.
func mergeOverlays(fs []finding.Finding) []finding.Finding {
	roots := map[string][]string{} // file → roots rendering it, in order
	for i := range fs {
		f := &fs[i]
		if rs := roots[f.File]; !contains(rs, f.Rendered.Root) {
			roots[f.File] = append(rs, f.Rendered.Root)
		}
	}
	out := fs[:0]
	first := map[string]int{} // key → index in out
	for _, f := range fs {
		if len(roots[f.File]) < 2 {
			out = append(out, f)
			continue
		}
		k := overlayKey(&f)
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

// overlayKey is what two findings of different roots share when they are
// one problem of one file.
func overlayKey(f *finding.Finding) string {
	var b strings.Builder
	// The headline and detail as printed: an approximate position's note
	// names the rendered field.
	fmt.Fprintf(&b, "%s\x00%d\x00%s\x00%d\x00%d\x00%s\x00%s\x00%s", f.RuleID, f.Severity, f.File, f.Line, f.Column, f.Headline(), f.Explanation(), f.Container)
	for _, r := range f.Related {
		fmt.Fprintf(&b, "\x00%s\x00%d\x00%d\x00%s", r.File, r.Line, r.Column, r.Message)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
