//go:build apisurface

// Command apisurface prints, for each package of the module in the
// current folder, how many identifiers it exports and how many of those no
// other package uses (see package apisurface); -v lists the unused ones.
//
//	go run -tags apisurface ./internal/apisurface/cmd [-v]
//
// The tag keeps it out of go install ./..., which installs podlint's
// commands alone.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/podlint/podlint/internal/apisurface"
)

func main() {
	verbose := flag.Bool("v", false, "list the identifiers no other package uses")
	flag.Parse()
	pkgs, err := apisurface.Count(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "apisurface:", err)
		os.Exit(2)
	}
	var exported, unused int
	fmt.Printf("%-50s %8s %8s\n", "package", "exported", "unused")
	for _, p := range pkgs {
		exported += len(p.Exported)
		unused += len(p.Unused)
		fmt.Printf("%-50s %8d %8d\n", p.Path, len(p.Exported), len(p.Unused))
		if *verbose && len(p.Unused) > 0 {
			fmt.Printf("    %s\n", strings.Join(p.Unused, " "))
		}
	}
	fmt.Printf("%-50s %8d %8d\n", "total", exported, unused)
}
