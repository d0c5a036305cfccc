package fix

import (
	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
)

// VerifyResult verifies every fix of every finding of res, as a report
// offers them, and drops those that fail (see Verify). read returns a
// file's bytes as the run read them; a file it cannot read loses its
// fixes. Each file with fixes is linted once more, and once per fix.
func VerifyResult(cfg *analyzer.Linter, res *finding.Result, read func(path string) ([]byte, error)) (dropped int) {
	type file struct {
		data   []byte
		before []finding.Finding
		err    error
	}
	files := map[string]*file{}
	for i := range res.Len() {
		f := res.At(i)
		if len(f.Fixes) == 0 {
			continue
		}
		fl, ok := files[f.File]
		if !ok {
			fl = &file{}
			fl.data, fl.err = read(f.File)
			if fl.err == nil {
				fl.before, _ = cfg.File(f.File, fl.data, true)
			}
			files[f.File] = fl
		}
		var keep []finding.Fix
		for j := range f.Fixes {
			x := &f.Fixes[j]
			if fl.err == nil {
				if _, err := Verify(cfg, f.File, fl.data, fl.before, &f, x); err == nil {
					keep = append(keep, *x)
					continue
				}
			}
			dropped++
		}
		if len(keep) != len(f.Fixes) {
			res.SetFixes(i, keep)
		}
	}
	return dropped
}
