package analyzer

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// TestInputBytesIsPerRun: a run counts the bytes of the large inputs it
// holds into its own Options.InputBytes, while it lints them, and gives
// them back as it merges them; two runs of one process at once never see
// each other's (the counter was a package variable, shared by every run
// of the process: tests and the editor server).
func TestInputBytesIsPerRun(t *testing.T) {
	t.Parallel()
	web, err := os.ReadFile(filepath.Join("..", "testdata", "examples", "web-deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l := &Linter{Rules: rules.All, Severity: map[*rules.Rule]finding.Severity{}, Version: timeline.Latest, Params: timeline.DefaultParams(), Limits: manifest.DefaultLimits}
	for _, r := range rules.All {
		if !r.DefaultOff {
			l.Severity[r] = r.Severity
		}
	}
	run := func(copies int, counter *atomic.Int64) (seen []int64) {
		data := bytes.Repeat(append(append([]byte{}, web...), "---\n"...), copies)
		// The count a worker sees while it verifies a document's fixes,
		// with the input loaded.
		var mu sync.Mutex
		var peak int64
		opt := Options{SplitBytes: 1 << 10, BatchBytes: 1 << 10, InputBytes: counter, VerifyFixes: func(*FixDoc) {
			mu.Lock()
			defer mu.Unlock()
			peak = max(peak, counter.Load())
		}}
		if _, errs := Run(l, opt, []manifest.Source{{Path: "big.yaml", Data: data, Explicit: true}}); len(errs) > 0 {
			t.Fatal(errs)
		}
		return []int64{peak, counter.Load(), int64(len(data))}
	}
	var a, b atomic.Int64
	done := make(chan []int64)
	go func() { done <- run(3, &a) }()
	gotB := run(5, &b)
	gotA := <-done
	for _, got := range [][]int64{gotA, gotB} {
		held, after, size := got[0], got[1], got[2]
		if held != size || after != 0 {
			t.Errorf("a run of %d bytes: held %d while linting, %d after; want %d, then 0", size, held, after, size)
		}
	}
}
