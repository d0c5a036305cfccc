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

// TestDetailArithmeticAddsUp reads every finding of the example, sample
// and corpus goldens (internal/cli/testdata/output) and of the report
// goldens (report/testdata/golden) sentence by sentence, in the forms
// rules/arith.go defines:
//
//   - every equation "TERM + TERM = DURATION" must add up, to the second
//     its result is rounded to;
//   - every other duration (a range's ends "34s–45s" included) must be
//     the result of an equation of the same finding, or a value the
//     manifest states, restated after its field name ("periodSeconds 10s",
//     "the default grace period of 30s", statedBefore);
//
// a sentence with a duration that is neither fails the test, unless it
// matches one of the forms listed in unexplained, each with its reason.
func TestDetailArithmeticAddsUp(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "output", "*.json.golden"))
	reports, _ := filepath.Glob(filepath.Join("..", "..", "report", "testdata", "golden", "*.json.golden"))
	files = append(files, reports...)
	checked := 0
	used := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Findings []struct{ ID, Message, Detail string }
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, fd := range out.Findings {
			var results []float64
			for _, eq := range equations(fd.Detail) {
				checked++
				sum, result, err := evalEquation(eq)
				if err != nil {
					t.Errorf("%s %s: cannot read %q: %v", f, fd.ID, eq, err)
				} else if math.Abs(sum-result) > 0.5 {
					t.Errorf("%s %s: %q does not add up: the terms make %gs", f, fd.ID, eq, sum)
				}
				results = append(results, result)
			}
			sentences := append(splitSentences(fd.Detail), fd.Message)
			for _, s := range sentences {
				results = append(results, statedValues(s)...)
			}
			for _, s := range sentences {
				bare := unexplainedDurations(fd.ID, s, results, used)
				if len(bare) == 0 {
					continue
				}
				t.Errorf("%s %s: %q: %s neither the result of an equation of the finding nor a stated value (rules/arith.go lists the forms)", f, fd.ID, s, strings.Join(bare, ", "))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no equation in the goldens: the test checks nothing")
	}
	for _, u := range unexplained {
		if !used[u.reason] {
			t.Errorf("the form %q (%s) matches no sentence of the goldens any more: remove it", u.form, u.reason)
		}
	}
	t.Logf("%d equations add up; %d listed forms used", checked, len(used))
}

// unexplained lists the parts of sentences (a rule and a regexp) whose
// durations no equation derives, each with why that is right; durations
// outside the matched part still need an explanation. A new entry needs a
// reason here or, better, an equation.
var unexplained = []struct {
	rule, form, reason string
}{
	{"PL304", `waits 10s, 20s, 40s, 80s, … \(doubling, capped at \d+s\)`,
		"the Job controller's back-off (docs/semantics.md F-12): constants of Kubernetes, listed as the terms the sums of the sentence use"},
	{"PL101", `each run lasts \S+ from start to exit and the restarts wait [^;]+;`,
		"the timeline's restart schedule of a container unhealthy at every start (livenessProbe.unhealthyRestarts, docs/semantics.md R-3 liveness kills): the hull over every run length in the kill window, which no sum of the detail gives; TestPL101ConsequenceIsTheSchedule (rules) holds it to the timeline's"},
}

// splitSentences splits a detail after ". " before a capital letter or a
// quote, the way the rules write them.
func splitSentences(detail string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(detail); i++ {
		if detail[i] == '.' && detail[i+1] == ' ' && (detail[i+2] >= 'A' && detail[i+2] <= 'Z' || detail[i+2] == '"') {
			out = append(out, detail[start:i+1])
			start = i + 2
		}
	}
	return append(out, detail[start:])
}

