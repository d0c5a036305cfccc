package render

import (
	"context"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/metrics"
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

// watchMemory ends the child with childExitMemory once the memory the Go
// runtime holds from the OS passes limit. It samples, so a single huge
// allocation can overshoot it: the kernel limit above it (RLIMIT_DATA) is
// the hard bound.
func watchMemory(limit int64) {
	if limit <= 0 {
		return
	}
	debug.SetMemoryLimit(limit / 4 * 3)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		for range time.Tick(5 * time.Millisecond) {
			metrics.Read(s)
			if int64(s[0].Value.Uint64()-s[1].Value.Uint64()) > limit {
				os.Exit(childExitMemory)
			}
		}
	}()
}

// boundStack turns a recursion without end (a tpl that calls itself) into
// a quick fatal error the parent reports as the memory limit, rather than
// a stack grown to the runtime's 1 GB default.
func boundStack(lim Limits) {
	debug.SetMaxStack(int(min(max(lim.Memory/4, 16<<20), 256<<20)))
}
