package fix

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/alloctest"
)

// TestDiffApplies: applying the unified diff of random line edits to the
// old text gives the new one, with the hunk headers' counts checked on
// the way; equal texts have no diff.
func TestDiffApplies(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		var old []string
		for j := range rng.IntN(40) {
			old = append(old, "line "+strconv.Itoa(j%7)+"\n")
		}
		cur := append([]string(nil), old...)
		for range rng.IntN(5) {
			at := rng.IntN(len(cur) + 1)
			switch rng.IntN(3) {
			case 0:
				cur = append(cur[:at], append([]string{"new " + strconv.Itoa(rng.IntN(9)) + "\r\n"}, cur[at:]...)...)
			case 1:
				if at < len(cur) {
					cur = append(cur[:at], cur[at+1:]...)
				}
			default:
				if at < len(cur) {
					cur[at] = "changed\n"
				}
			}
		}
		a, b := strings.Join(old, ""), strings.Join(cur, "")
		if i%5 == 0 && len(b) > 0 {
			b = strings.TrimSuffix(b, "\n") // no line break at the end
		}
		d := Diff("x.yaml", []byte(a), []byte(b))
		if a == b {
			if d != "" {
				t.Fatalf("equal texts have a diff:\n%s", d)
			}
			continue
		}
		got, err := applyUnified(a, d)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, d)
		}
		if got != b {
			t.Fatalf("case %d: applying the diff gives\n%q\nwant\n%q\ndiff:\n%s", i, got, b, d)
		}
	}
}

// applyUnified applies a unified diff as patch would, checking each hunk's
// context and counts.
func applyUnified(old, diff string) (string, error) {
	a := splitLines(old)
	lines := strings.SplitAfter(diff, "\n")
	var out []string
	at := 0
	for i := 2; i < len(lines) && lines[i] != ""; {
		var as, an, bs, bn int
		h := strings.TrimSuffix(lines[i], "\n")
		if _, err := scanRange(h, &as, &an, &bs, &bn); err != nil {
			return "", err
		}
		start := as - 1
		if an == 0 {
			start = as
		}
		out = append(out, a[at:start]...)
		at = start
		i++
		gotA, gotB := 0, 0
		for i < len(lines) && lines[i] != "" && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			i++
			text := l[1:]
			if i < len(lines) && strings.HasPrefix(lines[i], "\\ No newline") {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch l[0] {
			case ' ':
				if a[at] != text {
					return "", fmt.Errorf("context %q does not match %q", text, a[at])
				}
				out = append(out, text)
				at++
				gotA++
				gotB++
			case '-':
				if a[at] != text {
					return "", fmt.Errorf("deleted %q does not match %q", text, a[at])
				}
				at++
				gotA++
			case '+':
				out = append(out, text)
				gotB++
			}
		}
		if gotA != an || gotB != bn {
			return "", fmt.Errorf("hunk %q has %d/%d lines", h, gotA, gotB)
		}
	}
	out = append(out, a[at:]...)
	return strings.Join(out, ""), nil
}

func scanRange(h string, as, an, bs, bn *int) (int, error) {
	var x, y string
	if _, err := fmt.Sscanf(h, "@@ -%s +%s @@", &x, &y); err != nil {
		return 0, err
	}
	parse := func(s string, start, n *int) {
		p, q, ok := strings.Cut(s, ",")
		*start, _ = strconv.Atoi(p)
		*n = 1
		if ok {
			*n, _ = strconv.Atoi(q)
		}
	}
	parse(x, as, an)
	parse(y, bs, bn)
	return 0, nil
}

// TestDiffShortest: the edit script behind the diff is a shortest one
// (its deleted and inserted lines are the lines outside a longest common
// subsequence, computed here the slow way), with the deleted lines of a
// change before its inserted ones, on random texts of few distinct lines,
// where many scripts tie.
func TestDiffShortest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		gen := func() []string {
			var out []string
			for range rng.IntN(30) {
				out = append(out, strconv.Itoa(rng.IntN(4))+"\n")
			}
			return out
		}
		a, b := gen(), gen()
		lcs := make([][]int, len(a)+1)
		for x := range lcs {
			lcs[x] = make([]int, len(b)+1)
		}
		for x := len(a) - 1; x >= 0; x-- {
			for y := len(b) - 1; y >= 0; y-- {
				if a[x] == b[y] {
					lcs[x][y] = lcs[x+1][y+1] + 1
				} else {
					lcs[x][y] = max(lcs[x+1][y], lcs[x][y+1])
				}
			}
		}
		ops := myers(a, b)
		changed := 0
		var gotA, gotB []string
		for k, o := range ops {
			if o.kind != ' ' {
				changed++
			}
			if o.kind == '-' && k > 0 && ops[k-1].kind == '+' {
				t.Fatalf("case %d: a deleted line follows an inserted one (diff prints deletions first)", i)
			}
			if o.kind != '+' {
				gotA = append(gotA, o.text)
			}
			if o.kind != '-' {
				gotB = append(gotB, o.text)
			}
		}
		if strings.Join(gotA, "") != strings.Join(a, "") || strings.Join(gotB, "") != strings.Join(b, "") {
			t.Fatalf("case %d: the script does not turn %q into %q", i, a, b)
		}
		if want := len(a) + len(b) - 2*lcs[0][0]; changed != want {
			t.Fatalf("case %d: %d lines deleted or inserted, want %d (shortest) for %q -> %q", i, changed, want, a, b)
		}
	}
}

// TestDiffMemoryLinear: the diff of a file with a change every few lines
// allocates about twice as much for twice the lines. The greedy form of
// Myers' algorithm kept (N+M)·D integers: a thousand fixes of a 330 KB
// file took 1.2 GB.
func TestDiffMemoryLinear(t *testing.T) {
	texts := func(n int) (string, string) {
		var a, b strings.Builder
		for i := range n {
			fmt.Fprintf(&a, "name: d%d\n  image: x\n  restartPolicy: OnFailure\n  replicas: 2\n", i)
			fmt.Fprintf(&b, "name: d%d\n  image: x\n  restartPolicy: Always\n  replicas: 2\n", i)
		}
		return a.String(), b.String()
	}
	cost := func(n int) uint64 {
		a, b := texts(n)
		var d string
		bytes := alloctest.Bytes(func() { d = Diff("x.yaml", []byte(a), []byte(b)) })
		if got := strings.Count(d, "\n+  restartPolicy: Always"); got != n {
			t.Fatalf("%d changes: the diff inserts %d restartPolicy lines", n, got)
		}
		return bytes
	}
	a, b := cost(1000), cost(2000)
	t.Logf("1000 changes: %d bytes; 2000: %d bytes (×%.2f)", a, b, float64(b)/float64(a))
	if float64(b) > 2.5*float64(a) {
		t.Errorf("twice the changes multiplied the bytes allocated by %.2f; want at most 2.5 (linear)", float64(b)/float64(a))
	}
}
