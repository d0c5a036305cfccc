package shellread

import (
	"math"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Duration parses an operand of sleep(1) or timeout(1) as GNU coreutils
// and busybox (FEATURE_FANCY_SLEEP) read it: a non-negative decimal number
// of seconds with an optional unit s, m, h or d (sleep 1m, sleep 0.5,
// sleep 2h), or infinity / inf (+Inf). Exponents, hex floats and other
// spellings that only some implementations take are not read.
func Duration(a string) (float64, bool) {
	if a == "infinity" || a == "inf" {
		return math.Inf(1), true
	}
	if a == "" {
		return 0, false
	}
	mult := 1.0
	switch a[len(a)-1] {
	case 's':
		a = a[:len(a)-1]
	case 'm':
		a, mult = a[:len(a)-1], 60
	case 'h':
		a, mult = a[:len(a)-1], 3600
	case 'd':
		a, mult = a[:len(a)-1], 86400
	}
	if a == "" || strings.IndexFunc(a, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }) >= 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(a, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return f * mult, true
}

// SleepOperands is the time sleep(1) waits for its operands: their sum
// (sleep 1m 30s is 90 s), +Inf if one is infinity.
func SleepOperands(args []string) (float64, bool) {
	if len(args) == 0 {
		return 0, false
	}
	total := 0.0
	for _, a := range args {
		d, ok := Duration(a)
		if !ok {
			return 0, false
		}
		total += d
	}
	return total, true
}

// Timeout is the bound timeout(1) puts on a command: it sends its signal
// (SIGTERM unless -s) after Seconds, and SIGKILL KillAfter later when -k
// is given. A command that ignores SIGTERM without -k is not bounded.
type Timeout struct {
	Seconds, KillAfter float64
	// Term: the first signal may be ignored (not KILL) and there is no -k.
	Term bool
}

// NoTimeout is the bound of a command without timeout(1).
var NoTimeout = Timeout{Seconds: math.Inf(1)}

// Bound is the longest the command can run, assuming it ends on SIGTERM
// as sleep and sh do when Term is set.
func (t Timeout) Bound() float64 { return t.Seconds + t.KillAfter }

// Within nests the timeout inside o (the tighter bound wins).
func (t Timeout) Within(o Timeout) Timeout {
	if o.Bound() < t.Bound() {
		return o
	}
	return t
}

// parseTimeout reads timeout [-s SIG] [-k DUR] [--preserve-status]
// [--foreground] [-v] DURATION at cmd[i]; next is the index of the
// command it runs. A duration of 0 disables the timeout.
func parseTimeout(cmd []string, i int) (t Timeout, next int, ok bool) {
	t = Timeout{Term: true}
	kill := false
	for i++; i < len(cmd); i++ {
		a := cmd[i]
		switch {
		case a == "-s" || a == "--signal" || a == "-k" || a == "--kill-after":
			if i+1 >= len(cmd) {
				return t, i, false
			}
			v := cmd[i+1]
			if a == "-s" || a == "--signal" {
				kill = isKill(v)
			} else if d, good := Duration(v); good {
				t.KillAfter, t.Term = d, false
			}
			i++
		case strings.HasPrefix(a, "--signal="):
			kill = isKill(strings.TrimPrefix(a, "--signal="))
		case strings.HasPrefix(a, "--kill-after="):
			if d, good := Duration(strings.TrimPrefix(a, "--kill-after=")); good {
				t.KillAfter, t.Term = d, false
			}
		case strings.HasPrefix(a, "-s") && len(a) > 2:
			kill = isKill(a[2:])
		case strings.HasPrefix(a, "-k") && len(a) > 2:
			if d, good := Duration(a[2:]); good {
				t.KillAfter, t.Term = d, false
			}
		case a == "--":
		case strings.HasPrefix(a, "-") && len(a) > 1 && (a[1] < '0' || a[1] > '9'):
			// --preserve-status, --foreground, -v
		default:
			d, good := Duration(a)
			if !good || i+1 >= len(cmd) {
				return t, i, false
			}
			if kill {
				t.Term, t.KillAfter = false, 0
			}
			if d == 0 {
				return NoTimeout, i + 1, true
			}
			t.Seconds = d
			return t, i + 1, true
		}
	}
	return t, i, false
}

func isKill(sig string) bool {
	s := strings.TrimPrefix(strings.ToUpper(sig), "SIG")
	return s == "KILL" || s == "9"
}

// Sleep is what a command states about its duration.
type Sleep struct {
	// Min is the time the command certainly spends sleeping: the sum of
	// the sleeps that run on every path, each cut by a timeout around
	// it; +Inf for sleep infinity.
	Min float64
	// Max bounds the whole command when timeout(1) wraps it, else +Inf.
	Max float64
	// Text quotes the sleeps, for messages ("sleep 5; sleep $DRAIN
	// (DRAIN=20)").
	Text string
	// OK: Min comes from a stated sleep.
	OK bool
}

// StatedSleep reads the time an exec command certainly spends sleeping:
// sleep N itself, timeout N cmd, or a shell script whose sleeps run on
// every path. A sleep counts when it is a top-level command of the script
// (or the first of an && / || list, or after commands that cannot fail in
// an && list) and nothing before it can end the script: exit, exec, kill, a
// compound command or function that may exit, or under errexit (sh -e,
// set -e) any command that may fail. A failing && list does not end a
// script under errexit (false && sleep 2; echo continues), so a sleep after
// && is not certain. Sleeps in conditionals, loops, subshells, braces,
// functions, pipelines, after || or in the background do not count.
// sleep $X and sleep ${X:-30} take X from env, else the default, else are
// not known.
func StatedSleep(cmd []string, env Env) Sleep {
	out := Sleep{Max: math.Inf(1)}
	call := Invocation(cmd)
	out.Max = call.Timeout.Bound()
	if call.Rest >= len(cmd) {
		return out
	}
	env = env.clone()
	for k, v := range call.Env {
		env.Set(k, v)
	}
	cut := func(s float64) float64 { return math.Min(s, call.Timeout.Bound()) }
	if call.Script < 0 {
		if path.Base(cmd[call.Rest]) == "sleep" {
			if s, ok := SleepOperands(cmd[call.Rest+1:]); ok {
				out.Min, out.OK, out.Text = cut(s), true, strings.Join(cmd, " ")
			}
		}
		return out
	}
	sc := Parse(cmd[call.Script], call.Lang)
	r := sleepReader{s: sc, env: env, errexit: call.Errexit}
	r.stmts(sc.stmts)
	if r.found {
		out.Min, out.OK, out.Text = cut(r.total), true, strings.Join(r.texts, "; ")
	}
	return out
}

// sleepReader walks the top-level statements of a script in order.
type sleepReader struct {
	s       *Script
	env     Env
	errexit bool
	total   float64
	texts   []string
	found   bool
	funcs   map[string]bool
	// visit, when set, sees each top-level statement before it is read
	// (Steps); stopped: a statement that may end the script was read.
	visit   func(*syntax.Stmt)
	stopped bool
}

// stmts reads statements until one may end the script.
func (r *sleepReader) stmts(list []*syntax.Stmt) {
	for _, st := range list {
		if r.visit != nil {
			r.visit(st)
		}
		if !r.stmt(st) {
			r.stopped = true
			return
		}
	}
}

// stmt reads one top-level statement; false when the statements after it
// are not certain to run.
func (r *sleepReader) stmt(st *syntax.Stmt) bool {
	if st.Background || st.Coprocess || st.Disown {
		return !r.mayEnd(st)
	}
	if on, ok := setErrexit(st); ok {
		r.errexit = on
		return true
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			r.assign(c.Assigns)
			return true
		}
		if st.Negated {
			return !r.mayEnd(st)
		}
		ends, fails := r.call(c, true)
		return !ends && !(r.errexit && fails)
	case *syntax.BinaryCmd:
		return r.list(st)
	case *syntax.FuncDecl:
		if r.funcs == nil {
			r.funcs = map[string]bool{}
		}
		if c.Name != nil {
			r.funcs[c.Name.Value] = true
		}
		return true
	case *syntax.DeclClause:
		var as []*syntax.Assign
		for _, a := range c.Args {
			if !a.Naked {
				as = append(as, a)
			}
		}
		r.assign(as) // export X=5, local X=5
		return true
	}
	// Compound commands: their sleeps do not count; they end the script
	// when they may exit, or fail under errexit.
	r.forget(st)
	return !r.mayEnd(st) && !r.errexit
}

