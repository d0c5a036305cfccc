package shellread

import "mvdan.cc/sh/v3/syntax"

// Step is one top-level statement of a shell script, read in order as
// StatedSleep reads them, with the time the script has certainly slept
// before it. The timeline reads from the steps when a container's health
// changes: a file its liveness probe checks created at the start and
// removed after a stated sleep.
type Step struct {
	// Name and Args: a simple command in the foreground and its operands
	// as the shell passes them (quotes removed, variables from the env);
	// Name is "" for any other statement, or when an operand is not known.
	Name string
	Args []string
	// Slept is the time the script has certainly slept before this step.
	Slept float64
	// Endless: a foreground while loop whose condition is always true and
	// whose body never leaves it: nothing after it runs, and the script
	// never ends by itself.
	Endless bool
}

// Steps lists the top-level statements of the shell script in cmd
// (sh -c '…'), up to and including the first that may end the script
// (exit, exec, kill, or any failure under errexit); slept is the time the
// script certainly sleeps up to there, and complete is true when every
// statement was read. ok is false when cmd is no shell script or the
// script does not parse.
func Steps(cmd []string, env Env) (steps []Step, slept float64, complete, ok bool) {
	call := Invocation(cmd)
	if call.Script < 0 {
		return nil, 0, false, false
	}
	sc := Parse(cmd[call.Script], call.Lang)
	if sc.Err != nil {
		return nil, 0, false, false
	}
	env = env.clone()
	for k, v := range call.Env {
		env.Set(k, v)
	}
	var loops []Loop
	r := sleepReader{s: sc, env: env, errexit: call.Errexit}
	r.visit = func(st *syntax.Stmt) {
		step := Step{Slept: r.total}
		switch c := st.Cmd.(type) {
		case *syntax.CallExpr:
			if len(c.Args) == 0 || st.Background || st.Coprocess || st.Disown || st.Negated {
				break
			}
			args := make([]string, 0, len(c.Args)-1)
			for _, w := range c.Args[1:] {
				v, known := r.env.word(w)
				if !known {
					args = nil
					break
				}
				args = append(args, v)
			}
			if args != nil || len(c.Args) == 1 {
				step.Name, step.Args = sc.name(c.Args[0]), args
			}
		case *syntax.WhileClause:
			if st.Background || st.Coprocess || st.Disown || r.mayEnd(st) {
				break
			}
			if loops == nil {
				loops = sc.Loops()
			}
			for _, l := range loops {
				if l.start == c.WhilePos.Offset() {
					step.Endless = l.Infinite() && !l.Leaves()
					break
				}
			}
		}
		steps = append(steps, step)
	}
	r.stmts(sc.stmts)
	return steps, r.total, !r.stopped, true
}
