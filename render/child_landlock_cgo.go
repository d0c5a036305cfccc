//go:build linux && cgo

package render

import "errors"

// landlockReadOnly needs go-landlock, which applies a ruleset to every
// thread with syscall.AllThreadsSyscall when cgo is off, and otherwise with
// the psx C library. Release builds and the Action build with
// CGO_ENABLED=0; a cgo build keeps seccomp and the limits only.
func landlockReadOnly([]string) error {
	return errors.New("landlock is applied only in builds with CGO_ENABLED=0")
}

const landlockBuilt = false
