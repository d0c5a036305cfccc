package shellread

import (
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command of a script with where it stands: in its
// and-or list, in a pipeline, in a compound command.
type Command struct {
	// Name is the base name of the command (after exec); Words its words
	// as written, quotes included, starting with the name.
	Name  string
	Words []string
	// Nested: inside a loop, if, case, braces, a subshell, a function or
	// a command substitution. InLoop: inside a while, until, for or
	// select loop.
	Nested, InLoop bool
	// LastOfList: no && or || follows it in its and-or list. OrFollows: a
	// || follows it (its failure is handled). AfterOr: it runs only when
	// the command before it failed.
	LastOfList, OrFollows, AfterOr bool
	// Final: a top-level command of the script's last list, whose status
	// becomes the script's exit code.
	Final bool
	// Background: its list is followed by &. PipedOut, PipedIn: its
	// output goes into a pipe (the pipeline's status is the last
	// command's), or it reads one.
	Background, PipedOut, PipedIn bool
}

// FailureFails reports whether a failure of the command makes the script
// exit non-zero: it is in the script's last list, or errexit is on and it
// ends its and-or list (a failure earlier in an && list does not end the
// script, even under errexit); not when its failure is handled (||),
// piped, backgrounded, retried in a loop or nested in a compound command.
func (c Command) FailureFails(errexit bool) bool {
	if c.InLoop || c.Nested || c.Background || c.OrFollows || c.PipedOut {
		return false
	}
	return c.Final || errexit && c.LastOfList
}

// Commands lists the simple commands of the script in order.
func (s *Script) Commands() []Command {
	var out []Command
	for i, st := range s.stmts {
		s.commands(st, &out, ctx{final: i == len(s.stmts)-1})
	}
	return out
}

type ctx struct {
	nested, inLoop, final, background bool
}

func (s *Script) commands(st *syntax.Stmt, out *[]Command, c ctx) {
	var elems []*syntax.Stmt
	var ops []syntax.BinCmdOperator
	flatten(st, &elems, &ops)
	c.background = c.background || st.Background || st.Coprocess || st.Disown
	for i, e := range elems {
		var before, after syntax.BinCmdOperator
		if i > 0 {
			before = ops[i-1]
		}
		if i < len(ops) {
			after = ops[i]
		}
		switch cmd := e.Cmd.(type) {
		case *syntax.CallExpr:
			if len(cmd.Args) == 0 {
				s.substs(e, out, c)
				continue
			}
			args := cmd.Args
			if s.name(args[0]) == "exec" && len(args) > 1 {
				args = args[1:]
			}
			cm := Command{Name: s.name(args[0]), Nested: c.nested, InLoop: c.inLoop, Final: c.final && !c.nested,
				Background: c.background}
			for _, w := range args {
				cm.Words = append(cm.Words, s.text(w))
			}
			s.flags(&cm, before, after)
			*out = append(*out, cm)
			s.substs(e, out, c)
		case *syntax.DeclClause:
			cm := Command{Name: cmd.Variant.Value, Words: []string{cmd.Variant.Value}, Nested: c.nested, InLoop: c.inLoop,
				Final: c.final && !c.nested, Background: c.background}
			for _, a := range cmd.Args {
				cm.Words = append(cm.Words, s.text(a))
			}
			s.flags(&cm, before, after)
			*out = append(*out, cm)
			s.substs(e, out, c)
		case *syntax.TimeClause:
			if cmd.Stmt != nil {
				s.commands(cmd.Stmt, out, c)
			}
		default:
			s.compound(e, out, c)
		}
	}
}

func (s *Script) flags(cm *Command, before, after syntax.BinCmdOperator) {
	isPipe := func(op syntax.BinCmdOperator) bool { return op == syntax.Pipe || op == syntax.PipeAll }
	cm.AfterOr = before == syntax.OrStmt
	cm.PipedIn = isPipe(before)
	switch {
	case after == 0:
		cm.LastOfList = true
	case after == syntax.OrStmt:
		cm.OrFollows = true
	case isPipe(after):
		cm.PipedOut = true
	}
}

// compound lists the commands inside a compound command, as nested.
func (s *Script) compound(st *syntax.Stmt, out *[]Command, c ctx) {
	in := ctx{nested: true, inLoop: c.inLoop, background: c.background}
	list := func(l []*syntax.Stmt, loop bool) {
		sub := in
		sub.inLoop = in.inLoop || loop
		for _, x := range l {
			s.commands(x, out, sub)
		}
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.WhileClause:
		list(cmd.Cond, true)
		list(cmd.Do, true)
	case *syntax.ForClause:
		list(cmd.Do, true)
	case *syntax.IfClause:
		for ic := cmd; ic != nil; ic = ic.Else {
			list(ic.Cond, false)
			list(ic.Then, false)
		}
	case *syntax.CaseClause:
		for _, it := range cmd.Items {
			list(it.Stmts, false)
		}
	case *syntax.Block:
		list(cmd.Stmts, false)
	case *syntax.Subshell:
		list(cmd.Stmts, false)
	case *syntax.FuncDecl:
		if cmd.Body != nil {
			list([]*syntax.Stmt{cmd.Body}, false)
		}
	case *syntax.CoprocClause:
		if cmd.Stmt != nil {
			list([]*syntax.Stmt{cmd.Stmt}, false)
		}
	}
}

// substs lists the commands of the command substitutions in a simple
// command's words, as nested.
func (s *Script) substs(st *syntax.Stmt, out *[]Command, c ctx) {
	in := ctx{nested: true, inLoop: c.inLoop, background: c.background}
	syntax.Walk(st, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			for _, x := range n.Stmts {
				s.commands(x, out, in)
			}
			return false
		case *syntax.ProcSubst:
			for _, x := range n.Stmts {
				s.commands(x, out, in)
			}
			return false
		}
		return true
	})
}

