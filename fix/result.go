package fix

import (
	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
)

// VerifyResult verifies every fix of every finding of res, as a report
// offers them, and drops those that fail (see VerifyAll). read returns a
// file's bytes as the run read them; a file it cannot read loses its
// fixes.
func VerifyResult(cfg *analyzer.Linter, res *finding.Result, read func(path string) ([]byte, error)) (dropped int) {
	return verifyResult(cfg, res, read, nil)
}

// verifyResult is VerifyResult for the findings that only accepts (all
// when it is nil).
func verifyResult(cfg *analyzer.Linter, res *finding.Result, read func(path string) ([]byte, error), only func(*finding.Finding) bool) (dropped int) {
	type fixOf struct{ finding, fix int }
	var files []string
	byFile := map[string][]fixOf{}
	found := map[int]finding.Finding{}
	for i := range res.Len() {
		f := res.At(i)
		if len(f.Fixes) == 0 || only != nil && !only(&f) {
			continue
		}
		if _, ok := byFile[f.File]; !ok {
			files = append(files, f.File)
		}
		found[i] = f
		for j := range f.Fixes {
			byFile[f.File] = append(byFile[f.File], fixOf{i, j})
		}
	}
	keep := map[int][]finding.Fix{}
	for _, path := range files {
		fixes := byFile[path]
		data, err := read(path)
		if err != nil {
			dropped += len(fixes)
			for _, x := range fixes {
				keep[x.finding] = keep[x.finding][:0:0]
			}
			continue
		}
		cands := make([]Candidate, len(fixes))
		for k, x := range fixes {
			f := found[x.finding]
			cands[k] = Candidate{&f, &f.Fixes[x.fix]}
		}
		// The whole file is linted again only for a fix that its
		// document alone cannot verify: most fixes cost their document.
		c := newChecker(cfg, path, data, nil)
		c.lazy = true
		for k, err := range c.verifyAll(cands) {
			i := fixes[k].finding
			if _, ok := keep[i]; !ok {
				keep[i] = []finding.Fix{}
			}
			if err != nil {
				dropped++
				continue
			}
			keep[i] = append(keep[i], *cands[k].Fix)
		}
	}
	for i, fixes := range keep {
		if len(fixes) != len(found[i].Fixes) {
			if len(fixes) == 0 {
				fixes = nil
			}
			res.SetFixes(i, fixes)
		}
	}
	return dropped
}
