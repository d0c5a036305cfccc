package rules

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

// This file reads what an init container runs: its command and args, and
// when that is a shell invocation (sh -c '…'), the script. The reading is a
// heuristic tokenizer, not a shell: it understands quotes, comments, the
// list operators and the compound-command keywords well enough to find
// polling loops, network calls and fixed sleeps, and it errs towards
// finding nothing (anything inside a nested quoted script is opaque).

// cmdWord is one element of command or args with its field path.
type cmdWord struct {
	Path workload.Path
	Text string
}

// containerCommand lists command then args, each with its path.
func containerCommand(c ContainerRef) []cmdWord {
	var out []cmdWord
	for i, s := range c.C.Command {
		out = append(out, cmdWord{Path: c.Field("command").Index(i), Text: s})
	}
	for i, s := range c.C.Args {
		out = append(out, cmdWord{Path: c.Field("args").Index(i), Text: s})
	}
	return out
}

var scriptShells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "busybox": true}

// commandScript is a container's command understood as a shell script.
type commandScript struct {
	// Script is the text after -c with its path; empty when the command is
	// not a shell invocation.
	Script cmdWord
	// Prefix are the words before the shell (timeout 300 sh -c …).
	Prefix []string
	// Errexit is set when the shell runs with -e or the script sets it.
	Errexit bool
	// Exec is the whole command when it is not a shell invocation.
	Exec []cmdWord
}

// scriptOf finds "sh -c SCRIPT" (any shell, flags such as -ec or -o
// pipefail before -c, words such as timeout before the shell).
func scriptOf(words []cmdWord) commandScript {
	for i, w := range words {
		base := path.Base(w.Text)
		if !scriptShells[base] {
			continue
		}
		j := i + 1
		if base == "busybox" {
			if j >= len(words) || !scriptShells[words[j].Text] {
				continue
			}
			j++
		}
		errexit := false
		for ; j < len(words); j++ {
			f := words[j].Text
			if !strings.HasPrefix(f, "-") || f == "-" || f == "--" {
				break
			}
			if f == "-o" || f == "+o" {
				if j+1 < len(words) && words[j+1].Text == "errexit" {
					errexit = true
				}
				j++
				continue
			}
			if strings.HasPrefix(f, "--") {
				continue
			}
			if strings.Contains(f, "e") {
				errexit = true
			}
			if strings.Contains(f, "c") && j+1 < len(words) {
				cs := commandScript{Script: words[j+1], Errexit: errexit}
				for _, p := range words[:i] {
					cs.Prefix = append(cs.Prefix, p.Text)
				}
				if scriptSetsErrexit(cs.Script.Text) {
					cs.Errexit = true
				}
				return cs
			}
		}
		break
	}
	return commandScript{Exec: words}
}

var errexitSetRE = regexp.MustCompile(`(?m)(^|[;&|\s])set\s+(-[a-zA-Z]*e[a-zA-Z]*\b|-o\s+errexit\b)`)

func scriptSetsErrexit(s string) bool { return errexitSetRE.MatchString(s) }

// TimeBounded reports whether the whole command runs under timeout(1).
func (cs commandScript) TimeBounded() bool {
	for _, p := range cs.Prefix {
		if path.Base(p) == "timeout" {
			return true
		}
	}
	if len(cs.Exec) > 0 && path.Base(cs.Exec[0].Text) == "timeout" {
		return true
	}
	return false
}

// shTok is one token of a shell script: a word or an operator.
type shTok struct {
	text string
	off  int
	op   bool // ; ;; & && || | ( ) { } or a newline
	cmd  bool // the word is in command position
}

