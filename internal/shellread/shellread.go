// Package shellread reads what a container command states about itself when
// it is a shell script (sh -c '…'): the time it certainly spends in sleep,
// its loops, and the simple commands whose failure fails it. The timeline
// model (preStop and postStart hooks) and the rules (init containers, hooks)
// share it, so that both read a script the same way.
//
// Scripts are parsed by mvdan.cc/sh/v3/syntax, a POSIX/bash parser, not by a
// word splitter: quotes, here documents, command substitutions, comments
// and compound commands are what the shell makes of them. The package is
// pure (no I/O, no environment of its own): variables come from the
// container's literal env through Env.
//
// Everything here errs towards stating less: a sleep counts only when it
// runs on every path through the script, a loop or command hidden in a
// construct the reader does not follow is not reported.
//
// Cost is linear in the script's length: a script longer than MaxScript
// bytes, or with more than MaxNesting tokens that can open a nested
// construct, is not read at all (the parser recurses once per nesting
// level, so this also bounds its stack).
package shellread

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Limits on what is parsed. Real hook and init scripts are a few hundred
// bytes; a command field of 64 KiB is already far beyond any in the
// public charts podlint was tried on.
const (
	MaxScript  = 64 << 10
	MaxNesting = 4096
)

// Shells whose -c argument is read, by base name of the executable.
var shells = map[string]syntax.LangVariant{
	"sh": syntax.LangBash, "bash": syntax.LangBash, "ash": syntax.LangBash, "dash": syntax.LangBash,
	"ksh": syntax.LangBash, "zsh": syntax.LangZsh, "mksh": syntax.LangMirBSDKorn,
}

// wrappers are commands that run the rest of their arguments: words
// before the shell (env DRAIN=5 sh -c …, busybox sh -c …, nice sh -c …).
var wrappers = map[string]bool{"env": true, "busybox": true, "nice": true, "nohup": true, "exec": true, "setsid": true, "tini": true, "dumb-init": true, "ionice": true, "stdbuf": true}

// Call is an exec command understood as a shell invocation.
type Call struct {
	// Shell and Script are the indexes of the shell and of its -c
	// argument in the command; -1 when the command is no shell -c call.
	Shell, Script int
	// Lang is the shell's dialect.
	Lang syntax.LangVariant
	// Errexit: the shell runs with -e or -o errexit.
	Errexit bool
	// Timeout bounds the whole command (timeout N before the shell or
	// the command); +Inf when nothing does (see Timeout).
	Timeout Timeout
	// Env are the NAME=value words of env(1) before the shell.
	Env map[string]string
	// Rest is the index of the first word after the wrappers: the
	// shell, or the command itself.
	Rest int
}

// Invocation finds [wrappers…] SHELL [flags…] -c SCRIPT in cmd.
func Invocation(cmd []string) Call {
	c := Call{Shell: -1, Script: -1, Timeout: NoTimeout}
	i := 0
	for i < len(cmd) {
		base := path.Base(cmd[i])
		switch {
		case base == "timeout":
			t, next, ok := parseTimeout(cmd, i)
			if !ok {
				c.Rest = i
				return c
			}
			c.Timeout = c.Timeout.Within(t)
			i = next
			continue
		case wrappers[base]:
			i++
			for i < len(cmd) && (strings.HasPrefix(cmd[i], "-") || base == "env" && isAssignment(cmd[i])) {
				if base == "env" && isAssignment(cmd[i]) {
					if c.Env == nil {
						c.Env = map[string]string{}
					}
					k, v, _ := strings.Cut(cmd[i], "=")
					c.Env[k] = v
				}
				if cmd[i] == "--" {
					i++
					break
				}
				i++
			}
			continue
		}
		break
	}
	c.Rest = i
	if i >= len(cmd) {
		return c
	}
	lang, ok := shells[path.Base(cmd[i])]
	if !ok {
		return c
	}
	for j := i + 1; j < len(cmd); j++ {
		f := cmd[j]
		if f == "-o" || f == "+o" {
			if j+1 < len(cmd) && cmd[j+1] == "errexit" && f == "-o" {
				c.Errexit = true
			}
			j++
			continue
		}
		if !strings.HasPrefix(f, "-") || f == "-" || f == "--" {
			return c
		}
		if strings.HasPrefix(f, "--") {
			continue // --norc, --login
		}
		if strings.Contains(f, "e") {
			c.Errexit = true
		}
		if strings.Contains(f, "c") {
			if j+1 < len(cmd) {
				c.Shell, c.Script, c.Lang = i, j+1, lang
			}
			return c
		}
	}
	return c
}

