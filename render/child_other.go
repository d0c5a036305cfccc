//go:build !linux

package render

import "syscall"

// confine has nothing to apply outside Linux: macOS and Windows children
// get the limits and the wall-clock cap (SECURITY.md).
func confine([]string) {}

// childProcAttr is nil: elsewhere the child ends at its limits, or at its
// next write once the parent is gone.
func childProcAttr() *syscall.SysProcAttr { return nil }
