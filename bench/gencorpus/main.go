//go:build gencorpus

// Command gencorpus writes the benchmark corpus (see package bench) to a
// folder, for measuring the real binary:
//
//	go run -tags gencorpus ./bench/gencorpus [-from testdata/corpus] [-docs 10000] [-per-file 10] OUTDIR
//
// -from defaults to the sample corpus committed in testdata/corpus. The
// build tag keeps the command out of `go install ./...`, which is how
// pre-commit installs podlint's hook: cmd/podlint is the only command a
// user gets (internal/integration checks it).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/podlint/podlint/bench"
	"github.com/podlint/podlint/internal/testcorpus"
)

func main() {
	from := flag.String("from", "", "folder of real manifests to take workload documents from (default: the sample corpus in testdata/corpus)")
	docs := flag.Int("docs", 10_000, "number of documents")
	perFile := flag.Int("per-file", 10, "documents per file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus [-from DIR] [-docs N] [-per-file N] OUTDIR")
		os.Exit(2)
	}
	if *from == "" {
		sample, err := testcorpus.Sample()
		if err != nil {
			fmt.Fprintln(os.Stderr, "gencorpus:", err)
			os.Exit(2)
		}
		*from = sample
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
	fmt.Printf("%d documents (%d distinct, from %s) in %d files, %d bytes\n", len(c.Docs), len(base), *from, c.Files(), c.Bytes())
}