// Loop is a while or until loop of a script.
type Loop struct {
	Kind string // while | until
	// Cond and Body are the script text of the condition and the body.
	Cond, Body string
	// Head is "until nslookup mydb" for messages.
	Head string
	// Background: the loop runs in the background (done &), so the
	// script does not wait for it.
	Background bool

	start, end uint
	s          *Script
	body       []*syntax.Stmt
}

// Loops lists the while and until loops of the script in order of their
// keywords: a loop nested in another comes after it.
func (s *Script) Loops() []Loop {
	var out []Loop
	for _, st := range s.stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			x, ok := n.(*syntax.Stmt)
			if !ok {
				return true
			}
			w, ok := x.Cmd.(*syntax.WhileClause)
			if !ok {
				return true
			}
			kind := "while"
			if w.Until {
				kind = "until"
			}
			a, b := int(w.WhilePos.Offset())+len(kind), int(w.DoPos.Offset())
			cond := ""
			if a <= b && b <= len(s.src) {
				cond = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s.src[a:b]), ";\n"))
			}
			body := ""
			if a, b := int(w.DoPos.Offset())+2, int(w.DonePos.Offset()); a <= b && b <= len(s.src) {
				body = s.src[a:b]
			}
			out = append(out, Loop{Kind: kind, Cond: cond, Body: body, Head: kind + " " + OneLine(cond, 50),
				Background: x.Background, start: w.WhilePos.Offset(), end: w.DonePos.Offset(), s: s, body: w.Do})
			return true
		})
	}
	return out
}

// OneLine shortens script text for a message. It reads no more of s than
// the n characters it keeps, so a long condition costs nothing.
func OneLine(s string, n int) string {
	var b strings.Builder
	runes, space := 0, false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' {
			space = b.Len() > 0
			continue
		}
		if space {
			if runes == n {
				return b.String() + "…"
			}
			b.WriteByte(' ')
			runes++
			space = false
		}
		if runes == n {
			return b.String() + "…"
		}
		b.WriteRune(r)
		runes++
	}
	return b.String()
}

// Inside reports whether the loop is nested in o.
func (l Loop) Inside(o Loop) bool { return l.start > o.start && l.end < o.end }

// Infinite reports whether the loop condition is always true.
func (l Loop) Infinite() bool {
	if l.Kind != "while" {
		return false
	}
	switch strings.Join(strings.Fields(l.Cond), " ") {
	case "true", ":", "/bin/true", "[ 1 ]", "[ true ]", "[[ 1 ]]", "[[ true ]]", "test 1", "((1))", "(( 1 ))":
		return true
	}
	return false
}

// Waits reports whether the loop polls for a condition (as opposed to
// reading input or counting).
func (l Loop) Waits() bool {
	if l.Kind == "while" && (strings.HasPrefix(l.Cond, "read ") || strings.Contains(l.Cond, " read ") || strings.HasPrefix(l.Cond, "IFS=")) {
		return false
	}
	if l.Kind == "until" || l.Infinite() || strings.HasPrefix(l.Cond, "!") {
		return true
	}
	return l.Runs("sleep")
}

// bodyCalls calls f for every simple command of the body, nested ones
// included, until f returns true.
func (l Loop) bodyCalls(f func(args []*syntax.Word) bool) bool {
	found := false
	for _, st := range l.body {
		syntax.Walk(st, func(n syntax.Node) bool {
			if found {
				return false
			}
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				args := c.Args
				if l.s.name(args[0]) == "exec" && len(args) > 1 {
					args = args[1:]
				}
				found = f(args)
			}
			return !found
		})
	}
	return found
}

// Runs reports whether the loop body runs the command name.
func (l Loop) Runs(name string) bool {
	return l.bodyCalls(func(args []*syntax.Word) bool { return l.s.name(args[0]) == name })
}

// Leaves reports whether the body can leave the loop (break, exit,
// return).
func (l Loop) Leaves() bool { return l.Runs("break") || l.Runs("exit") || l.Runs("return") }

var loopCounterRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\(\(|\(\(|\blet\s|\bexpr\s|\+\+|\+=|\$SECONDS|\bseq\s|date\s+\+%s|\bdeadline\b|\bmax_?(attempts|retries|tries|wait)\b|\bretries\b|\battempts?\b|\btries\b`)
})

// GivesUp reports whether the loop is bounded by itself: it counts
// attempts or time, or fails out with a non-zero exit. A per-attempt
// timeout inside the condition does not bound the loop.
func (l Loop) GivesUp() bool {
	if loopCounterRE().MatchString(l.Cond) || loopCounterRE().MatchString(l.Body) {
		return true
	}
	return l.bodyCalls(func(args []*syntax.Word) bool {
		return l.s.name(args[0]) == "exit" && len(args) > 1 && l.s.text(args[1]) != "0"
	})
}
