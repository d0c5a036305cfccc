package rules

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/shellread"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var PostStartRacesEntrypoint = &Rule{
	ID: "PL205", Name: "poststart-races-entrypoint", Title: "postStart hook calls the container's own server",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		for _, h := range p.Hooks() {
			if h.Kind != "postStart" {
				continue
			}
			switch {
			case h.H.HTTPGet != nil:
				checkPostStartHTTP(p, h)
			case h.H.Exec != nil:
				checkPostStartExec(p, h)
			}
		}
	},
}

// portOwner says whose server a port of the Pod network belongs to, seen
// from a hook of container self.
type portOwner int

const (
	portOther   portOwner = iota // an earlier container or a sidecar: already started
	portSelf                     // declared by this container, or by nobody while nothing else runs
	portLater                    // a regular container that starts after this hook returns
	portUnknown                  // undeclared while other containers run: could be any of them
)

func ownerOfPort(p *Pass, self ContainerRef, port int32) (portOwner, containerName) {
	for _, c := range p.Containers() {
		for _, cp := range c.C.Ports {
			if cp.ContainerPort != port || (cp.Protocol != "" && cp.Protocol != corev1.ProtocolTCP) {
				continue
			}
			switch {
			case c.Path == self.Path:
				return portSelf, c.Name()
			case c.Type == Init:
				continue // finished before anything with hooks started
			case c.Type == Regular && self.Type == Regular && laterContainer(p, self, c),
				c.Type == Regular && self.Type == Sidecar:
				// Regular containers start one by one after every sidecar,
				// each only when the previous hooks have returned.
				return portLater, c.Name()
			default:
				return portOther, c.Name()
			}
		}
	}
	if p.Spec.HostNetwork {
		return portUnknown, containerName{} // any process of the node may serve it
	}
	// Undeclared: ports are informational, so it can be served by this
	// container if nothing else in the Pod runs yet.
	for _, c := range p.Containers() {
		if c.Path == self.Path {
			return portSelf, self.Name()
		}
		if c.Type != Init {
			return portUnknown, containerName{}
		}
	}
	return portUnknown, containerName{}
}

// laterContainer reports whether regular container c is declared after
// regular container self.
func laterContainer(p *Pass, self, c ContainerRef) bool {
	seen := false
	for _, x := range p.Containers() {
		if x.Path == self.Path {
			seen = true
		}
		if x.Path == c.Path {
			return seen
		}
	}
	return false
}

func checkPostStartHTTP(p *Pass, h HookRef) {
	g := h.H.HTTPGet
	self := h.Container
	name := self.Name()
	if g.Host != "" {
		return // a named host is not the Pod itself
	}
	report := func(headline, format string, args ...any) {
		p.Report(Diagnostic{Path: h.Field("httpGet"), Container: name.Name, Message: headline, Detail: fmt.Sprintf(format, args...)})
	}
	var port int32
	switch {
	case g.Port.Type == intstr.Int:
		port = g.Port.IntVal
	default:
		if n, err := strconv.Atoi(g.Port.StrVal); err == nil {
			port = int32(n)
			break
		}
		for _, cp := range self.C.Ports {
			if cp.Name == g.Port.StrVal {
				port = cp.ContainerPort
			}
		}
		if port == 0 {
			return // an undeclared name never resolves: PL108
		}
	}
	if port < 1 || port > 65535 {
		return
	}
	owner, other := ownerOfPort(p, self, port)
	switch owner {
	case portSelf:
		report(fmt.Sprintf("postStart httpGet of %q races its own server on port %d", name, port),
			"The hook runs right after the entrypoint starts, with nothing that waits for the server to listen: when the hook wins the race it gets connection refused, the kubelet kills the container (FailedPostStartHook) and restarts it, possibly forever (CrashLoopBackOff). Do the call from the application once it is ready, or use an exec hook that retries until the port answers.")
	case portLater:
		report(fmt.Sprintf("postStart httpGet of %q calls %q, which starts only after the hook returns", name, other),
			"Port %d belongs to %q, which is declared after %q and started only when this hook has returned: the hook can never succeed, so %q is killed (FailedPostStartHook) and restarted forever (CrashLoopBackOff). Move the call into %q or drop the hook.",
			port, other, name, name, other)
	}
}

var (
	localURL = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:https?://)?(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(?::([0-9]{1,5}))?(?:[/?#].*)?$`)
	})
	// waiting are signs that a hook waits for the server or tolerates its
	// absence: loops, sleeps, retries, explicit waits.
	waiting = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:until|while|for|sleep|wait-for-it|wait-for|dockerize|timeout)\b|--retry|--tries|--waitretry|\bnc\s+-z\b`)
	})
)

func checkPostStartExec(p *Pass, h HookRef) {
	cmd := h.H.Exec.Command
	if len(cmd) == 0 {
		return
	}
	self := h.Container
	name := self.Name()
	var call []string // the curl/wget command words
	if b := path.Base(cmd[0]); b == "curl" || b == "wget" {
		call = cmd
	} else if inv := shellread.Invocation(cmd); inv.Script >= 0 {
		script := cmd[inv.Script]
		if waiting().MatchString(script) {
			return
		}
		parsed := shellread.Parse(script, inv.Lang)
		errexit := inv.Errexit || parsed.SetsErrexit()
		for _, c := range parsed.Commands() {
			if c.Name != "curl" && c.Name != "wget" || c.Nested {
				continue
			}
			if c.AfterOr || c.PipedIn {
				continue // it runs only when another command failed, or reads a pipe
			}
			// The hook fails with the call when its status is the
			// script's: in the last list, or under set -e at the end of
			// its list (a failure earlier in an && list ends nothing).
			if c.FailureFails(errexit) {
				call = c.Words
				break
			}
		}
	}
	if call == nil {
		return
	}
	var target string
	port := int32(80)
	for _, w := range call[1:] {
		w = strings.Trim(w, `'"`)
		if m := localURL().FindStringSubmatch(w); m != nil && !strings.HasPrefix(w, "-") {
			target = w
			if strings.HasPrefix(w, "https://") {
				port = 443
			}
			if m[1] != "" {
				n, _ := strconv.Atoi(m[1])
				port = int32(n)
			}
			break
		}
		if strings.HasPrefix(w, "--retry") || strings.HasPrefix(w, "--tries") || w == "-t" {
			return
		}
	}
	if target == "" || port < 1 || port > 65535 {
		return
	}
	owner, other := ownerOfPort(p, self, port)
	text := strings.Join(call, " ")
	if len(text) > 80 {
		text = text[:77] + "..."
	}
	report := func(headline, format string, args ...any) {
		p.Report(Diagnostic{Path: h.Field("exec.command"), Container: name.Name, Message: headline, Detail: fmt.Sprintf(format, args...)})
	}
	switch owner {
	case portSelf:
		report(fmt.Sprintf("postStart of %q races its own server on port %d", name, port),
			"It runs %q right after the entrypoint starts, with nothing that waits for the server on port %d: when the hook wins the race the call is refused, the hook fails, and the kubelet kills the container (FailedPostStartHook) and restarts it, possibly forever (CrashLoopBackOff). Retry until the port answers (until ...; do sleep 1; done) or make the call from the application.",
			text, port)
	case portLater:
		report(fmt.Sprintf("postStart of %q calls %q, which starts only after the hook returns", name, other),
			"It runs %q against port %d of %q, which is declared after %q and started only when this hook has returned: the call can never succeed, so %q is killed (FailedPostStartHook) and restarted forever (CrashLoopBackOff). Move the call into %q or drop the hook.",
			text, port, other, name, name, other)
	}
}
