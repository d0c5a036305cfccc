//go:build unix

package testbin

import (
	"os"
	"path/filepath"
	"syscall"
)

// TryLock takes the lock of dir (a file in it) for this process, without
// waiting: ok is false when another process holds it. The kernel releases
// the lock of a process that dies, so a test killed midway leaves none
// behind.
func TryLock(dir string) (unlock func(), ok bool) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
