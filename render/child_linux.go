package render

import (
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// confine gives up, for the rest of the child's life, what rendering never
// needs: writing or executing files and reading outside readable
// (Landlock, where the kernel and build have it), and creating sockets or
// running programs (seccomp). Both are best effort: a kernel without them
// still has the limits and the wall-clock cap.
func confine(readable []string) {
	_ = landlockReadOnly(readable)
	_ = denySyscalls()
}

// deniedSyscalls are refused with EPERM: sockets (every network use starts
// with one; io_uring can make one without the socket call) and programs.
var deniedSyscalls = []uint32{unix.SYS_SOCKET, unix.SYS_EXECVE, unix.SYS_EXECVEAT, unix.SYS_IO_URING_SETUP, unix.SYS_PTRACE}

// auditArch is the architecture a seccomp filter checks, so that a system
// call made through another ABI cannot slip past the numbers above.
func auditArch() (uint32, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, true
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, true
	}
	return 0, false
}

// denySyscalls installs a seccomp filter on every thread of the process.
func denySyscalls() error {
	arch, ok := auditArch()
	if !ok {
		return unix.ENOTSUP
	}
	const (
		ldAbsW = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge    = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret    = unix.BPF_RET | unix.BPF_K
		// offsets in struct seccomp_data
		nrOffset   = 0
		archOffset = 4
		x32Bit     = 0x40000000
	)
	n := len(deniedSyscalls)
	prog := []unix.SockFilter{
		{Code: ldAbsW, K: archOffset},
		{Code: jeq, Jt: 1, K: arch},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: ldAbsW, K: nrOffset},
		// The x32 ABI of amd64 numbers its calls from bit 30 up.
		{Code: jge, Jt: uint8(n + 1), K: x32Bit},
	}
	for i, nr := range deniedSyscalls {
		prog = append(prog, unix.SockFilter{Code: jeq, Jt: uint8(n - i), K: nr})
	}
	prog = append(prog,
		unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)})
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// TSYNC puts the filter (and no_new_privs) on every thread the Go
	// runtime has started, not only this one.
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return e
	}
	return nil
}

// childProcAttr has the kernel kill the child when the podlint that started
// it dies, so an interrupted run leaves no renderer behind.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