func isAssignment(w string) bool {
	k, _, ok := strings.Cut(w, "=")
	return ok && syntax.ValidName(k)
}

// Script is a parsed shell script.
type Script struct {
	src   string
	stmts []*syntax.Stmt
	// Err says why the script, or its end, was not read: it is too
	// large, nested too deeply, or has a syntax error (then the complete
	// lines before the error are kept: the shell runs those before it
	// reads the faulty one).
	Err error
}

// ErrTooLarge and ErrTooDeep are the limits of Parse.
var (
	ErrTooLarge = fmt.Errorf("script longer than %d bytes is not read", MaxScript)
	ErrTooDeep  = fmt.Errorf("script with more than %d nesting tokens is not read", MaxNesting)
)

// Parse parses a script in the given dialect (LangBash when zero).
func Parse(src string, lang syntax.LangVariant) *Script {
	s := &Script{src: src}
	if len(src) > MaxScript {
		s.Err = ErrTooLarge
		return s
	}
	if nestingTokens(src) > MaxNesting {
		s.Err = ErrTooDeep
		return s
	}
	if lang == 0 {
		lang = syntax.LangBash
	}
	p := syntax.NewParser(syntax.Variant(lang))
	var err error
	for st, e := range p.StmtsSeq(strings.NewReader(src)) {
		if e != nil {
			err = e
			break
		}
		s.stmts = append(s.stmts, st)
	}
	if err != nil {
		s.Err = err
		var pe syntax.ParseError
		line := uint(0)
		if errors.As(err, &pe) {
			line = pe.Pos.Line()
		}
		keep := 0
		for _, st := range s.stmts {
			if line == 0 || st.End().Line() >= line {
				break
			}
			keep++
		}
		s.stmts = s.stmts[:keep]
	}
	return s
}

// nestingTokens counts what can open a nested construct, and with it a
// level of the parser's recursion: brackets, back quotes, pipes, !, ?,
// and the compound-command keywords. It over-counts (quotes and comments
// are not skipped), so the bound it gives is safe.
func nestingTokens(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[', '`', '|', '!', '?':
			n++
		case 'i', 'w', 'u', 'f', 'c', 's', 't':
			if i > 0 && isWordByte(s[i-1]) {
				continue
			}
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			switch s[i:j] {
			case "if", "while", "until", "for", "case", "select", "function", "time", "coproc":
				n++
			}
			i = j - 1
		}
	}
	return n
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// text is the source text of a node.
func (s *Script) text(n syntax.Node) string {
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(s.src) || a > b {
		return ""
	}
	return s.src[a:b]
}

// SetsErrexit reports whether the script turns errexit on (set -e,
// set -o errexit) in a top-level command.
func (s *Script) SetsErrexit() bool {
	for _, st := range s.stmts {
		if on, ok := setErrexit(st); ok && on {
			return true
		}
	}
	return false
}

// setErrexit reads set -e / set +e / set -o errexit in a statement.
func setErrexit(st *syntax.Stmt) (on, ok bool) {
	ce, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || len(ce.Args) < 2 || lit(ce.Args[0]) != "set" {
		return false, false
	}
	for i := 1; i < len(ce.Args); i++ {
		a := lit(ce.Args[i])
		switch {
		case (a == "-o" || a == "+o") && i+1 < len(ce.Args):
			if lit(ce.Args[i+1]) == "errexit" {
				on, ok = a == "-o", true
			}
			i++
		case len(a) > 1 && (a[0] == '-' || a[0] == '+') && a != "--" && strings.Contains(a, "e"):
			on, ok = a[0] == '-', true
		}
	}
	return on, ok
}

// lit is the value of a word made only of literal text and quotes, or "".
func lit(w *syntax.Word) string {
	v, ok := Env{}.word(w)
	if !ok {
		return ""
	}
	return v
}

// name is the command name of a word: the base name of its literal
// value, or of its source text when it is not literal.
func (s *Script) name(w *syntax.Word) string {
	if v := lit(w); v != "" {
		return path.Base(v)
	}
	return path.Base(s.text(w))
}
