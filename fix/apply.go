package fix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
)

// MaxPasses bounds how often File lints and fixes a file: a fix can make
// another finding fixable (or reveal one), so File repeats until nothing
// changes, as go/analysis drivers do, but never more than this.
const MaxPasses = 5

// Applied is a fix File applied, with the finding it resolved.
type Applied struct {
	Finding finding.Finding
	Fix     finding.Fix
}

// Skipped is a fix File did not apply, and why: its edits overlap those of
// a fix applied before it in the same pass and it no longer applied
// afterwards (a conflict), or it failed verification.
type Skipped struct {
	Finding finding.Finding
	Fix     finding.Fix
	Reason  string
}

// Result is what File did to one file.
type Result struct {
	Data    []byte // the file after the fixes (the input when none applied)
	Applied []Applied
	Skipped []Skipped
	// Findings are the file's findings after the fixes.
	Findings []finding.Finding
	Passes   int // the passes that applied something
}

// Changed reports whether a fix was applied.
func (r *Result) Changed() bool { return len(r.Applied) > 0 }

// Choose returns the fix of f that File applies at safety max: the first
// whose safety is at most max (Safe: only safe fixes; Unsafe: any), or nil.
func Choose(f *finding.Finding, max finding.FixSafety) *finding.Fix {
	for i := range f.Fixes {
		if f.Fixes[i].Safety <= max {
			return &f.Fixes[i]
		}
	}
	return nil
}

// File applies the fixes of the findings cfg reports in the file at path
// (bytes data) at safety max, pass after pass until none is left. In a
// pass, every candidate fix is verified on its own; verified fixes are
// then taken in finding order, skipping one whose edits overlap a fix
// already taken (it is tried again in the next pass, against the new
// text), and applied together; when the fixes taken together do not verify,
// only the first is applied.
func File(cfg *analyzer.Linter, path string, data []byte, max finding.FixSafety) *Result {
	return FileOnly(cfg, path, data, max, nil)
}

// FileOnly is File applying only the fixes of the findings fixable
// accepts (all when it is nil): `podlint fix --select` and the
// configuration's rules that are never fixed. The others are neither
// applied nor listed as skipped.
func FileOnly(cfg *analyzer.Linter, path string, data []byte, max finding.FixSafety, fixable func(*finding.Finding) bool) *Result {
	if fixable == nil {
		fixable = func(*finding.Finding) bool { return true }
	}
	res := &Result{Data: data}
	reasons := map[key]string{}
	findings, _ := cfg.File(path, data, true)
	for pass := 0; pass < MaxPasses; pass++ {
		ok := verifiedChoices(cfg, path, res.Data, findings, max, fixable, reasons)
		var taken []candidate
		var edits []finding.Edit
		for _, c := range ok {
			if overlaps(edits, c.x.Edits) {
				reasons[keyOf(c.f)] = "conflict: its edits overlap those of another fix"
				continue
			}
			taken = append(taken, c)
			edits = append(edits, c.x.Edits...)
		}
		if len(taken) == 0 {
			if p := firstPair(cfg, path, res.Data, findings, max, fixable, reasons); p != nil {
				res.Applied = append(res.Applied, p.applied...)
				for _, a := range p.applied {
					delete(reasons, keyOf(&a.Finding))
				}
				res.Data, findings = p.out, p.after
				res.Passes++
				continue
			}
			break
		}
		out, after, err := applyAll(cfg, path, res.Data, findings, edits, taken)
		if err != nil {
			// Fixes that pass alone may not pass together: apply the first
			// alone; the others are tried again in the next pass.
			taken = taken[:1]
			out, after, err = applyAll(cfg, path, res.Data, findings, taken[0].x.Edits, taken)
			if err != nil {
				reasons[keyOf(taken[0].f)] = "verification failed: " + err.Error()
				break
			}
		}
		for _, c := range taken {
			res.Applied = append(res.Applied, Applied{Finding: *c.f, Fix: *c.x})
			delete(reasons, keyOf(c.f))
		}
		res.Data = out
		res.Passes++
		findings = after
	}
	res.Findings = findings
	for i := range findings {
		f := &findings[i]
		x := Choose(f, max)
		if x == nil || !fixable(f) {
			continue
		}
		reason := reasons[keyOf(f)]
		if reason == "" {
			reason = fmt.Sprintf("still fixable after %d passes", MaxPasses)
		}
		res.Skipped = append(res.Skipped, Skipped{Finding: *f, Fix: *x, Reason: reason})
	}
	return res
}

// verifiedChoices returns, in finding order, the fix File applies to each
// finding of data: its first fix at safety max that passes verification.
// The alternatives of a finding are verified only when the fixes before
// them failed (a finding's first fix is the one its rule prefers), and the
// first failure is recorded in reasons.
func verifiedChoices(cfg *analyzer.Linter, path string, data []byte, findings []finding.Finding, max finding.FixSafety, fixable func(*finding.Finding) bool, reasons map[key]string) []candidate {
	chosen := make([]*finding.Fix, len(findings))
	next := make([]int, len(findings)) // the index of the finding's next fix to try
	failed := make([]bool, len(findings))
	for {
		var cands []Candidate
		var of []int
		for i := range findings {
			f := &findings[i]
			if !fixable(f) {
				continue
			}
			for chosen[i] == nil && next[i] < len(f.Fixes) {
				j := next[i]
				next[i]++
				if f.Fixes[j].Safety <= max {
					cands = append(cands, Candidate{f, &f.Fixes[j]})
					of = append(of, i)
					break
				}
			}
		}
		if len(cands) == 0 {
			break
		}
		for k, err := range VerifyAll(cfg, path, data, findings, cands) {
			if err != nil {
				if !failed[of[k]] {
					failed[of[k]] = true
					reasons[keyOf(cands[k].Finding)] = "verification failed: " + err.Error()
				}
				continue
			}
			chosen[of[k]] = cands[k].Fix
		}
	}
	var ok []candidate
	for i, x := range chosen {
		if x != nil {
			ok = append(ok, candidate{&findings[i], x})
		}
	}
	return ok
}

