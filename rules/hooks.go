package rules

import (
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/podlint/podlint/timeline"
	corev1 "k8s.io/api/core/v1"
)

// HookRef is one lifecycle handler (preStop or postStart) of a container.
type HookRef struct {
	Container ContainerRef
	Kind      string // preStop | postStart
	H         *corev1.LifecycleHandler
	Path      string // full path of lifecycle.preStop / lifecycle.postStart
}

// Field returns the full path of a field of the handler.
func (h HookRef) Field(rel string) string { return timeline.Join(h.Path, rel) }

// Hooks lists the lifecycle handlers of regular containers and sidecars, in
// container order, postStart before preStop. Regular init containers may not
// have hooks at all (PL401 reports them), so they are left out.
func (p *Pass) Hooks() []HookRef {
	var out []HookRef
	for _, c := range p.Containers() {
		if c.Type == Init || c.C.Lifecycle == nil {
			continue
		}
		if h := c.C.Lifecycle.PostStart; h != nil {
			out = append(out, HookRef{Container: c, Kind: "postStart", H: h, Path: c.Field("lifecycle.postStart")})
		}
		if h := c.C.Lifecycle.PreStop; h != nil {
			out = append(out, HookRef{Container: c, Kind: "preStop", H: h, Path: c.Field("lifecycle.preStop")})
		}
	}
	return out
}

// Grace is the Pod's terminationGracePeriodSeconds after defaulting.
type Grace struct {
	Seconds int64 // 30 when unset; a negative value counts as 1
	Set     bool  // written in the manifest
	Path    string
}

// GracePeriod returns the pod-level grace period as the API server defaults
// it (corev1.DefaultTerminationGracePeriodSeconds = 30) and the kubelet
// reads it (negative values are coerced to 1).
func (p *Pass) GracePeriod() Grace {
	g := Grace{Seconds: corev1.DefaultTerminationGracePeriodSeconds, Path: p.SpecPath("terminationGracePeriodSeconds")}
	if t := p.Spec.TerminationGracePeriodSeconds; t != nil {
		g.Seconds, g.Set = *t, true
		if g.Seconds < 0 {
			g.Seconds = 1
		}
	}
	return g
}

// Related returns the grace period as a related location: the field when it
// is set, else the pod spec that lacks it.
func (g Grace) Related() Related {
	if g.Set {
		return Related{Path: g.Path, Message: sprintf("grace period %ds", g.Seconds)}
	}
	return Related{Path: g.Path, Message: sprintf("terminationGracePeriodSeconds is not set: %ds by default", g.Seconds)}
}

// Describe is "the grace period of 30s" with a note when it is the default.
func (g Grace) Describe() string {
	if g.Set {
		return sprintf("the grace period of %ds", g.Seconds)
	}
	return sprintf("the default grace period of %ds", g.Seconds)
}

// minStopGrace is the kubelet's minimumGracePeriodInSeconds: the runtime is
// never given less than 2 s between the stop signal and SIGKILL (T-2, X-7).
const minStopGrace = 2

// afterStop is how long a container has between its stop signal and SIGKILL
// when the signal goes out `stop` seconds into a kill with grace g: the
// kubelet subtracts the whole seconds already spent and never hands the
// runtime less than 2 s (T-2 steps 2–4).
func afterStop(stop float64, g int64) float64 {
	return math.Max(float64(g)-math.Floor(stop), minStopGrace)
}

// shells whose "-c SCRIPT" argument statedSleep reads.
var shells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true}

// shellScript returns the script of an exec command of the form
// [sh, (flags,) -c, SCRIPT, …], or ok=false.
func shellScript(cmd []string) (string, bool) {
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

// statedSleep reads the time an exec hook at least spends sleeping: the
// command is `sleep N` itself, or a shell script whose top-level commands
// include `sleep N` (summed when there are several). Sleeps inside
// conditionals, loops, subshells, functions, pipelines, after `||` or in the
// background are not counted, and neither are variables (`sleep $DELAY`):
// only what the manifest states for certain. ok=false when nothing is
// stated. +Inf stands for `sleep infinity`.
func statedSleep(cmd []string) (seconds float64, text string, ok bool) {
	if len(cmd) == 0 {
		return 0, "", false
	}
	if path.Base(cmd[0]) == "sleep" {
		s, ok := sleepArgs(cmd[1:])
		return s, strings.Join(cmd, " "), ok
	}
	script, isShell := shellScript(cmd)
	if !isShell {
		return 0, "", false
	}
	var texts []string
	for _, st := range topLevelCommands(script) {
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

// shellSeg is one simple command of a shell script with the operators
// around it (";" for a newline or the end).
type shellSeg struct {
	text, before, after string
}

// shellSegments splits a shell script into the simple commands that run at
// nesting depth 0, in order, with the operators around them. Quotes are
// respected; anything the splitter does not understand (subshells, command
// substitution, here documents, functions) makes the rest of the script
// count as nested, so the result errs towards fewer commands.
func shellSegments(script string) []shellSeg {
	var segs []shellSeg
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
			segs = append(segs, shellSeg{text: text, before: before, after: op})
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

// topLevelCommands is the simple commands of a shell script that run
// unconditionally, in order: those at nesting depth 0, not part of a
// pipeline, not after `||`, not in the background (see shellSegments).
func topLevelCommands(script string) []string {
	var out []string
	for _, s := range shellSegments(script) {
		if s.before == "||" || s.before == "|" || s.after == "|" || s.after == "&" {
			continue
		}
		out = append(out, s.text)
	}
	return out
}

// formatSeconds prints seconds as "30s", "1.5s" or "forever".
func formatSeconds(s float64) string {
	if math.IsInf(s, 1) {
		return "forever"
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + "s"
}