// list reads an && / || list or a pipeline: its first command always
// runs; after it, a command runs for certain only behind && commands that
// cannot fail. Under errexit only the failure of the last command ends
// the script.
func (r *sleepReader) list(st *syntax.Stmt) bool {
	var elems []*syntax.Stmt
	var ops []syntax.BinCmdOperator
	flatten(st, &elems, &ops)
	certain := !st.Negated
	lastFails := true
	for i, e := range elems {
		if i > 0 {
			certain = certain && ops[i-1] == syntax.AndStmt
		}
		piped := i > 0 && (ops[i-1] == syntax.Pipe || ops[i-1] == syntax.PipeAll) ||
			i+1 < len(elems) && (ops[i] == syntax.Pipe || ops[i] == syntax.PipeAll)
		c, isCall := e.Cmd.(*syntax.CallExpr)
		if !isCall || len(c.Args) == 0 || e.Negated || piped {
			certain = false
			lastFails = true
			continue
		}
		ends, fails := r.call(c, certain)
		if ends {
			return false
		}
		if fails {
			certain = false
		}
		lastFails = fails
	}
	if r.mayEnd(st) {
		return false
	}
	return !(r.errexit && lastFails)
}

func flatten(st *syntax.Stmt, elems *[]*syntax.Stmt, ops *[]syntax.BinCmdOperator) {
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && !st.Negated && !st.Background {
		flatten(b.X, elems, ops)
		*ops = append(*ops, b.Op)
		flatten(b.Y, elems, ops)
		return
	}
	*elems = append(*elems, st)
}

