package rules

import (
	"fmt"
	"math"
	"regexp"
	"sync"

	"github.com/podlint/podlint/internal/shellread"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

// This file reads what an init container runs: its command and args, and
// when that is a shell invocation (sh -c '…'), the script. The reading is
// shellread's (a real shell parser shared with the timeline model); what
// is here ties it to field paths and to the rules' heuristics (which
// commands reach the network).

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

// commandScript is a container's command understood as a shell script.
type commandScript struct {
	// Script is the text after -c with its path; empty when the command is
	// not a shell invocation.
	Script cmdWord
	// Parsed is the script read by shellread (nil without a script).
	Parsed *shellread.Script
	// Errexit is set when the shell runs with -e or the script sets it.
	Errexit bool
	// Exec is the whole command when it is not a shell invocation.
	Exec []cmdWord
	call shellread.Call
}

// scriptOf finds "sh -c SCRIPT" (any shell, flags such as -ec or -o
// pipefail before -c, wrappers such as timeout or env before the shell).
func scriptOf(words []cmdWord) commandScript {
	texts := make([]string, len(words))
	for i, w := range words {
		texts[i] = w.Text
	}
	call := shellread.Invocation(texts)
	if call.Script < 0 {
		return commandScript{Exec: words, call: call}
	}
	cs := commandScript{Script: words[call.Script], Errexit: call.Errexit, call: call}
	cs.Parsed = shellread.Parse(cs.Script.Text, call.Lang)
	if cs.Parsed.SetsErrexit() {
		cs.Errexit = true
	}
	return cs
}

// TimeBounded reports whether the whole command runs under timeout(1).
func (cs commandScript) TimeBounded() bool { return !math.IsInf(cs.call.Timeout.Bound(), 1) }

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
var urlRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(https?|postgres(ql)?|mysql|redis|rediss|mongodb(\+srv)?|amqps?|nats|kafka|tcp|grpc|s3|gs|git|ssh|ftp)://`)
})

// networkCall describes why a command reaches the network, or "".
func networkCall(name string, words []string) string {
	if networkTools[name] {
		return name
	}
	for _, w := range words[1:] {
		if m := urlRE().FindString(w); m != "" {
			return fmt.Sprintf("%s with a %s URL", name, m[:len(m)-3])
		}
	}
	return ""
}

// forcedSleep is the time an init container certainly spends in sleep
// before it can finish (shellread.StatedSleep: only sleeps on every path,
// with $VAR from the container's literal env). sleep infinity is not a
// delay but a container that never ends (PL303's concern) and is not
// counted.
func forcedSleep(c ContainerRef) (float64, bool) {
	words := containerCommand(c)
	cmd := make([]string, len(words))
	for i, w := range words {
		cmd[i] = w.Text
	}
	s := timeline.ExecSleep(cmd, c.C)
	if !s.OK || math.IsInf(s.Min, 1) {
		return 0, false
	}
	return s.Min, true
}
