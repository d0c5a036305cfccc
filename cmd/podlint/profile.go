package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a file to write a CPU profile of the whole run to, for
// scripts/bench.sh (see docs/performance.md). It is an environment variable
// rather than a flag so that it stays out of the help and the command line
// of every subcommand.
const cpuProfileEnv = "PODLINT_CPUPROFILE"

// startCPUProfile starts profiling when $PODLINT_CPUPROFILE names a file
// and returns the function that stops it; a file that cannot be written is
// reported and the run goes on unprofiled.
func startCPUProfile() (stop func()) {
	path := os.Getenv(cpuProfileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "podlint: %s: %v\n", cpuProfileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "podlint: %s: %v\n", cpuProfileEnv, err)
		}
	}
}
