//go:build benchtools

// Command floor is the whole-process floor podlint is compared with in
// scripts/bench.sh: a program that reads the same files and does only the
// least a linter of them must do, so that start-up, reading, splitting and
// the garbage collector are in both measurements.
//
//	go build -tags benchtools -o floor ./bench/floor
//	floor -parse node|typed [-workers N] PATH...
//
// -parse node parses each document into yaml.v3 nodes (the node-parse
// floor: podlint's own parse, which gives positions); -parse typed decodes
// each document with sigs.k8s.io/yaml into its k8s.io/api type, found by
// its kind, as kubectl does (the typed-decode floor; a kind it does not know
// is decoded into a map). PATH is a file, a folder (its .yaml and .yml
// files, recursively) or - for standard input. Files are read and split by
// one goroutine and their documents handed, up to 10 at a time, to
// -workers goroutines (default GOMAXPROCS; 1 is the sequential floor). It
// prints the number of documents and exits 1 if any failed to parse, so
// that a floor that skipped work is noticed.
//
// The build tag keeps the command out of `go install ./...` (see
// internal/integration).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"
)

// types are the workload kinds of the benchmark corpus.
var types = map[string]reflect.Type{
	"Pod":                   reflect.TypeFor[corev1.Pod](),
	"ReplicationController": reflect.TypeFor[corev1.ReplicationController](),
	"Deployment":            reflect.TypeFor[appsv1.Deployment](),
	"StatefulSet":           reflect.TypeFor[appsv1.StatefulSet](),
	"DaemonSet":             reflect.TypeFor[appsv1.DaemonSet](),
	"ReplicaSet":            reflect.TypeFor[appsv1.ReplicaSet](),
	"Job":                   reflect.TypeFor[batchv1.Job](),
	"CronJob":               reflect.TypeFor[batchv1.CronJob](),
}

func main() {
	parse := flag.String("parse", "", "node (yaml.v3 nodes) or typed (sigs.k8s.io/yaml into k8s.io/api types)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "goroutines parsing documents")
	flag.Parse()
	var do func([]byte) error
	switch *parse {
	case "node":
		do = func(doc []byte) error {
			var n yaml.Node
			return yaml.Unmarshal(doc, &n)
		}
	case "typed":
		do = typed
	}
	if do == nil || flag.NArg() == 0 || *workers < 1 {
		fmt.Fprintln(os.Stderr, "usage: floor -parse node|typed [-workers N] PATH...")
		os.Exit(2)
	}

	batches := make(chan [][]byte, *workers)
	var docs, failed atomic.Int64
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			for batch := range batches {
				for _, doc := range batch {
					docs.Add(1)
					if err := do(doc); err != nil {
						if failed.Add(1) == 1 {
							fmt.Fprintln(os.Stderr, "floor:", err)
						}
					}
				}
			}
		})
	}
	send := func(data []byte) {
		split := splitDocuments(data)
		for len(split) > 0 {
			n := min(10, len(split))
			batches <- split[:n]
			split = split[n:]
		}
	}
	code := 0
	for _, p := range flag.Args() {
		if err := read(p, send); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			code = 2
		}
	}
	close(batches)
	wg.Wait()
	fmt.Printf("%d documents, %d failed\n", docs.Load(), failed.Load())
	if failed.Load() > 0 && code == 0 {
		code = 1
	}
	os.Exit(code)
}

// read hands the contents of each file under p (or of standard input) to
// send.
func read(p string, send func([]byte)) error {
	if p == "-" {
		data, err := io.ReadAll(os.Stdin)
		if err == nil {
			send(data)
		}
		return err
	}
	return filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(path); d.IsDir() || (path != p && ext != ".yaml" && ext != ".yml") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err == nil {
			send(data)
		}
		return err
	})
}

// splitDocuments cuts a YAML stream at its "---" lines, without parsing.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	start := 0
	for line := 0; line < len(data); {
		end := bytes.IndexByte(data[line:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += line + 1
		}
		text := bytes.TrimRight(data[line:end], "\r\n")
		if bytes.Equal(text, []byte("---")) || bytes.HasPrefix(text, []byte("--- ")) {
			if len(bytes.TrimSpace(data[start:line])) > 0 {
				docs = append(docs, data[start:line])
			}
			start = end
		}
		line = end
	}
	if len(bytes.TrimSpace(data[start:])) > 0 {
		docs = append(docs, data[start:])
	}
	return docs
}

// typed decodes doc into the type of its kind, which it finds on a
// top-level "kind:" line without parsing.
func typed(doc []byte) error {
	var v any = &map[string]any{}
	if t, ok := types[kindOf(doc)]; ok {
		v = reflect.New(t).Interface()
	}
	return sigsyaml.Unmarshal(doc, v)
}

func kindOf(doc []byte) string {
	for len(doc) > 0 {
		line, rest, _ := bytes.Cut(doc, []byte("\n"))
		if k, ok := bytes.CutPrefix(line, []byte("kind:")); ok {
			return string(bytes.Trim(bytes.TrimSpace(k), `"'`))
		}
		doc = rest
	}
	return ""
}
