package finding

import "sort"

// Store holds many findings compactly, for a run that lints a large
// corpus: a Finding is about 220 bytes of fields, most of them strings that
// many findings share (the same message, detail, rule, file and source
// line); here each finding is a 52-byte record of indexes into tables that
// hold every distinct string and object reference once, kept in chunks so
// that growing never copies the records already held.
type Store struct {
	strs    []string
	strIDs  map[string]uint32
	rules   [][2]string // ID, name
	ruleIDs map[[2]string]uint16
	objs    []*ObjectRef
	objIDs  map[ObjectRef]uint32
	extras  []extra
	chunks  [][]record
	n       int
	// unsorted is set when a finding was added out of Less order and the
	// store was not sorted since: the zero value, empty, is sorted.
	unsorted bool
}

// record is one finding; strings are indexes into strs (0 is ""), obj and
// extra are 1-based indexes (0: none).
type record struct {
	file, message, detail, path, container, source uint32
	line, column, cut, cutRunes                    int32
	obj, extra                                     uint32
	rule                                           uint16
	severity                                       sev8
}

// sev8 is a Severity in a byte.
type sev8 uint8

// extra holds the fields few findings have.
type extra struct {
	locMessage string
	related    []Location
	rendered   *RenderOrigin
	fixes      []Fix
}

const chunkSize = 1024

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{strs: []string{""}, strIDs: map[string]uint32{"": 0}, ruleIDs: map[[2]string]uint16{}, objIDs: map[ObjectRef]uint32{}}
}

func (s *Store) str(v string) uint32 {
	if id, ok := s.strIDs[v]; ok {
		return id
	}
	id := uint32(len(s.strs))
	s.strs = append(s.strs, v)
	s.strIDs[v] = id
	return id
}

// Add appends a copy of f. Related locations, Rendered and Fixes are kept as
// they are (not copied): f must not change them afterwards.
func (s *Store) Add(f *Finding) {
	rk := [2]string{f.RuleID, f.RuleName}
	rule, ok := s.ruleIDs[rk]
	if !ok {
		rule = uint16(len(s.rules))
		s.rules = append(s.rules, rk)
		s.ruleIDs[rk] = rule
	}
	r := record{file: s.str(f.File), message: s.str(f.Message), detail: s.str(f.Detail), path: s.str(f.Path),
		container: s.str(f.Container), source: s.str(f.SourceLine),
		line: int32(f.Line), column: int32(f.Column), cut: int32(f.SourceCut), cutRunes: int32(f.SourceCutRunes),
		rule: rule, severity: sev8(f.Severity)}
	if f.Object != nil {
		id, ok := s.objIDs[*f.Object]
		if !ok {
			ref := *f.Object
			s.objs = append(s.objs, &ref)
			id = uint32(len(s.objs))
			s.objIDs[ref] = id
		}
		r.obj = id
	}
	if f.Location.Message != "" || len(f.Related) > 0 || f.Rendered != nil || len(f.Fixes) > 0 {
		s.extras = append(s.extras, extra{locMessage: f.Location.Message, related: f.Related, rendered: f.Rendered, fixes: f.Fixes})
		r.extra = uint32(len(s.extras))
	}
	if s.n > 0 && s.less(&r, s.rec(s.n-1)) {
		s.unsorted = true
	}
	s.push(r)
}

// push appends a record, starting a chunk when the last one is full.
func (s *Store) push(r record) {
	if s.n%chunkSize == 0 {
		s.chunks = append(s.chunks, make([]record, 0, chunkSize))
	}
	last := len(s.chunks) - 1
	s.chunks[last] = append(s.chunks[last], r)
	s.n++
}

// Len is the number of findings held.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	return s.n
}

func (s *Store) rec(i int) *record { return &s.chunks[i/chunkSize][i%chunkSize] }

