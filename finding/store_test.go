package finding

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestStoreRoundTrip: a finding comes out of the store as it went in, and
// the store sorts, filters and counts as the slice functions do.
func TestStoreRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	obj := &ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: "web"}
	var want []Finding
	for i := range 3000 { // several chunks
		f := Finding{RuleID: pick("PL101", "PL102", "PL705"), Severity: Severity(1 + rng.IntN(3)),
			Location: Location{File: pick("a.yaml", "b/c.yaml", "a-b.yaml"), Line: 1 + rng.IntN(50), Column: 1 + rng.IntN(9)},
			Message:  pick("one", "two", ""), Detail: fmt.Sprint(rng.IntN(4)), Path: pick("", "spec.template"),
			Container: pick("", "app"), SourceLine: pick("  image: x", ""), SourceCut: rng.IntN(3), SourceCutRunes: rng.IntN(3)}
		f.RuleName = "name-" + f.RuleID
		if i%3 == 0 {
			f.Object = obj
		}
		if i%7 == 0 {
			f.Related = []Location{{File: "s.yaml", Line: 3, Column: 1, Message: "selects"}}
			f.Location.Message = "here"
		}
		if i%11 == 0 {
			f.Rendered = &RenderOrigin{Root: "chart", Name: "chart/templates/d.yaml"}
		}
		if i%13 == 0 {
			f.Fixes = []Fix{{Title: "Set x to 1", Safety: Safe, Paths: []string{"spec.x"},
				Edits: []Edit{{File: f.File, Start: i, End: i + 1, StartLine: 2, StartColumn: 4, EndLine: 2, EndColumn: 5, NewText: "1"}}}}
		}
		want = append(want, f)
	}
	s := NewStore()
	for i := range want {
		s.Add(&want[i])
	}
	res := &Result{Packed: s}
	if !reflect.DeepEqual(res.List(), want) {
		t.Fatal("findings changed in the store")
	}
	e, w, i := res.Counts()
	we, ww, wi := (&Result{Findings: want}).Counts()
	if e != we || w != ww || i != wi {
		t.Errorf("counts %d/%d/%d, want %d/%d/%d", e, w, i, we, ww, wi)
	}

	sorted := slices.Clone(want)
	slices.SortStableFunc(sorted, func(a, b Finding) int { return Compare(&a, &b) })
	if s.Sorted() || res.Sorted() {
		t.Fatal("a store of findings added out of order says it is sorted")
	}
	s.Sort()
	if !s.Sorted() || !res.Sorted() || !reflect.DeepEqual(res.List(), sorted) {
		t.Fatal("the store sorts differently from a stable sort with Less")
	}

	inOrder := NewStore()
	for i := range sorted {
		inOrder.Add(&sorted[i])
	}
	if !inOrder.Sorted() {
		t.Error("a store of findings added in Less order says it is not sorted")
	}
	mixed := &Result{Findings: sorted[:10], Packed: inOrder}
	if mixed.Sorted() || !(&Result{Findings: sorted}).Sorted() || (&Result{Findings: want}).Sorted() {
		t.Error("Result.Sorted is wrong about findings held as values, or both ways")
	}

	warn := s.KeepSeverity(Warning)
	var wantWarn []Finding
	for _, f := range sorted {
		if f.Severity >= Warning {
			wantWarn = append(wantWarn, f)
		}
	}
	if !reflect.DeepEqual((&Result{Packed: warn}).List(), wantWarn) {
		t.Error("KeepSeverity kept other findings")
	}

	s.Keep(func(f *Finding) bool { return f.RuleID != "PL102" })
	kept := slices.DeleteFunc(slices.Clone(sorted), func(f Finding) bool { return f.RuleID == "PL102" })
	if !reflect.DeepEqual(res.List(), kept) {
		t.Error("Keep kept other findings")
	}
	s.Add(&want[0]) // after Keep, into a partly filled chunk
	if got := s.At(s.Len() - 1); !reflect.DeepEqual(got, want[0]) {
		t.Error("Add after Keep")
	}
}

// TestFixSafetyText: a fix's safety reads back what it writes, and no
// other value is written.
func TestFixSafetyText(t *testing.T) {
	for _, s := range []FixSafety{Safe, Unsafe} {
		b, err := s.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back FixSafety
		if err := back.UnmarshalText(b); err != nil || back != s {
			t.Errorf("%v: read back %v, %v", s, back, err)
		}
	}
	if _, err := FixSafety(0).MarshalText(); err == nil {
		t.Error("safety 0 marshalled")
	}
	var s FixSafety
	if err := s.UnmarshalText([]byte("maybe")); err == nil {
		t.Error(`"maybe" unmarshalled`)
	}
	f := Finding{Fixes: []Fix{{Safety: Unsafe}}}
	if f.HasFix(Safe) || !f.HasFix(Unsafe) {
		t.Error("HasFix: an unsafe fix counted as safe, or not at all")
	}
}

// TestWholeLines: the whole-line form of random edits makes the same text
// as the edits, starts at line starts and ends at line starts (or at the
// end of a last line without a break), and counts lines as the text does.
func TestWholeLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 2000 {
		var b []byte
		for range rng.IntN(12) {
			b = append(b, []string{"a: 1", "bb", "", "ü: 日本"}[rng.IntN(4)]...)
			b = append(b, []string{"\n", "\r\n", "\r"}[n%3]...)
		}
		if rng.IntN(3) == 0 {
			b = append(b, "tail"...)
		}
		var edits []Edit
		at := 0
		for at < len(b) && rng.IntN(3) > 0 {
			s := at + rng.IntN(len(b)-at+1)
			e := s + rng.IntN(len(b)-s+1)
			if e-s > 6 {
				e = s + 6
			}
			if inCRLF(b, s) || inCRLF(b, e) {
				break // edits never split a line break
			}
			edits = append(edits, Edit{File: "f", Start: s, End: e, NewText: []string{"", "x", "y\n", "z: 2\r\n"}[rng.IntN(4)]})
			at = e + 1
		}
		if !SortEdits(edits) {
			continue
		}
		want, err := ApplyEdits(b, edits)
		if err != nil {
			t.Fatal(err)
		}
		lines := WholeLines(b, 0, edits)
		got, err := ApplyEdits(b, lines)
		if err != nil {
			t.Fatalf("%q %+v: %v", b, lines, err)
		}
		if string(got) != string(want) {
			t.Fatalf("%q with %+v: whole lines %+v give %q, want %q", b, edits, lines, got, want)
		}
		for _, l := range lines {
			if l.NewText == "" && len(want) > 0 {
				t.Fatalf("%q: line edit %+v deletes lines without a neighbour", b, l)
			}
			if l.Start > 0 && b[l.Start-1] != '\n' && b[l.Start-1] != '\r' {
				t.Fatalf("%q: line edit %+v does not start a line", b, l)
			}
			if l.End < len(b) && b[l.End-1] != '\n' && b[l.End-1] != '\r' {
				t.Fatalf("%q: line edit %+v does not end at a line start", b, l)
			}
			if l.StartLine != 1+countBreaks(b[:l.Start]) || (l.EndColumn == 1 && l.EndLine != 1+countBreaks(b[:l.End])) {
				t.Fatalf("%q: line edit %+v has wrong line numbers", b, l)
			}
		}
	}
}

func inCRLF(b []byte, off int) bool {
	return off > 0 && off < len(b) && b[off-1] == '\r' && b[off] == '\n'
}
