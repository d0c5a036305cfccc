package shellread

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/alloctest"
)

func TestDuration(t *testing.T) {
	// What sleep(1) of GNU coreutils and busybox both accept, as the old
	// readers did: decimal seconds with an optional s/m/h/d unit, several
	// operands summed, infinity.
	for _, tc := range []struct {
		args []string
		want float64
		ok   bool
	}{
		{[]string{"15"}, 15, true},
		{[]string{"0.5"}, 0.5, true},
		{[]string{"1m"}, 60, true},
		{[]string{"1m", "30s"}, 90, true},
		{[]string{"2h"}, 7200, true},
		{[]string{"1d"}, 86400, true},
		{[]string{".5m"}, 30, true},
		{[]string{"infinity"}, math.Inf(1), true},
		{[]string{"inf"}, math.Inf(1), true},
		{[]string{"1e3"}, 0, false}, // GNU only
		{[]string{"-1"}, 0, false},
		{[]string{"5x"}, 0, false},
		{[]string{"m"}, 0, false},
		{nil, 0, false},
	} {
		got, ok := SleepOperands(tc.args)
		if got != tc.want || ok != tc.ok {
			t.Errorf("SleepOperands(%q) = %v, %v; want %v, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

func env(kv ...string) Env {
	var e Env
	for i := 0; i+1 < len(kv); i += 2 {
		e.Set(kv[i], kv[i+1])
	}
	return e
}

func TestStatedSleepSemantics(t *testing.T) {
	inf := math.Inf(1)
	from := env("A", "1")
	from.Unknown("DRAIN") // valueFrom
	open := env("OTHER", "1")
	open.Open = true // envFrom
	for _, tc := range []struct {
		name string
		cmd  []string
		env  Env
		min  float64
		ok   bool
		max  float64
	}{
		// && and errexit
		{"first of && list", []string{"sh", "-c", "sleep 5 && nginx -s quit"}, Env{}, 5, true, inf},
		{"after a command that may fail", []string{"sh", "-c", "nginx -s quit && sleep 20"}, Env{}, 0, false, inf},
		{"after && under -ec", []string{"sh", "-ec", "nginx -s quit && sleep 20"}, Env{}, 0, false, inf},
		{"after && under set -e", []string{"sh", "-c", "set -e\ncurl localhost/drain && sleep 20"}, Env{}, 0, false, inf},
		{"a failing && list ends nothing", []string{"sh", "-ec", "false && sleep 2; echo; sleep 3"}, Env{}, 3, true, inf},
		{"behind sleeps that cannot fail", []string{"sh", "-c", "sleep 10 && sleep 5"}, Env{}, 15, true, inf},
		{"errexit: a failing command ends the script", []string{"sh", "-ec", "curl localhost/drain; sleep 20"}, Env{}, 0, false, inf},
		{"no errexit: it does not", []string{"sh", "-c", "curl localhost/drain; sleep 20"}, Env{}, 20, true, inf},
		{"set +e turns errexit off", []string{"sh", "-ec", "set +e; curl x; sleep 20"}, Env{}, 20, true, inf},
		{"|| true absorbs the failure", []string{"sh", "-ec", "curl x || true; sleep 20"}, Env{}, 20, true, inf},
		{"after ||", []string{"sh", "-c", "test -f x || sleep 30"}, Env{}, 0, false, inf},
		{"background", []string{"sh", "-c", "sleep 5 & wait"}, Env{}, 0, false, inf},
		{"inside if", []string{"sh", "-c", "if [ -f /x ]; then sleep 60; fi"}, Env{}, 0, false, inf},
		{"after an if that may exit", []string{"sh", "-c", "if [ -f x ]; then exit 0; fi; sleep 10"}, Env{}, 0, false, inf},
		{"after an if that does not exit", []string{"sh", "-c", "if [ -f x ]; then echo y; fi; sleep 10"}, Env{}, 10, true, inf},
		{"inside a loop", []string{"sh", "-c", "while true; do sleep 1; done"}, Env{}, 0, false, inf},
		{"subshell", []string{"sh", "-c", "(sleep 5)"}, Env{}, 0, false, inf},
		{"exit in a subshell leaves only it", []string{"sh", "-c", "(exit 1); sleep 5"}, Env{}, 5, true, inf},
		{"exec ends the script", []string{"sh", "-c", "exec sleep 3; sleep 9"}, Env{}, 3, true, inf},
		{"kill 1 ends the container", []string{"sh", "-c", "kill -TERM 1; sleep 20"}, Env{}, 0, false, inf},
		{"a function of the script may exit", []string{"sh", "-c", "f() { exit 0; }; f; sleep 5"}, Env{}, 0, false, inf},
		{"here document and quotes", []string{"bash", "-c", "cat <<EOF\nsleep 99; (\nEOF\nsleep 4 # 'x'"}, Env{}, 4, true, inf},
		{"quoted operand", []string{"sh", "-c", `sleep "5"`}, Env{}, 5, true, inf},
		// variables
		{"literal env", []string{"sh", "-c", "sleep $DRAIN"}, env("DRAIN", "20"), 20, true, inf},
		{"braces, quotes", []string{"sh", "-c", `sleep "${DRAIN}s"`}, env("DRAIN", "20"), 20, true, inf},
		{"default when unset", []string{"sh", "-c", "sleep ${DRAIN:-30}"}, Env{}, 30, true, inf},
		{"env wins over the default", []string{"sh", "-c", "sleep ${DRAIN:-30}"}, env("DRAIN", "12"), 12, true, inf},
		{":- on an empty value", []string{"sh", "-c", "sleep ${DRAIN:-30}"}, env("DRAIN", ""), 30, true, inf},
		{"unset, no default", []string{"sh", "-c", "sleep $DRAIN"}, Env{}, 0, false, inf},
		{"valueFrom is unknown", []string{"sh", "-c", "sleep ${DRAIN:-30}"}, from, 0, false, inf},
		{"envFrom may set it", []string{"sh", "-c", "sleep ${DRAIN:-30}"}, open, 0, false, inf},
		{"assigned in the script", []string{"sh", "-c", "D=7; sleep $D"}, Env{}, 7, true, inf},
		{"assigned in a loop", []string{"sh", "-c", "D=7; for D in 1; do :; done; sleep $D"}, Env{}, 0, false, inf},
		{"env(1) before the shell", []string{"env", "D=9", "sh", "-c", "sleep $D"}, Env{}, 9, true, inf},
		{"positional parameter", []string{"sh", "-c", "sleep $1", "x", "5"}, Env{}, 0, false, inf},
		{"command substitution", []string{"sh", "-c", "sleep $(cat /d)"}, Env{}, 0, false, inf},
		// timeout
		{"timeout around sleep", []string{"timeout", "10", "sleep", "30"}, Env{}, 10, true, 10},
		{"timeout around the shell", []string{"timeout", "5", "sh", "-c", "sleep 20"}, Env{}, 5, true, 5},
		{"timeout -k", []string{"timeout", "-k", "5", "10", "nginx", "-s", "quit"}, Env{}, 0, false, 15},
		{"timeout -s KILL", []string{"timeout", "-s", "KILL", "1m", "drain"}, Env{}, 0, false, 60},
		{"timeout 0 disables it", []string{"timeout", "0", "sleep", "30"}, Env{}, 30, true, inf},
		{"timeout in the script", []string{"sh", "-c", "timeout 3 sleep 30; sleep 1"}, Env{}, 4, true, inf},
		{"timeout in the script, errexit", []string{"sh", "-ec", "timeout 3 sleep 30; sleep 1"}, Env{}, 3, true, inf},
		{"sleep shorter than its timeout", []string{"sh", "-c", "timeout 30 sleep 3"}, Env{}, 3, true, inf},
	} {
		got := StatedSleep(tc.cmd, tc.env)
		if got.Min != tc.min || got.OK != tc.ok || got.Max != tc.max {
			t.Errorf("%s: StatedSleep(%q) = min %v ok %v max %v (%q); want %v %v %v", tc.name, tc.cmd, got.Min, got.OK, got.Max, got.Text, tc.min, tc.ok, tc.max)
		}
	}
	if got := StatedSleep([]string{"sh", "-c", "sleep $DRAIN; sleep 1"}, env("DRAIN", "20")); got.Text != "sleep $DRAIN (DRAIN=20); sleep 1" {
		t.Errorf("text = %q", got.Text)
	}
}

func TestInvocation(t *testing.T) {
	for _, tc := range []struct {
		cmd     []string
		script  int
		errexit bool
		bounded bool
	}{
		{[]string{"sh", "-c", "x"}, 2, false, false},
		{[]string{"/bin/bash", "-ec", "x"}, 2, true, false},
		{[]string{"sh", "-o", "errexit", "-c", "x"}, 4, true, false},
		{[]string{"sh", "-o", "pipefail", "-c", "x"}, 4, false, false},
		{[]string{"busybox", "sh", "-c", "x"}, 3, false, false},
		{[]string{"timeout", "300", "sh", "-c", "x"}, 4, false, true},
		{[]string{"tini", "--", "sh", "-c", "x"}, 4, false, false},
		{[]string{"sh", "/scripts/stop.sh"}, -1, false, false},
		{[]string{"python", "-c", "print(1)"}, -1, false, false},
		{[]string{"echo", "sh", "-c", "x"}, -1, false, false},
		{[]string{"sh", "-c"}, -1, false, false},
	} {
		c := Invocation(tc.cmd)
		if c.Script != tc.script || c.Errexit != tc.errexit || math.IsInf(c.Timeout.Bound(), 1) == tc.bounded {
			t.Errorf("Invocation(%q) = script %d errexit %v timeout %v; want %d %v bounded %v", tc.cmd, c.Script, c.Errexit, c.Timeout.Bound(), tc.script, tc.errexit, tc.bounded)
		}
	}
}

func TestParseLimitsAndErrors(t *testing.T) {
	if s := Parse(strings.Repeat("a", MaxScript+1), 0); !errors.Is(s.Err, ErrTooLarge) || len(s.stmts) != 0 {
		t.Errorf("a script over MaxScript: err %v, %d statements", s.Err, len(s.stmts))
	}
	for _, deep := range []string{strings.Repeat("(", 5000), strings.Repeat("$(", 5000), strings.Repeat("while ", 5000), strings.Repeat("a | ", 5000)} {
		if s := Parse(deep, 0); !errors.Is(s.Err, ErrTooDeep) {
			t.Errorf("%.20q…: err %v, want ErrTooDeep", deep, s.Err)
		}
	}
	// A syntax error: the complete lines before it run, the rest not.
	s := Parse("sleep 1\necho 'unclosed\nsleep 2", 0)
	if s.Err == nil || len(s.stmts) != 1 {
		t.Errorf("syntax error on line 2: err %v, %d statements kept, want 1", s.Err, len(s.stmts))
	}
	if got := StatedSleep([]string{"sh", "-c", "sleep 1; echo \"" + strings.Repeat("x\n", 10)}, Env{}); got.OK {
		t.Errorf("a syntax error on the sleep's own line: got %+v, want nothing stated", got)
	}
}

// allocated returns the bytes f allocates, the least of a few runs.
var allocated = alloctest.Min

// TestLinear: every reader's cost (bytes allocated, never time) at 2N is
// at most 2.5 times that at N, on the hostile shapes of the hardening
// issue, kept under MaxScript so that they are really parsed.
func TestLinear(t *testing.T) {
	scripts := map[string]func(n int) string{
		"newlines": func(n int) string { return "sleep 1" + strings.Repeat("\n", n) + "true" },
		"while;":   func(n int) string { return strings.Repeat("while;", n) },
		"nested loops": func(n int) string {
			return strings.Repeat("while true; do ", n) + "sleep 1" + strings.Repeat("; done", n)
		},
		"sibling loops":     func(n int) string { return strings.Repeat("until nc -z db 1; do sleep 1; done\n", n) },
		"operators":         func(n int) string { return strings.Repeat("true && ", n) + "sleep 2" },
		"sleeps":            func(n int) string { return strings.Repeat("sleep 1;", n) },
		"unclosed quote":    func(n int) string { return "sleep 1; echo \"" + strings.Repeat("x\n", n) },
		"line continuation": func(n int) string { return "sleep" + strings.Repeat(" \\\n", n) + " 3" },
	}
	for name, gen := range scripts {
		t.Run(name, func(t *testing.T) {
			n := 200
			for len(gen(4*n)) < MaxScript && n < 1<<14 {
				n *= 2
			}
			cost := func(n int) uint64 {
				cmd := []string{"sh", "-ec", gen(n)}
				return allocated(func() {
					StatedSleep(cmd, Env{})
					s := Parse(cmd[2], 0)
					// As PL303 does: the heuristics on outermost loops only.
					var outer *Loop
					for _, l := range s.Loops() {
						if outer != nil && l.Inside(*outer) {
							continue
						}
						outer = &l
						l.Waits()
						l.GivesUp()
					}
					for _, c := range s.Commands() {
						c.FailureFails(true)
					}
				})
			}
			a, b := cost(n), cost(2*n)
			t.Logf("n=%d (%d bytes): %d bytes allocated; 2n: %d (×%.2f)", n, len(gen(n)), a, b, float64(b)/float64(a))
			if alloctest.Exceeds(a, b, 2.5) {
				t.Errorf("doubling the script from %d multiplied the bytes allocated by %.2f; want at most 2.5", n, float64(b)/float64(a))
			}
		})
	}
}