// At returns finding i. Its Object, Related, Rendered and Fixes are shared with
// the store and must not be changed.
func (s *Store) At(i int) Finding {
	r := s.rec(i)
	rule := s.rules[r.rule]
	f := Finding{RuleID: rule[0], RuleName: rule[1], Severity: Severity(r.severity),
		Location:  Location{File: s.strs[r.file], Line: int(r.line), Column: int(r.column)},
		Container: s.strs[r.container], Message: s.strs[r.message], Detail: s.strs[r.detail], Path: s.strs[r.path],
		SourceLine: s.strs[r.source], SourceCut: int(r.cut), SourceCutRunes: int(r.cutRunes)}
	if r.obj != 0 {
		f.Object = s.objs[r.obj-1]
	}
	if r.extra != 0 {
		e := &s.extras[r.extra-1]
		f.Location.Message, f.Related, f.Rendered, f.Fixes = e.locMessage, e.related, e.rendered, e.fixes
	}
	return f
}

// Severity returns the severity of finding i without unpacking it.
func (s *Store) Severity(i int) Severity { return Severity(s.rec(i).severity) }

// less is Less on records.
func (s *Store) less(a, b *record) bool {
	if a.file != b.file {
		return s.strs[a.file] < s.strs[b.file]
	}
	if a.line != b.line {
		return a.line < b.line
	}
	if a.column != b.column {
		return a.column < b.column
	}
	if a.rule != b.rule {
		if ra, rb := s.rules[a.rule][0], s.rules[b.rule][0]; ra != rb {
			return ra < rb
		}
	}
	return s.strs[a.message] < s.strs[b.message]
}

type byLess struct{ *Store }

func (s byLess) Less(i, j int) bool { return s.less(s.rec(i), s.rec(j)) }
func (s byLess) Swap(i, j int)      { a, b := s.rec(i), s.rec(j); *a, *b = *b, *a }

// Sort orders the findings with Less, keeping the order of equal ones.
// A store whose findings were added in order is not touched.
func (s *Store) Sort() {
	if s.unsorted {
		sort.Stable(byLess{s})
		s.unsorted = false
	}
}

// Sorted reports whether the findings are in Less order: each was added in
// order, or the store was sorted after the last that was not. It is kept
// as findings are added, so asking costs nothing.
func (s *Store) Sorted() bool { return s == nil || !s.unsorted }

// Keep drops, in place and in order, the findings for which keep is
// false.
func (s *Store) Keep(keep func(f *Finding) bool) {
	out := 0
	for i := range s.n {
		f := s.At(i)
		if keep(&f) {
			*s.rec(out) = *s.rec(i)
			out++
		}
	}
	s.truncate(out)
}

// KeepSeverity returns a store holding the findings of s at or above min,
// in order; it shares the tables of s.
func (s *Store) KeepSeverity(min Severity) *Store {
	out := &Store{strs: s.strs, strIDs: s.strIDs, rules: s.rules, ruleIDs: s.ruleIDs, objs: s.objs, objIDs: s.objIDs, extras: s.extras,
		unsorted: s.unsorted}
	for i := range s.n {
		r := s.rec(i)
		if Severity(r.severity) >= min {
			out.push(*r)
		}
	}
	return out
}

func (s *Store) truncate(n int) {
	s.n = n
	keep := (n + chunkSize - 1) / chunkSize
	clear(s.chunks[keep:])
	s.chunks = s.chunks[:keep]
	if keep > 0 {
		s.chunks[keep-1] = s.chunks[keep-1][:n-(keep-1)*chunkSize]
	}
}

// SetFixes replaces the fixes of finding i, which must have had some
// (a finding without fixes has no room for them).
func (s *Store) SetFixes(i int, fixes []Fix) {
	r := s.rec(i)
	if r.extra == 0 {
		return
	}
	s.extras[r.extra-1].fixes = fixes
}

// SetFixes replaces the fixes of finding i of the result (see
// Store.SetFixes).
func (r *Result) SetFixes(i int, fixes []Fix) {
	if i < len(r.Findings) {
		r.Findings[i].Fixes = fixes
		return
	}
	r.Packed.SetFixes(i-len(r.Findings), fixes)
}
