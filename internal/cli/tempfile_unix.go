//go:build unix

package cli

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/podlint/podlint/internal/settings"
	"golang.org/x/sys/unix"
)

var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// reraise ends the process with the status a shell gives a command the
// signal killed (128 + its number: 143 for SIGTERM, 130 for SIGINT).
func reraise(sig os.Signal) {
	n, _ := sig.(syscall.Signal)
	os.Exit(128 + int(n))
}

// keepOwner gives tmp the owner and group of the file it replaces (fi):
// a file rewritten by root, or by its owner as a member of its group,
// keeps them.
func keepOwner(tmp *os.File, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	now, err := tmp.Stat()
	if err != nil {
		return err
	}
	if cur, ok := now.Sys().(*syscall.Stat_t); ok && cur.Uid == st.Uid && cur.Gid == st.Gid {
		return nil
	}
	if err := tmp.Chown(int(st.Uid), int(st.Gid)); err != nil {
		return fmt.Errorf("cannot keep its owner and group (%d:%d): %v", st.Uid, st.Gid, settings.UnwrapPathErr(err))
	}
	return nil
}

// mayWrite reports whether the user running podlint may write the file at
// path itself: a file whose mode lets no one write it (0444) is read-only
// even for root, and one the user could not open for writing is not
// replaced by a rename either (the folder's permission would allow it).
func mayWrite(path string, fi fs.FileInfo) bool {
	if fi.Mode().Perm()&0o222 == 0 {
		return false
	}
	return unix.Access(path, unix.W_OK) == nil
}
