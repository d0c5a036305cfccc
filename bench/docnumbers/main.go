//go:build benchtools

// Command docnumbers measures the numbers the documentation states
// (internal/docnumbers.Keys) and rewrites them between their markers in
// README.md, CONTRIBUTING.md and docs/ci.md; scripts/docnumbers.sh runs it
// from the repository root. It builds podlint the two ways the README
// describes (cgo-free with kustomize's plugin loader left out, and a plain
// build with cgo), weighs each executable, runs each on testdata/examples
// several times for its peak memory (the kernel's maxrss, the median of
// the runs), adds up the module archives `go mod download` keeps, and with
// -suite times `go test ./...` with an empty and then a full build cache.
//
// The build tag keeps the command out of `go install ./...`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/podlint/podlint/internal/docnumbers"
)

var documents = []string{"README.md", "CONTRIBUTING.md", "docs/ci.md"}

func main() {
	write := flag.Bool("write", false, "rewrite the documents (else print the numbers)")
	suite := flag.Bool("suite", false, "also time go test ./... with an empty and a full build cache (several minutes)")
	runs := flag.Int("runs", 7, "runs of each build for its peak memory")
	flag.Parse()
	if err := run(*write, *suite, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "docnumbers:", err)
		os.Exit(1)
	}
}

func run(write, suite bool, runs int) error {
	tmp, err := os.MkdirTemp("", "docnumbers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// podlint, podlint-render and podlint-observe, side by side as
	// installed: the sizes are of the three together.
	releaseDir, cgoDir := filepath.Join(tmp, "release"), filepath.Join(tmp, "cgo")
	if err := goCmd("build", "-tags", "kustomize_disable_go_plugin_support", "-o", releaseDir+"/", "./cmd/podlint", "./cmd/podlint-render", "./cmd/podlint-observe").env("CGO_ENABLED=0").run(); err != nil {
		return err
	}
	if err := goCmd("build", "-o", cgoDir+"/", "./cmd/podlint", "./cmd/podlint-render", "./cmd/podlint-observe").env("CGO_ENABLED=1").run(); err != nil {
		return err
	}
	release, cgo := filepath.Join(releaseDir, "podlint"), filepath.Join(cgoDir, "podlint")
	values := map[string]string{}
	for key, dir := range map[string]string{"size-release": releaseDir, "size-cgo": cgoDir} {
		var total int64
		for _, name := range []string{"podlint", "podlint-render", "podlint-observe"} {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				return err
			}
			total += fi.Size()
		}
		values[key] = docnumbers.Megabytes(total)
	}
	// Alternate the two builds so that a change in the machine's state
	// weighs on both alike.
	var rssRelease, rssCgo []int64
	for range runs {
		for _, b := range []struct {
			bin string
			out *[]int64
		}{{release, &rssRelease}, {cgo, &rssCgo}} {
			rss, err := peakRSS(b.bin, "check", "--no-config", "--color", "never", "testdata/examples")
			if err != nil {
				return err
			}
			*b.out = append(*b.out, rss)
		}
	}
	values["rss-cgo-extra"] = docnumbers.Mebibytes(max(0, median(rssCgo)-median(rssRelease)))
	mods, err := moduleBytes()
	if err != nil {
		return err
	}
	values["modules"] = docnumbers.Megabytes(mods)
	if suite {
		cache := filepath.Join(tmp, "gocache")
		for _, c := range []struct {
			key  string
			args []string
		}{{"suite-cold", []string{"test", "./..."}}, {"suite-warm", []string{"test", "-count=1", "./..."}}} {
			start := time.Now()
			if err := goCmd(c.args...).env("GOCACHE=" + cache).run(); err != nil {
				return fmt.Errorf("go %s: %v", strings.Join(c.args, " "), err)
			}
			values[c.key] = docnumbers.Minutes(time.Since(start).Seconds())
		}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Printf("%-14s %-12s %s\n", k, values[k], docnumbers.Keys[k].What)
	}
	if !write {
		return nil
	}
	for _, name := range documents {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if out := docnumbers.Rewrite(string(data), values); out != string(data) {
			if err := os.WriteFile(name, []byte(out), 0o644); err != nil {
				return err
			}
			fmt.Println("wrote", name)
		}
	}
	return nil
}

type command struct{ *exec.Cmd }

func goCmd(args ...string) command {
	c := exec.Command("go", args...)
	c.Stdout, c.Stderr = os.Stderr, os.Stderr
	c.Env = os.Environ()
	return command{c}
}

func (c command) env(kv ...string) command { c.Env = append(c.Env, kv...); return c }
func (c command) run() error               { return c.Run() }

// peakRSS runs bin and returns its peak resident memory in bytes. Exit 1
// (findings) is what the examples give.
func peakRSS(bin string, args ...string) (int64, error) {
	c := exec.Command(bin, args...)
	err := c.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		return 0, fmt.Errorf("%s: %v", bin, err)
	}
	ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, fmt.Errorf("no resource usage for %s on this system", bin)
	}
	return ru.Maxrss << 10, nil // kilobytes on Linux
}

func median(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// moduleBytes adds up the zip archives of the modules the build needs, as
// `go mod download` keeps them in the module cache.
func moduleBytes() (int64, error) {
	out, err := exec.Command("go", "mod", "download", "-json").Output()
	if err != nil {
		return 0, fmt.Errorf("go mod download -json: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var total int64
	for dec.More() {
		var m struct{ Zip string }
		if err := dec.Decode(&m); err != nil {
			return 0, err
		}
		if m.Zip == "" {
			continue
		}
		fi, err := os.Stat(m.Zip)
		if err != nil {
			return 0, err
		}
		total += fi.Size()
	}
	return total, nil
}
