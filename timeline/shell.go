package timeline

import (
	"math"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/podlint/podlint/internal/shellread"
	corev1 "k8s.io/api/core/v1"
)

// Reading what an exec command states about its own duration: the preStop
// model and the hook rules both need "how long does this exec hook sleep for
// certain", and a guess that counts a conditional sleep would report a
// finding that is not there. The reading itself is shellread's, shared with
// the rules.

// ContainerEnv is what a shell in the container knows of its environment
// from the manifest: the literal env values (a later entry wins); an entry
// with valueFrom or a $(VAR) reference is unknown, and envFrom may set any
// other name.
func ContainerEnv(c *corev1.Container) shellread.Env {
	var e shellread.Env
	if c == nil {
		return e
	}
	for _, v := range c.Env {
		if v.ValueFrom != nil || strings.Contains(v.Value, "$(") {
			e.Unknown(v.Name)
			continue
		}
		e.Set(v.Name, v.Value)
	}
	e.Open = len(c.EnvFrom) > 0
	return e
}

// ExecSleep reads an exec command of container c: the time it certainly
// sleeps and the bound a timeout(1) around it puts on it (see
// shellread.StatedSleep).
func ExecSleep(cmd []string, c *corev1.Container) shellread.Sleep {
	return shellread.StatedSleep(cmd, ContainerEnv(c))
}

// StatedSleep reads the time an exec command at least spends sleeping,
// with no variable known: ok=false when nothing is stated. +Inf stands for
// `sleep infinity`.
func StatedSleep(cmd []string) (seconds float64, text string, ok bool) {
	s := shellread.StatedSleep(cmd, shellread.Env{})
	return s.Min, s.Text, s.OK
}

// StatedExit is the exit code a container's command certainly ends with,
// when the manifest says it: `false`, or a shell script (sh -c) whose last
// top-level statement is `exit N` with a literal N and that cannot leave
// earlier (no other exit, no exec, no errexit). ok is false otherwise: the
// image's entrypoint, a code that depends on what ran, anything the reader
// does not follow. A process killed by a signal exits otherwise, but the
// crash podlint models is the command running to its end.
func StatedExit(c *corev1.Container) (code int32, ok bool) {
	if c == nil || len(c.Command) == 0 {
		return 0, false
	}
	return statedExit(append(append([]string(nil), c.Command...), c.Args...))
}

// statedExit is StatedExit of a command line (a container's, or an exec
// probe's).
func statedExit(cmd []string) (code int32, ok bool) {
	call := shellread.Invocation(cmd)
	if call.Script < 0 {
		if call.Rest == len(cmd)-1 && path.Base(cmd[call.Rest]) == "false" {
			return 1, true
		}
		return 0, false
	}
	if call.Errexit || call.Script != len(cmd)-1 && call.Script != len(cmd)-2 {
		// Words after the script only set $0; more would be odd enough
		// not to guess.
		return 0, false
	}
	script := cmd[call.Script]
	s := shellread.Parse(script, call.Lang)
	if s.Err != nil || s.SetsErrexit() || hasExecWord(script) {
		// exec replaces the shell, whose exit then never runs.
		return 0, false
	}
	cs := s.Commands()
	exits := 0
	for _, cm := range cs {
		if cm.Name == "exit" || cm.Name == "return" {
			exits++
		}
	}
	if len(cs) == 0 || exits != 1 {
		return 0, false
	}
	last := cs[len(cs)-1]
	if last.Name != "exit" || len(last.Words) != 2 || !last.Final || !last.LastOfList || last.AfterOr || last.Nested || last.Background || last.PipedIn {
		return 0, false
	}
	n, err := strconv.ParseUint(last.Words[1], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n % 256), true
}

// hasExecWord reports whether script has "exec" as a word of its own (not
// inside a name such as execute or my-exec), as
// (^|[^A-Za-z0-9_-])exec($|[^A-Za-z0-9_-]) matches; a scan, since the
// regular expression was a third of the cost of reading a command.
func hasExecWord(script string) bool {
	for i := 0; ; {
		j := strings.Index(script[i:], "exec")
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len("exec")
		if (at == 0 || !wordByte(script[at-1])) && (end == len(script) || !wordByte(script[end])) {
			return true
		}
		i = at + 1
	}
}

func wordByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// StatedRun is how long a container's command certainly runs before it
// exits by itself: a command whose exit StatedExit states, after sleeps
// that add up to that many seconds (`sh -c "sleep 700; exit 1"`: 700).
// Anything else the script runs counts as 0, so the run is a lower bound.
// ok is false when the command states no exit, no sleep, or an endless
// one.
func StatedRun(c *corev1.Container) (seconds float64, ok bool) {
	if _, exits := StatedExit(c); !exits {
		return 0, false
	}
	return statedRunOf(c)
}

