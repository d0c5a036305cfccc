//go:build !unix

package safefile

import "os"

// openFlags: Windows has no FIFOs a path could name, and os.Root refuses
// its reserved device names.
const openFlags = 0

const noFollow = 0

func checkFS(*os.File) error { return nil }