// shellTokens splits a script into words and operators and marks the
// words in command position.
func shellTokens(s string) []shTok {
	var toks []shTok
	var cur strings.Builder
	start := -1
	flush := func() {
		if start >= 0 {
			toks = append(toks, shTok{text: cur.String(), off: start})
			cur.Reset()
			start = -1
		}
	}
	word := func(i int, b byte) {
		if start < 0 {
			start = i
		}
		cur.WriteByte(b)
	}
	op := func(i int, t string) {
		flush()
		toks = append(toks, shTok{text: t, off: i, op: true})
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == ' ' || b == '\t' || b == '\r':
			flush()
		case b == '\n':
			op(i, "\n")
		case b == '#' && start < 0:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i--
		case b == '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++ // line continuation
				continue
			}
			word(i, b)
			if i+1 < len(s) {
				i++
				word(i, s[i])
			}
		case b == '\'' || b == '"' || b == '`':
			word(i, b)
			for i++; i < len(s) && s[i] != b; i++ {
				if s[i] == '\\' && b != '\'' && i+1 < len(s) {
					word(i, s[i])
					i++
				}
				word(i, s[i])
			}
			if i < len(s) {
				word(i, s[i])
			}
		case b == '&' && (i > 0 && (s[i-1] == '>' || s[i-1] == '<') || i+1 < len(s) && s[i+1] == '>'):
			word(i, b) // 2>&1, &>file
		case b == ';' || b == '&' || b == '|':
			if i+1 < len(s) && s[i+1] == b {
				op(i, string([]byte{b, b}))
				i++
			} else {
				op(i, string(b))
			}
		case b == '(' || b == ')':
			op(i, string(b))
		case (b == '{' || b == '}') && start < 0 && (i+1 == len(s) || strings.IndexByte(" \t\n;", s[i+1]) >= 0):
			op(i, string(b))
		default:
			word(i, b)
		}
	}
	flush()
	// Command position: at the start, after an operator, after a keyword
	// that starts a command list, and after an assignment word.
	next := true
	for i := range toks {
		t := &toks[i]
		if t.op {
			next = t.text != ")" && t.text != "}"
			continue
		}
		t.cmd = next
		switch {
		case !next:
		case shCommandKeywords[t.text], strings.Contains(t.text, "=") && isAssignment(t.text):
			next = true
		default:
			next = false
		}
	}
	return toks
}

var shCommandKeywords = map[string]bool{"do": true, "then": true, "else": true, "elif": true, "if": true, "while": true, "until": true, "!": true, "time": true, "exec": true}

var assignmentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(w string) bool { return assignmentRE.MatchString(w) }

// shLoop is a while or until loop of a script.
type shLoop struct {
	Kind string // while | until
	// Cond and Body are the script text of the condition and of the body.
	Cond, Body string
	// Head is "until nslookup mydb" for messages.
	Head string
	// Background: the loop runs in the background (done &), so the
	// script does not wait for it.
	Background bool
	// first and last token indexes (the keyword and done).
	first, last int
	body        []shTok
}

// shellLoops finds the while and until loops of a script in order; a loop
// nested in another comes after it.
func shellLoops(s string, toks []shTok) []shLoop {
	// One pass with a stack of open loops matches each while/until with
	// its do (the first do at its own depth) and its done; scanning ahead
	// from every keyword was quadratic on "while;" × 150 000.
	type open struct{ at, doAt int }
	var stack []open
	var found []shLoop
	for j, u := range toks {
		if !u.cmd {
			continue
		}
		switch u.text {
		case "while", "until", "for", "select":
			stack = append(stack, open{at: j, doAt: -1})
		case "do":
			if n := len(stack); n > 0 && stack[n-1].doAt < 0 {
				stack[n-1].doAt = j
			}
		case "done":
			n := len(stack)
			if n == 0 {
				continue
			}
			o := stack[n-1]
			stack = stack[:n-1]
			t := toks[o.at]
			if o.doAt < 0 || (t.text != "while" && t.text != "until") {
				continue
			}
			cond := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[t.off+len(t.text):toks[o.doAt].off]), ";\n"))
			body := s[toks[o.doAt].off+2 : u.off]
			bg := j+1 < len(toks) && toks[j+1].op && toks[j+1].text == "&"
			found = append(found, shLoop{Kind: t.text, Cond: cond, Body: body, Head: t.text + " " + oneLine(cond, 50), Background: bg, first: o.at, last: j, body: toks[o.doAt+1 : j]})
		}
	}
	// In order of their keywords: an outer loop before the loops inside it.
	sort.Slice(found, func(a, b int) bool { return found[a].first < found[b].first })
	return found
}