// applyAll applies edits (of the fixes taken) and checks the result as
// Verify checks one fix: only the fixes' paths change, every finding they
// resolve is gone and no finding is new.
func applyAll(cfg *analyzer.Linter, path string, data []byte, before []finding.Finding, edits []finding.Edit, taken []candidate) ([]byte, []finding.Finding, error) {
	all := finding.Fix{Edits: slices.Clone(edits)}
	for _, c := range taken {
		all.Paths = append(all.Paths, c.x.Paths...)
	}
	out, after, err := newChecker(cfg, path, data, before).verify(taken[0].f, &all)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range taken[1:] {
		for i := range after {
			if sameFinding(&after[i], c.f) {
				return nil, nil, fmt.Errorf("finding %s at line %d is still there", c.f.RuleID, c.f.Line)
			}
		}
	}
	return out, after, nil
}

// overlaps reports whether any edit of b overlaps one of a (an insertion at
// the start or end of another edit counts: the order would be a guess).
func overlaps(a, b []finding.Edit) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Start < y.End && y.Start < x.End || x.Start == y.Start || x.End == y.Start && y.Start == y.End || y.End == x.Start && x.Start == x.End {
				return true
			}
		}
	}
	return false
}

// candidate is a finding and the fix File would apply to it.
type candidate struct {
	f *finding.Finding
	x *finding.Fix
}

// pair is a fix applied together with the fixes of the findings it adds.
type pair struct {
	out     []byte
	after   []finding.Finding
	applied []Applied
}

// firstPair returns the first fix of the findings of data that failed
// verification only because it adds findings that have fixes of their
// own, applied with those fixes and verified as one fix; nil when there is
// none. A startup probe PL103 adds can make a readiness
// initialDelaySeconds pointless (PL104), whose fix removes it: either
// alone is refused, the two together are what the user wants.
func firstPair(cfg *analyzer.Linter, path string, data []byte, findings []finding.Finding, max finding.FixSafety, fixable func(*finding.Finding) bool, reasons map[key]string) *pair {
	for i := range findings {
		f := &findings[i]
		if !fixable(f) || !strings.HasPrefix(reasons[keyOf(f)], "verification failed: the fix adds finding") {
			continue
		}
		for j := range f.Fixes {
			if f.Fixes[j].Safety > max {
				continue
			}
			if p := pairOf(cfg, path, data, findings, f, &f.Fixes[j], max, fixable); p != nil {
				return p
			}
		}
	}
	return nil
}

// pairOf applies x, the fix of f, then the first fix at safety max of each
// finding x adds, and checks the result as Verify checks one fix: the
// documents differ only at the fixes' paths, f and the added findings are
// gone and no finding is new.
func pairOf(cfg *analyzer.Linter, path string, data []byte, before []finding.Finding, f *finding.Finding, x *finding.Fix, max finding.FixSafety, fixable func(*finding.Finding) bool) *pair {
	c := newChecker(cfg, path, data, before)
	if _, _, err := c.local(x); err != nil {
		return nil
	}
	edits, err := sorted(x.Edits)
	if err != nil {
		return nil
	}
	mid, err := finding.ApplyEdits(data, edits)
	if err != nil {
		return nil
	}
	midFindings, _ := cfg.File(path, mid, true)
	added := newFindings(before, midFindings)
	if len(added) == 0 {
		return nil
	}
	var cands []Candidate
	for i := range added {
		y := Choose(&added[i], max)
		if y == nil || !fixable(&added[i]) {
			return nil
		}
		cands = append(cands, Candidate{&added[i], y})
	}
	var second []finding.Edit
	paths := slices.Clone(x.Paths)
	for k, err := range VerifyAll(cfg, path, mid, midFindings, cands) {
		if err != nil || overlaps(second, cands[k].Fix.Edits) {
			return nil
		}
		second = append(second, cands[k].Fix.Edits...)
		paths = append(paths, cands[k].Fix.Paths...)
	}
	if second, err = sorted(second); err != nil {
		return nil
	}
	out, err := finding.ApplyEdits(mid, second)
	if err != nil || c.stillJSON(out) != nil || sameExceptAt(data, out, paths) != nil {
		return nil
	}
	after, _ := cfg.File(path, out, true)
	if len(newFindings(before, after)) > 0 {
		return nil
	}
	for i := range after {
		if sameFinding(&after[i], f) {
			return nil
		}
	}
	p := &pair{out: out, after: after, applied: []Applied{{Finding: *f, Fix: *x}}}
	for _, cand := range cands {
		p.applied = append(p.applied, Applied{Finding: *cand.Finding, Fix: *cand.Fix})
	}
	return p
}