// statedRunOf is StatedRun of a container whose exit StatedExit states.
func statedRunOf(c *corev1.Container) (seconds float64, ok bool) {
	cmd := append(append([]string(nil), c.Command...), c.Args...)
	s := shellread.StatedSleep(cmd, ContainerEnv(c))
	if !s.OK || math.IsInf(s.Min, 1) || math.IsNaN(s.Min) || s.Min <= 0 {
		return 0, false
	}
	return s.Min, true
}

// StatedHealth is how long each run of container c stays healthy for its
// exec probe pr, when the two state it (R-3 liveness kills):
//
//   - 0 when the probe states its failure: false, or a script that ends in
//     a literal exit N other than 0;
//   - h when the command creates a file (touch F) before any sleep, removes
//     it (rm F) after sleeps of h seconds, and the probe checks that file
//     (test -e F, [ -f F ], cat F, ls F, stat F). alive is how long the
//     command then certainly keeps running: +Inf for an endless loop or
//     sleep infinity, else its stated sleeps after the rm (anything else
//     counts as 0). The caller compares it with the time the probe takes
//     to act: a command that ends first crashes instead.
//
// Like StatedRun, h counts only sleeps, so it is a lower bound; ok is false
// when nothing is stated.
func StatedHealth(c *corev1.Container, pr *corev1.Probe) (healthy, alive float64, ok bool) {
	if c == nil || pr == nil || pr.Exec == nil || len(pr.Exec.Command) == 0 {
		return 0, 0, false
	}
	file, fails := probeCheck(pr.Exec.Command)
	if fails {
		return 0, math.Inf(1), true
	}
	if file == "" {
		return 0, 0, false
	}
	cmd := append(append([]string(nil), c.Command...), c.Args...)
	if len(c.Command) == 0 && shellread.Invocation(c.Args).Script < 0 {
		// Arguments alone run the image's entrypoint with them: read
		// only a shell script, which an image without an entrypoint (or
		// one that runs its arguments, as tini and dumb-init do) runs.
		return 0, 0, false
	}
	steps, slept, _, read := shellread.Steps(cmd, ContainerEnv(c))
	if !read {
		return 0, 0, false
	}
	created := -1
	for i, st := range steps {
		switch {
		case created < 0 && st.Name == "touch" && len(st.Args) == 1 && st.Args[0] == file:
			if st.Slept > 0 {
				return 0, 0, false // unhealthy while it sleeps before
			}
			created = i
		case created >= 0 && st.Name == "rm" && removes(st.Args, file):
			alive = slept - st.Slept
			for _, after := range steps[i+1:] {
				if after.Endless {
					alive = math.Inf(1)
				}
			}
			return st.Slept, alive, true
		}
	}
	return 0, 0, false
}

// probeCheck reads an exec probe's command: the file whose presence it
// checks, or fails when it states its failure.
func probeCheck(cmd []string) (file string, fails bool) {
	if code, ok := statedExit(cmd); ok {
		return "", code != 0
	}
	call := shellread.Invocation(cmd)
	if call.Script < 0 {
		if call.Rest >= len(cmd) {
			return "", false
		}
		return checkedFile(path.Base(cmd[call.Rest]), cmd[call.Rest+1:]), false
	}
	steps, _, complete, ok := shellread.Steps(cmd, shellread.Env{})
	if !ok || !complete || call.Errexit || len(steps) == 0 {
		return "", false
	}
	// The last statement's status is the probe's.
	last := steps[len(steps)-1]
	return checkedFile(last.Name, last.Args), false
}

// checkedFile is the file a command checks the presence of: test -e F,
// [ -f F ], cat F, ls F, stat F (one absolute path, no pattern).
func checkedFile(name string, args []string) string {
	if name == "[" && len(args) > 0 && args[len(args)-1] == "]" {
		name, args = "test", args[:len(args)-1]
	}
	var f string
	switch {
	case name == "test" && len(args) == 2 && (args[0] == "-e" || args[0] == "-f" || args[0] == "-s" || args[0] == "-r"):
		f = args[1]
	case (name == "cat" || name == "ls" || name == "stat") && len(args) == 1:
		f = args[0]
	default:
		return ""
	}
	if !strings.HasPrefix(f, "/") || strings.ContainsAny(f, "*?[") {
		return ""
	}
	return f
}

// removes reports whether rm's arguments (flags, then operands) remove
// file.
func removes(args []string, file string) bool { return slices.Contains(args, file) }
