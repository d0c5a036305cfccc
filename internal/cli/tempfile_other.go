//go:build !unix

package cli

import (
	"io/fs"
	"os"
)

var stopSignals = []os.Signal{os.Interrupt}

func reraise(os.Signal) { os.Exit(130) }

// keepOwner: Windows files carry an ACL, which a new file in the same
// folder inherits; there is no owner to copy.
func keepOwner(*os.File, fs.FileInfo) error { return nil }

// mayWrite: the read-only attribute is the only write bit Go reports.
func mayWrite(_ string, fi fs.FileInfo) bool { return fi.Mode().Perm()&0o222 != 0 }