// oneLine shortens script text for a message. It reads no more of s than
// the n characters it keeps, so a long condition costs nothing.
func oneLine(s string, n int) string {
	var b strings.Builder
	runes, space := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
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

var loopCounterRE = regexp.MustCompile(`\$\(\(|\(\(|\blet\s|\bexpr\s|\+\+|\+=|\$SECONDS|\bseq\s|date\s+\+%s|\bdeadline\b|\bmax_?(attempts|retries|tries|wait)\b|\bretries\b|\battempts?\b|\btries\b`)

// Inside reports whether the loop is nested in o.
func (l shLoop) Inside(o shLoop) bool { return l.first > o.first && l.last < o.last }

// Infinite reports whether the loop condition is always true.
func (l shLoop) Infinite() bool {
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
func (l shLoop) Waits() bool {
	if l.Kind == "while" && (strings.HasPrefix(l.Cond, "read ") || strings.Contains(l.Cond, " read ") || strings.HasPrefix(l.Cond, "IFS=")) {
		return false
	}
	if l.Kind == "until" || l.Infinite() || strings.HasPrefix(l.Cond, "!") {
		return true
	}
	return l.runs("sleep")
}

// runs reports whether the loop body runs the command name.
func (l shLoop) runs(name string) bool {
	for _, t := range l.body {
		if t.cmd && path.Base(t.text) == name {
			return true
		}
	}
	return false
}

// Leaves reports whether the body can leave the loop (break, exit,
// return).
func (l shLoop) Leaves() bool { return l.runs("break") || l.runs("exit") || l.runs("return") }

// GivesUp reports whether the loop is bounded by itself: it counts
// attempts or time, or fails out with a non-zero exit.
func (l shLoop) GivesUp() bool {
	if loopCounterRE.MatchString(l.Cond) || loopCounterRE.MatchString(l.Body) {
		return true
	}
	for i, t := range l.body {
		if t.cmd && t.text == "exit" {
			if i+1 < len(l.body) && !l.body[i+1].op && l.body[i+1].text != "0" {
				return true
			}
		}
	}
	// A per-attempt timeout inside the condition does not bound the loop,
	// but timeout around a nested script in the body does not either; only
	// counters and failing exits do.
	return false
}

// shCommand is one simple command of a script: its name, its words, where
// it stands in its and-or list and whether it is nested in a compound
// command.
type shCommand struct {
	Name   string
	Words  []string
	Nested bool // inside a loop, if, case, braces or a subshell
	// InLoop is set inside a while/until/for loop.
	InLoop bool
	// LastOfList: no && or || follows it in its and-or list; OrFollows: a
	// || follows it (its failure is handled).
	LastOfList, OrFollows bool
	// Final is set for a top-level command in the script's last list, whose
	// status becomes the script's exit code.
	Final bool
	// Background: followed by &. PipedOut: its output goes into a pipe,
	// whose status is the last command's.
	Background, PipedOut bool
}

// shellCommands lists the simple commands of a script in order.
func shellCommands(toks []shTok) []shCommand {
	opens := func(t shTok) bool {
		if t.op {
			return t.text == "(" || t.text == "{"
		}
		return t.cmd && (t.text == "while" || t.text == "until" || t.text == "for" || t.text == "select" || t.text == "if" || t.text == "case")
	}
	closes := func(t shTok) bool {
		if t.op {
			return t.text == ")" || t.text == "}"
		}
		return t.cmd && (t.text == "done" || t.text == "fi" || t.text == "esac")
	}
	// The script's exit code is that of its last top-level list: find the
	// last top-level separator (; & newline) that has something after it.
	// One pass: remember the last top-level separator, and let it count
	// once a token that is not a separator follows it (a scan ahead from
	// every separator was quadratic on a million newlines).
	lastSep, pending, depth := -1, -1, 0
	for i, t := range toks {
		if !(t.op && (t.text == ";" || t.text == "\n")) {
			lastSep = pending
		}
		switch {
		case opens(t):
			depth++
		case closes(t):
			depth = max(depth-1, 0)
		case t.op && depth == 0 && (t.text == ";" || t.text == "\n" || t.text == "&"):
			pending = i
		}
	}
	var out []shCommand
	var loops []bool // per open compound: is it a loop
	inLoops := 0     // how many of them are loops
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case opens(t):
			isLoop := !t.op && t.text != "if" && t.text != "case"
			loops = append(loops, isLoop)
			if isLoop {
				inLoops++
			}
			continue
		case closes(t):
			if n := len(loops); n > 0 {
				if loops[n-1] {
					inLoops--
				}
				loops = loops[:n-1]
			}
			continue
		case t.op || !t.cmd || shCommandKeywords[t.text] || isAssignment(t.text):
			continue
		}
		c := shCommand{Name: path.Base(t.text), Nested: len(loops) > 0, InLoop: inLoops > 0, Final: len(loops) == 0 && i > lastSep}
		j := i
		for ; j < len(toks) && !toks[j].op; j++ {
			c.Words = append(c.Words, toks[j].text)
		}
		switch {
		case j == len(toks):
			c.LastOfList = true
		case toks[j].text == "&&":
		case toks[j].text == "||":
			c.OrFollows = true
		case toks[j].text == "|":
			c.PipedOut = true
		case toks[j].text == "&":
			c.Background, c.LastOfList = true, true
		default:
			c.LastOfList = true
		}
		out = append(out, c)
		i = j - 1
	}
	return out
}

