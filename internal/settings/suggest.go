package settings

import (
	"fmt"
	"strings"

	"github.com/podlint/podlint/rules"
)

// DidYouMean returns `; did you mean "x"?` for the candidate closest to s
// (at most two edits, or a prefix of three letters or more), or "".
func DidYouMean(s string, candidates []string) string {
	if best := Closest(s, candidates); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// Closest is the candidate closest to s, as DidYouMean chooses it, or "".
func Closest(s string, candidates []string) string {
	ls := strings.ToLower(strings.TrimSpace(s))
	if ls == "" {
		return ""
	}
	best, bestD := "", 3
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := levenshtein(ls, lc)
		if len(ls) >= 3 && strings.HasPrefix(lc, ls) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 30
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// RuleNames lists every rule ID and name, for suggestions and completion.
func RuleNames() []string {
	var out []string
	for _, r := range rules.All {
		out = append(out, r.ID, r.Name)
	}
	return out
}
