//go:build unix

package cli

import "syscall"

// mkfifo makes a named pipe for the hostile-input tests.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
