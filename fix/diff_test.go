package fix

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
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
