package render

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// isolateNetwork replaces every way the libraries reach the network that
// Go lets a program replace. The default HTTP transport, which kustomize
// uses for URL patches, schemas and generator files, refuses with an
// error that becomes the finding. The resolver refuses too; with
// panicOnNetwork (tests) it panics, so that a library with a transport of
// its own shows. On Linux the child's seccomp filter also refuses sockets,
// whatever a library builds.
func isolateNetwork(panicOnNetwork bool) {
	http.DefaultTransport = roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errNetwork })
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		if panicOnNetwork {
			panic("podlint render child tried to resolve a name")
		}
		return nil, errNetwork
	}}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// watch is the child's one watcher goroutine: every watchTick it ends
// the child with childExitMemory once the memory the Go runtime holds from
// the OS passes lim.Memory (it samples, so a single huge allocation can
// overshoot it: the kernel limit above it, RLIMIT_DATA, is the hard
// bound), and every beatEvery(lim.Wall) it writes a beat line to w: the
// CPU time the child used, and whether anything but this goroutine was
// running or ready to run since the last beat. The parent stops a child
// only for a wall-clock limit when no beat said so for lim.Wall (a child
// that waits), and never for one the machine's load keeps from running:
// a goroutine the OS has not scheduled is still running or runnable to
// the Go scheduler. It is one goroutine so that no other watcher of ours
// can be counted as running.
func watch(lim Limits, w io.Writer) {
	if lim.Memory > 0 {
		debug.SetMemoryLimit(lim.Memory / 4 * 3)
	}
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"},
			{Name: "/sched/goroutines/running:goroutines"}, {Name: "/sched/goroutines/runnable:goroutines"}}
		every := beatEvery(lim.Wall)
		last := time.Now()
		busy := false
		for now := range time.Tick(watchTick) {
			metrics.Read(s)
			if lim.Memory > 0 && int64(s[0].Value.Uint64()-s[1].Value.Uint64()) > lim.Memory {
				os.Exit(childExitMemory)
			}
			// This goroutine is one of the running ones.
			busy = busy || s[2].Value.Uint64()+s[3].Value.Uint64() > 1
			if now.Sub(last) >= every {
				fmt.Fprintf(w, "%s%d %t\n", beatPrefix, selfCPU(), busy)
				last, busy = now, false
			}
		}
	}()
}

// watchTick is how often the child samples itself. Every 5 ms cost an
// idle child 2 % of a core at load 19 (10 s: 0.23 s of CPU); 20 ms, half
// of that. An allocation of more than the quarter between lim.Memory and
// the kernel's bound within one tick ends at the kernel's bound, which the
// parent reports as the memory limit too (outOfMemory).
const watchTick = 20 * time.Millisecond

// beatEvery is how often the child beats for a wall-clock limit of wall:
// ten times in it, within [watchTick, 1 s].
func beatEvery(wall time.Duration) time.Duration {
	return min(max(wall/10, watchTick), time.Second)
}

// beatPrefix starts the child's beat lines on its standard error.
const beatPrefix = "podlint-render-beat: "

// syncWriter serializes the child's writers of standard error (the beat,
// the libraries' log records), so that no line is cut by another.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// boundStack turns a recursion without end (a tpl that calls itself) into
// a quick fatal error the parent reports as the memory limit, rather than
// a stack grown to the runtime's 1 GB default.
func boundStack(lim Limits) {
	debug.SetMaxStack(int(min(max(lim.Memory/4, 16<<20), 256<<20)))
}
