package timeline

import (
	"math"
	"path"
	"strconv"
	"strings"
)

// Reading what a shell command states about its own duration: the preStop
// model and the hook rules both need "how long does this exec hook sleep for
// certain", and a guess that counts a conditional sleep would report a
// finding that is not there.

// shells whose "-c SCRIPT" argument StatedSleep reads.
var shells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true}

// ShellScript returns the script of an exec command of the form
// [sh, (flags,) -c, SCRIPT, …], or ok=false.
func ShellScript(cmd []string) (string, bool) {
	if len(cmd) < 3 {
		return "", false
	}
	i := 0
	if path.Base(cmd[0]) == "busybox" || path.Base(cmd[0]) == "env" {
		i++
	}
	if !shells[path.Base(cmd[i])] {
		return "", false
	}
	for i++; i < len(cmd); i++ {
		a := cmd[i]
		if a == "-o" || a == "+o" {
			i++ // -o pipefail
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return "", false
		}
		if !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
			if i+1 < len(cmd) {
				return cmd[i+1], true
			}
			return "", false
		}
	}
	return "", false
}

// StatedSleep reads the time an exec hook at least spends sleeping: the
// command is `sleep N` itself, or a shell script whose top-level commands
// include `sleep N` (summed when there are several). Sleeps inside
// conditionals, loops, subshells, functions, pipelines, after `||` or in the
// background are not counted, and neither are variables (`sleep $DELAY`):
// only what the manifest states for certain. ok=false when nothing is
// stated. +Inf stands for `sleep infinity`.
func StatedSleep(cmd []string) (seconds float64, text string, ok bool) {
	if len(cmd) == 0 {
		return 0, "", false
	}
	if path.Base(cmd[0]) == "sleep" {
		s, ok := sleepArgs(cmd[1:])
		return s, strings.Join(cmd, " "), ok
	}
	script, isShell := ShellScript(cmd)
	if !isShell {
		return 0, "", false
	}
	var texts []string
	for _, st := range TopLevelCommands(script) {
		words := strings.Fields(st)
		if len(words) > 0 && words[0] == "exec" {
			words = words[1:]
		}
		if len(words) < 2 || path.Base(words[0]) != "sleep" {
			continue
		}
		s, good := sleepArgs(words[1:])
		if !good {
			continue
		}
		seconds += s
		texts = append(texts, strings.Join(words, " "))
		ok = true
	}
	return seconds, strings.Join(texts, "; "), ok
}

// sleepArgs parses the operands of sleep(1): numbers with an optional
// s/m/h/d suffix, summed, or "infinity".
func sleepArgs(args []string) (float64, bool) {
	if len(args) == 0 {
		return 0, false
	}
	total := 0.0
	for _, a := range args {
		if a == "infinity" || a == "inf" {
			return math.Inf(1), true
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
		total += f * mult
	}
	return total, true
}

// shellOpener and shellCloser are the reserved words that open and close a
// compound command.
var (
	shellOpener = map[string]bool{"if": true, "while": true, "until": true, "for": true, "case": true, "select": true, "{": true, "function": true}
	shellCloser = map[string]bool{"fi": true, "done": true, "esac": true, "}": true}
)

// ShellSeg is one simple command of a shell script with the operators
// around it (";" for a newline or the end).
type ShellSeg struct {
	Text, Before, After string
}

// ShellSegments splits a shell script into the simple commands that run at
// nesting depth 0, in order, with the operators around them. Quotes are
// respected; anything the splitter does not understand (subshells, command
// substitution, here documents, functions) makes the rest of the script
// count as nested, so the result errs towards fewer commands.
func ShellSegments(script string) []ShellSeg {
	var segs []ShellSeg
	var cur strings.Builder
	depth, before, opaque := 0, "", false
	flush := func(op string) {
		text := strings.TrimSpace(cur.String())
		cur.Reset()
		if text == "" && op == ";" {
			return // empty line or ";;"
		}
		top := depth == 0 && !opaque
		if words := strings.Fields(text); len(words) > 0 {
			switch {
			case shellOpener[words[0]]:
				depth++
				top = false
			case shellCloser[words[0]]:
				depth--
				top = false
			}
		}
		if top {
			segs = append(segs, ShellSeg{Text: text, Before: before, After: op})
		}
		before = op
	}
	var quote rune
	rs := []rune(script)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if quote != 0 {
			cur.WriteRune(r)
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' && i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
			}
			continue
		}
		prevSpace := i == 0 || strings.ContainsRune(" \t\n;&|", rs[i-1])
		switch {
		case r == '\'' || r == '"':
			quote = r
			cur.WriteRune(r)
		case r == '\\' && i+1 < len(rs):
			i++
			if rs[i] == '\n' { // line continuation
				cur.WriteRune(' ')
				continue
			}
			cur.WriteRune(r)
			cur.WriteRune(rs[i])
		case r == '#' && prevSpace:
			for i+1 < len(rs) && rs[i+1] != '\n' {
				i++
			}
		case r == '`' || r == '(' || r == ')' || r == '<' && i+1 < len(rs) && rs[i+1] == '<':
			opaque = true
			cur.WriteRune(r)
		case r == ';' || r == '\n':
			flush(";")
		case r == '&' && i+1 < len(rs) && rs[i+1] == '&':
			i++
			flush("&&")
		case r == '|' && i+1 < len(rs) && rs[i+1] == '|':
			i++
			flush("||")
		case r == '&':
			flush("&")
		case r == '|':
			flush("|")
		default:
			cur.WriteRune(r)
		}
	}
	flush(";")
	return segs
}

// TopLevelCommands is the simple commands of a shell script that run
// unconditionally, in order: those at nesting depth 0, not part of a
// pipeline, not after `||`, not in the background (see ShellSegments).
func TopLevelCommands(script string) []string {
	var out []string
	for _, s := range ShellSegments(script) {
		if s.Before == "||" || s.Before == "|" || s.After == "|" || s.After == "&" {
			continue
		}
		out = append(out, s.Text)
	}
	return out
}
