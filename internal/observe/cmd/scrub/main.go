//go:build observescrub

// Command scrub rewrites what kubectl get pods,events,replicasets,jobs -A
// -o json printed so that it can be committed as test data (observe.Scrub).
// It is behind a build tag so that go install ./... installs podlint's
// commands alone:
//
//	kubectl get pods,events,replicasets,jobs -A -o json | go run -tags observescrub ./internal/observe/cmd/scrub > recorded.json
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/podlint/podlint/internal/observe"
)

func main() {
	data, err := io.ReadAll(io.LimitReader(os.Stdin, observe.MaxListFile+1))
	if err == nil && len(data) > observe.MaxListFile {
		err = fmt.Errorf("more than %d MB", observe.MaxListFile>>20)
	}
	if err == nil {
		data, err = observe.Scrub(data)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "scrub: %v\n", err)
		os.Exit(2)
	}
	os.Stdout.Write(append(data, '\n'))
}