// call reads a simple command: a sleep it certainly runs is counted.
// ends: nothing after it runs (exit, exec, kill, a function of the
// script); fails: it may fail.
func (r *sleepReader) call(c *syntax.CallExpr, certain bool) (ends, fails bool) {
	args := c.Args
	name := r.s.name(args[0])
	exec := false
	if name == "exec" && len(args) > 1 {
		exec, args = true, args[1:]
		name = r.s.name(args[0])
	}
	t := NoTimeout
	if name == "timeout" {
		words := make([]string, len(args))
		for i, w := range args {
			words[i], _ = r.env.word(w)
		}
		tt, next, ok := parseTimeout(words, 0)
		if !ok {
			return exec, true
		}
		t, args = tt, args[next:]
		name = r.s.name(args[0])
	}
	switch name {
	case "exit", "return", "kill", "killall", "pkill", "shutdown", "reboot", "halt", "poweroff":
		return true, true
	case "true", ":", "echo":
		return exec, false
	case "sleep":
		if len(args) < 2 {
			return exec, true
		}
		ops := make([]string, 0, len(args)-1)
		for _, w := range args[1:] {
			v, ok := r.env.word(w)
			if !ok {
				return exec, true
			}
			ops = append(ops, v)
		}
		s, ok := SleepOperands(ops)
		if !ok {
			return exec, true
		}
		if certain {
			r.total += math.Min(s, t.Bound())
			r.texts = append(r.texts, r.sleepText(c))
			r.found = true
		}
		return exec, s > t.Bound() // timeout exits 124
	}
	if r.funcs[name] {
		return true, true
	}
	return exec, true
}

// sleepText quotes a sleep command, with the values of its variables.
func (r *sleepReader) sleepText(c *syntax.CallExpr) string {
	text := strings.Join(strings.Fields(r.s.text(c)), " ")
	var vars []string
	seen := map[string]bool{}
	syntax.Walk(c, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && !seen[p.Param.Value] {
			seen[p.Param.Value] = true
			if v, set, known := r.env.lookup(p.Param.Value); known && set {
				vars = append(vars, p.Param.Value+"="+v)
			} else {
				vars = append(vars, p.Param.Value+" unset")
			}
		}
		return true
	})
	if len(vars) > 0 {
		text += " (" + strings.Join(vars, ", ") + ")"
	}
	return text
}

// assign records top-level assignments (X=5) for later sleeps.
func (r *sleepReader) assign(as []*syntax.Assign) {
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		if a.Value == nil || a.Append || a.Index != nil || a.Array != nil {
			r.env.Unknown(a.Name.Value)
			continue
		}
		if v, ok := r.env.word(a.Value); ok {
			r.env.Set(a.Name.Value, v)
		} else {
			r.env.Unknown(a.Name.Value)
		}
	}
}

// forget marks every variable a compound command may assign as unknown.
func (r *sleepReader) forget(st *syntax.Stmt) {
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				r.env.Unknown(n.Name.Value)
			}
		case *syntax.ForClause:
			if w, ok := n.Loop.(*syntax.WordIter); ok && w.Name != nil {
				r.env.Unknown(w.Name.Value)
			}
		case *syntax.CallExpr:
			if len(n.Args) > 1 && lit(n.Args[0]) == "read" {
				for _, w := range n.Args[1:] {
					r.env.Unknown(lit(w))
				}
			}
		}
		return true
	})
}

// mayEnd reports whether a statement may end the script: it runs exit,
// exec with a command, kill, or a function of the script.
func (r *sleepReader) mayEnd(st *syntax.Stmt) bool {
	ends := false
	syntax.Walk(st, func(n syntax.Node) bool {
		if ends {
			return false
		}
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
			// exit in a subshell leaves the subshell only
			return false
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			switch name := r.s.name(n.Args[0]); name {
			case "exit", "return", "kill", "killall", "pkill", "shutdown", "reboot", "halt", "poweroff":
				ends = true
			case "exec":
				ends = len(n.Args) > 1
			default:
				ends = r.funcs[name]
			}
		}
		return !ends
	})
	return ends
}
