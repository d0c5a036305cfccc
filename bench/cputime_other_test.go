//go:build !unix

package bench

import "time"

// cpuTime is unknown on this system (no getrusage); the benchmarks report
// wall time only.
func cpuTime() time.Duration { return 0 }