var (
	// anyDuration is a duration in the one style; durationsIn keeps those
	// that are words of their own.
	anyDuration = regexp.MustCompile(`(?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d+)?(?:ms|s))|\d+h(?:\d+m)?|\d+m`)
	// statedBefore is what precedes a value the manifest states, restated
	// as written: a *Seconds field, a probe's timing, a sleep, the
	// expected start-up, a default.
	statedBefore = regexp.MustCompile(`(?:[a-zA-Z]+Seconds \(|(?:[a-zA-Z]+Seconds(?: is| of| to)?|timeout|timeout of|period of|every|sleep|sleeps|runs|grace period of|expected start-up of|expected to need|podlint\.dev/expected-startup:?) )$`)
	// statedAfter is what follows a value a default or a constant of the
	// kubelet states: "30s by default", "2s later (its minimum)", a
	// readiness initialDelaySeconds named after its value.
	statedAfter = regexp.MustCompile(`^(?: by default| later \(its minimum\)| after SIGTERM \(its minimum\)| on deletion| \(readiness initialDelaySeconds\))`)
)

// stated reports whether the duration at s[a:b] is a stated value.
func stated(s string, a, b int) bool {
	return statedBefore.MatchString(s[:a]) || statedAfter.MatchString(s[b:])
}

// statedValues are the values of a sentence's durations that follow a
// field name (statedBefore): a later restatement of one needs no
// equation.
func statedValues(s string) []float64 {
	var out []float64
	for _, m := range durationsIn(s) {
		if stated(s, m[0], m[1]) {
			out = append(out, seconds(s[m[0]:m[1]]))
		}
	}
	return out
}

// unexplainedDurations returns the durations of a sentence outside its
// equations and outside the listed forms of its rule (unexplained) that
// are neither a result of one nor a stated value (known, to the half
// second a result is rounded to); used collects the reasons of the forms
// that matched.
func unexplainedDurations(id, s string, known []float64, used map[string]bool) []string {
	covered := make([]bool, len(s))
	for _, u := range unexplained {
		if u.rule != id {
			continue
		}
		for _, m := range regexp.MustCompile(u.form).FindAllStringIndex(s, -1) {
			used[u.reason] = true
			for j := m[0]; j < m[1]; j++ {
				covered[j] = true
			}
		}
	}
	for _, eq := range equations(s) {
		if i := strings.Index(s, eq); i >= 0 {
			for j := i; j < i+len(eq); j++ {
				covered[j] = true
			}
		}
	}
	var bare []string
	for _, m := range durationsIn(s) {
		a, b := m[0], m[1]
		if covered[a] || stated(s, a, b) {
			continue
		}
		v, ok := seconds(s[a:b]), false
		for _, k := range known {
			ok = ok || math.Abs(k-v) <= 0.5
		}
		if !ok {
			bare = append(bare, s[a:b])
		}
	}
	return bare
}

// equations returns each "… = DURATION" of a detail, from the start of
// its clause (after ": ", ", ", "; ", an unmatched "(" or the sentence
// start) to the duration.
func equations(detail string) []string {
	var out []string
	prev := 0 // the end of the previous equation's result
	for _, m := range regexp.MustCompile(` = (`+durationRE+`)`).FindAllStringSubmatchIndex(detail, -1) {
		depth, start, nested := 0, prev, false
		for i := m[0] - 1; i >= prev; i-- {
			c := detail[i]
			if c == ')' {
				depth++
			} else if c == '(' {
				if depth == 0 {
					start, nested = i+1, true
					break
				}
				depth--
			} else if depth == 0 && i+1 < len(detail) && detail[i+1] == ' ' && strings.ContainsRune(":,;.", rune(c)) {
				start = i + 2
				break
			}
		}
		out = append(out, detail[start:m[1]])
		if !nested {
			// A later equation starts after this one, unless this one
			// sits in parentheses that may be a term of the later one.
			prev = m[1]
		}
	}
	return out
}

const durationRE = `(?:\d+(?:\.\d+)?(?:ms|[hms]))+`

var (
	durationToken = regexp.MustCompile(`\b` + durationRE + `\b`)
	factorMinus   = regexp.MustCompile(`\((?:[A-Za-z]+ )?(\d+) − (\d+)\)`)
	lastNumber    = regexp.MustCompile(`(\d+(?:\.\d+)?)\D*$`)
)

