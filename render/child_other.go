//go:build !linux

package render

// confine has nothing to apply outside Linux: macOS and Windows children
// get the limits and the wall-clock cap (SECURITY.md).
func confine([]string) {}
