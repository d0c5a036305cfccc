//go:build !unix

package cli

import "errors"

// mkfifo: this system has no named pipes in the file system; the tests
// that need one skip.
func mkfifo(string) error { return errors.New("no named pipes on this system") }