func seconds(d string) float64 {
	total := 0.0
	for _, m := range regexp.MustCompile(`(\d+(?:\.\d+)?)(ms|[hms])`).FindAllStringSubmatch(d, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		total += v * map[string]float64{"h": 3600, "m": 60, "s": 1, "ms": 0.001}[m[2]]
	}
	return total
}

func evalEquation(eq string) (sum, result float64, err error) {
	// The result follows the last " = " outside parentheses: a term may
	// hold an equation of its own in parentheses.
	cut, depth := strings.LastIndex(eq, " = "), 0
	for i := 0; i < len(eq); i++ {
		switch {
		case eq[i] == '(':
			depth++
		case eq[i] == ')':
			depth--
		case depth == 0 && strings.HasPrefix(eq[i:], " = "):
			cut = i
		}
	}
	lhs, rhs := eq[:cut], eq[cut+3:]
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
		left, right, product := cutDepth0(term, " × ")
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

// cutDepth0 is strings.Cut at the first sep outside parentheses: a term
// may explain itself with an equation in parentheses, "20m1s for the
// startup probe (… × … = 20m1s)".
func cutDepth0(s, sep string) (before, after string, found bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '(':
			depth++
		case s[i] == ')':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// TestSentenceForms holds the sentence reader to the forms: a nested
// equation, a range derived by two equations, stated values and results
// pass; a computed duration that none of them explains is caught.
func TestSentenceForms(t *testing.T) {
	for _, c := range []struct {
		detail string
		bare   string // the unexplained durations, joined by ", "
	}{
		{"A new Pod can need up to 20m1.5s from creation to Ready (20m1s for the startup probe (the kubelet's 1s latency (initialDelaySeconds is 0s) + failureThreshold 120 × periodSeconds 10s = 20m1s) + 0.5s until its readiness probe passes = 20m1.5s). Raise progressDeadlineSeconds above 20m2s.", ""},
		{`"api" is restarted 21s–31s ((failureThreshold 3 − 1) × periodSeconds 10s + timeoutSeconds 1s = 21s when the failure begins just before a probe, failureThreshold 3 × periodSeconds 10s + timeoutSeconds 1s = 31s when just after one) after the failure starts.`, ""},
		{"It runs 15s, so probes start every 15s instead of every 10s. Remove the field (30s by default).", ""},
		{`"api" is restarted 21s–31s after the failure starts (failureThreshold 3 × periodSeconds 10s).`, "21s, 31s"},
		{"It allows start-up until 5m1s, so a new Pod may need 5m2s.", "5m1s, 5m2s"},
	} {
		var known []float64
		for _, eq := range equations(c.detail) {
			sum, result, err := evalEquation(eq)
			if err != nil || math.Abs(sum-result) > 0.5 {
				t.Errorf("%q: %q reads as %g = %g (%v)", c.detail, eq, sum, result, err)
			}
			known = append(known, result)
		}
		sentences := splitSentences(c.detail)
		for _, s := range sentences {
			known = append(known, statedValues(s)...)
		}
		var bare []string
		for _, s := range sentences {
			bare = append(bare, unexplainedDurations("PL000", s, known, map[string]bool{})...)
		}
		if got := strings.Join(bare, ", "); got != c.bare {
			t.Errorf("%q: unexplained %q, want %q", c.detail, got, c.bare)
		}
	}
}

// durationsIn returns where the durations of s are: matches of anyDuration
// that stand as words of their own, after a space, "(", "," or "–" (or at
// the start) and before a space, ")", ".", ",", ";", ":" or "–" (or at the
// end): "21s–31s" holds two, "sha256m" none.
func durationsIn(s string) [][2]int {
	var out [][2]int
	for _, m := range anyDuration.FindAllStringIndex(s, -1) {
		a, b := m[0], m[1]
		before, after := strings.HasSuffix(s[:a], "–"), strings.HasPrefix(s[b:], "–")
		if a > 0 && !before && !strings.ContainsRune(" (,", rune(s[a-1])) {
			continue
		}
		if b < len(s) && !after && !strings.ContainsRune(" ).,;:", rune(s[b])) {
			continue
		}
		out = append(out, [2]int{a, b})
	}
	return out
}
