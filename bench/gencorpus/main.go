//go:build gencorpus

// Command gencorpus writes the benchmark corpus (see package bench) to a
// folder, for measuring the real binary:
//
//	go run -tags gencorpus ./bench/gencorpus -from ../shared/corpus -scale 1 OUTDIR
//
// The build tag keeps it out of `go install ./...`, which is how
// pre-commit installs podlint's hook: cmd/podlint is the only command a
// user gets (internal/integration checks it).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/podlint/podlint/bench"
)

func main() {
	from := flag.String("from", "../shared/corpus", "folder of real manifests to take workload documents from")
	docs := flag.Int("docs", 10_000, "number of documents")
	perFile := flag.Int("per-file", 10, "documents per file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus [-from DIR] [-docs N] [-per-file N] OUTDIR")
		os.Exit(2)
	}
	base, err := bench.Workloads(*from)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	c := bench.Build(base, *docs, *perFile)
	if err := os.MkdirAll(flag.Arg(0), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	if _, err := c.Write(flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("%d documents (%d distinct) in %d files, %d bytes\n", len(c.Docs), len(base), c.Files(), c.Bytes())
}
