package render

import (
	"os"
	"time"
)

// applyLimits has no kernel limit to set on Windows: the child watches its
// own memory, and the parent's wall-clock and output limits are the rest
// (SECURITY.md).
func applyLimits(lim Limits) error {
	boundStack(lim)
	watchMemory(lim.Memory)
	return nil
}

func cpuExhausted(*os.ProcessState, time.Duration) bool { return false }
