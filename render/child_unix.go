//go:build unix

package render

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// applyLimits sets the child's own resource limits before it reads any of
// the root, so the kernel enforces them whatever the renderer does.
func applyLimits(lim Limits) error {
	// At the soft CPU limit the kernel sends SIGXCPU, which the child
	// turns into an exit status the parent recognizes; one second later
	// the hard limit kills it even if that handler cannot run.
	sec := uint64(max(1, (lim.CPU+time.Second-1)/time.Second))
	xcpu := make(chan os.Signal, 1)
	signal.Notify(xcpu, syscall.SIGXCPU)
	go func() {
		<-xcpu
		os.Exit(childExitCPU)
	}()
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: sec, Max: sec + 1}); err != nil {
		return err
	}
	// RLIMIT_AS would count the address space the Go runtime reserves
	// but never touches (the runtime fails at start under any useful
	// bound); RLIMIT_DATA counts what is really allocated. It is the hard
	// bound, a quarter above the limit: watch stops the child at the
	// limit itself with a clear status, and the runtime's failures at the
	// hard bound are not always recognizable. macOS does not enforce it;
	// see SECURITY.md.
	if lim.Memory > 0 {
		m := uint64(lim.Memory + lim.Memory/4)
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: m, Max: m}); err != nil {
			return err
		}
	}
	boundStack(lim)
	return nil
}

// cpuExhausted reports whether the child ended at its CPU-time limit: the
// exit status of its SIGXCPU handler, or killed after using the limit.
func cpuExhausted(ps *os.ProcessState, limit time.Duration) bool {
	if ps == nil {
		return false
	}
	if ps.ExitCode() == childExitCPU {
		return true
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || (ws.Signal() != syscall.SIGKILL && ws.Signal() != syscall.SIGXCPU) {
		return false
	}
	return ps.UserTime()+ps.SystemTime() >= limit
}

// selfCPU is the CPU time this process used, all threads, as the kernel
// counts it for RLIMIT_CPU.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
