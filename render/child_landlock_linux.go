//go:build linux && !cgo

package render

import (
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockReadOnly lets the child read only the given folders and files,
// and write or execute nothing. Best effort: the newest Landlock ABI the
// kernel has. From ABI v4 it also refuses TCP bind and connect.
func landlockReadOnly(readable []string) error {
	var dirs, files []string
	for _, p := range readable {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			dirs = append(dirs, p)
		} else if err == nil {
			files = append(files, p)
		}
	}
	return landlock.V7.BestEffort().Restrict(
		landlock.PathAccess(landlock.AccessFSSet(llsys.AccessFSReadFile|llsys.AccessFSReadDir), dirs...),
		landlock.PathAccess(landlock.AccessFSSet(llsys.AccessFSReadFile), files...))
}

// landlockBuilt: this build applies Landlock (see child_landlock_cgo.go).
const landlockBuilt = true
