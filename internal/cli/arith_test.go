package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDetailArithmeticAddsUp parses every equation ("TERM + TERM = DURATION",
// the forms rules/arith.go defines) in the details of the example, sample
// and corpus goldens and checks that the terms add up to the result, to
// the second the result is rounded to. A term is a duration, or a product
// "N × DURATION" whose factor may be "(N − 1)"; words around the numbers
// name them.
func TestDetailArithmeticAddsUp(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "output", "*.json.golden"))
	checked := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ Findings []struct{ ID, Detail string } }
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, fd := range out.Findings {
			for _, eq := range equations(fd.Detail) {
				checked++
				sum, result, err := evalEquation(eq)
				if err != nil {
					t.Errorf("%s %s: cannot read %q: %v", f, fd.ID, eq, err)
				} else if math.Abs(sum-result) > 0.5 {
					t.Errorf("%s %s: %q does not add up: the terms make %gs", f, fd.ID, eq, sum)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no equation in the goldens: the test checks nothing")
	}
	t.Logf("%d equations add up", checked)
}

// equations returns each "… = DURATION" of a detail, from the start of
// its clause (after ": ", ", ", "; ", an unmatched "(" or the sentence
// start) to the duration.
func equations(detail string) []string {
	var out []string
	for _, m := range regexp.MustCompile(` = (`+durationRE+`)`).FindAllStringSubmatchIndex(detail, -1) {
		depth, start := 0, 0
		for i := m[0] - 1; i >= 0; i-- {
			c := detail[i]
			if c == ')' {
				depth++
			} else if c == '(' {
				if depth == 0 {
					start = i + 1
					break
				}
				depth--
			} else if depth == 0 && i+1 < len(detail) && detail[i+1] == ' ' && strings.ContainsRune(":,;.", rune(c)) {
				start = i + 2
				break
			}
		}
		out = append(out, detail[start:m[1]])
	}
	return out
}

const durationRE = `(?:\d+(?:\.\d+)?[dhms])+`

var (
	durationToken = regexp.MustCompile(`\b` + durationRE + `\b`)
	factorMinus   = regexp.MustCompile(`\((?:[A-Za-z]+ )?(\d+) − (\d+)\)`)
	lastNumber    = regexp.MustCompile(`(\d+(?:\.\d+)?)\D*$`)
)

func seconds(d string) float64 {
	total := 0.0
	for _, m := range regexp.MustCompile(`(\d+(?:\.\d+)?)([dhms])`).FindAllStringSubmatch(d, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		total += v * map[string]float64{"d": 86400, "h": 3600, "m": 60, "s": 1}[m[2]]
	}
	return total
}

func evalEquation(eq string) (sum, result float64, err error) {
	lhs, rhs, _ := strings.Cut(eq, " = ")
	result = seconds(rhs)
	depth, last := 0, 0
	var terms []string
	for i := 0; i < len(lhs); i++ {
		switch {
		case lhs[i] == '(':
			depth++
		case lhs[i] == ')':
			depth--
		case depth == 0 && strings.HasPrefix(lhs[i:], " + "):
			terms = append(terms, lhs[last:i])
			last = i + 3
		}
	}
	terms = append(terms, lhs[last:])
	for _, term := range terms {
		left, right, product := strings.Cut(term, " × ")
		if !product {
			d := durationToken.FindString(term)
			if d == "" {
				return 0, 0, strconv.ErrSyntax
			}
			sum += seconds(d)
			continue
		}
		var factor float64
		if m := factorMinus.FindStringSubmatch(left); m != nil {
			a, _ := strconv.ParseFloat(m[1], 64)
			b, _ := strconv.ParseFloat(m[2], 64)
			factor = a - b
		} else if m := lastNumber.FindStringSubmatch(left); m != nil {
			factor, _ = strconv.ParseFloat(m[1], 64)
		} else {
			return 0, 0, strconv.ErrSyntax
		}
		d := durationToken.FindString(right)
		if d == "" {
			return 0, 0, strconv.ErrSyntax
		}
		sum += factor * seconds(d)
	}
	return sum, result, nil
}

// TestEquationReader holds the reader itself to the forms: it must accept
// and check each, and catch a sum with a hidden term.
func TestEquationReader(t *testing.T) {
	for _, c := range []struct {
		detail string
		ok     bool
	}{
		{"It allows start-up until 20m1s: the kubelet's 1s latency (initialDelaySeconds is 0s) + failureThreshold 120 × periodSeconds 10s = 20m1s.", true},
		{"Set it (for example periodSeconds 10s with failureThreshold 10, which guarantees initialDelaySeconds 0s + (failureThreshold 10 − 1) × periodSeconds 10s = 90s).", true},
		{"The budget is initialDelaySeconds 30s + (failureThreshold 12 − 1) × periodSeconds 5s = 85s; more.", true},
		{"It allows start-up until 5m1s: initialDelaySeconds 0s + failureThreshold 30 × periodSeconds 10s = 5m1s.", false},
		{"For example failureThreshold 10 × periodSeconds 10s = 90s.", false},
	} {
		eqs := equations(c.detail)
		if len(eqs) != 1 {
			t.Fatalf("%q: equations %q", c.detail, eqs)
		}
		sum, result, err := evalEquation(eqs[0])
		if ok := err == nil && math.Abs(sum-result) <= 0.5; ok != c.ok {
			t.Errorf("%q: read as %g = %g (%v), want ok %v", eqs[0], sum, result, err, c.ok)
		}
	}
}