// networkTools are commands that reach another host; their failures are
// usually transient (DNS not ready yet, a dependency restarting).
var networkTools = map[string]bool{
	"nslookup": true, "dig": true, "host": true, "ping": true, "wget": true, "curl": true, "nc": true, "ncat": true,
	"netcat": true, "telnet": true, "pg_isready": true, "psql": true, "mysql": true, "mysqladmin": true,
	"redis-cli": true, "mongo": true, "mongosh": true, "cqlsh": true, "kubectl": true, "gsutil": true, "gcloud": true,
	"aws": true, "az": true, "helm": true, "git": true, "rsync": true, "scp": true, "ssh": true, "vault": true,
	"consul": true, "etcdctl": true, "grpcurl": true, "grpc_health_probe": true,
	"apk": true, "apt-get": true, "apt": true, "yum": true, "dnf": true, "microdnf": true, "pip": true, "pip3": true,
	"npm": true, "yarn": true,
}

// urlRE matches a network URL in an argument (file:// excluded).
var urlRE = regexp.MustCompile(`\b(https?|postgres(ql)?|mysql|redis|rediss|mongodb(\+srv)?|amqps?|nats|kafka|tcp|grpc|s3|gs|git|ssh|ftp)://`)

// networkCall describes why a command reaches the network, or "".
func networkCall(name string, words []string) string {
	if networkTools[name] {
		return name
	}
	for _, w := range words[1:] {
		if m := urlRE.FindString(w); m != "" {
			return fmt.Sprintf("%s with a %s URL", name, strings.TrimSuffix(m, "://"))
		}
	}
	return ""
}

// forcedSleep is the time a command certainly spends in sleep before it
// can finish: sleep N as the exec form, or the top-level sleep commands of
// a script up to its first command that is not a plain simple command
// (control flow, an early exit or a background job could skip the rest).
// It is stricter than timeline.StatedSleep (hooks), which also counts sleeps after a
// conditional: for a lower bound of an init container's run, an earlier
// `if …; then exit 0; fi` may skip them. sleep infinity is not a delay but a
// container that never ends (PL303's concern) and is not counted.
func forcedSleep(c ContainerRef) (float64, bool) {
	words := containerCommand(c)
	cs := scriptOf(words)
	if cs.Script.Text == "" {
		if len(words) >= 2 && path.Base(words[0].Text) == "sleep" {
			var args []string
			for _, w := range words[1:] {
				args = append(args, w.Text)
			}
			if sec, ok := sleepSeconds(args); ok && !math.IsInf(sec, 1) {
				return sec, true
			}
		}
		return 0, false
	}
	toks := shellTokens(cs.Script.Text)
	total, found := 0.0, false
	for _, cmd := range shellCommands(toks) {
		if cmd.Nested || cmd.Background || cmd.Name == "exit" || cmd.Name == "exec" {
			break
		}
		if cmd.Name == "sleep" && len(cmd.Words) >= 2 {
			s, ok := sleepSeconds(cmd.Words[1:])
			if !ok || math.IsInf(s, 1) {
				break
			}
			total += s
			found = true
		}
		if cmd.OrFollows {
			break
		}
	}
	return total, found
}

// FailureFails reports whether a failure of the command makes the script
// exit non-zero: it is in the script's last list, or errexit is on and it
// ends its and-or list; not when its failure is handled (||), piped,
// backgrounded, retried in a loop or nested in a compound command.
func (c shCommand) FailureFails(errexit bool) bool {
	if c.InLoop || c.Nested || c.Background || c.OrFollows || c.PipedOut {
		return false
	}
	return c.Final || errexit && c.LastOfList
}

// sleepSeconds parses the operands of sleep(1) the way the model does.
func sleepSeconds(args []string) (float64, bool) {
	s, _, ok := timeline.StatedSleep(append([]string{"sleep"}, args...))
	return s, ok
}
