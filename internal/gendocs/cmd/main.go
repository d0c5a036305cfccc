//go:build gendocs

// Command gendocs runs package gendocs for `go generate ./...`. The build
// tag keeps it out of `go install ./...`, which is how pre-commit installs
// podlint's hook (internal/integration checks that cmd/podlint is the only
// command the pattern matches).
package main

import "github.com/podlint/podlint/internal/gendocs"

func main() { gendocs.Main() }
