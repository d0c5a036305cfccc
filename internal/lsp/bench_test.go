package lsp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/testcorpus"
)

// benchWorkspace copies 200 manifests of the committed sample corpus into
// one folder and writes a multi-document file of at least 2 000 lines
// beside them (more documents of the corpus), and returns its path and
// text.
func benchWorkspace(tb testing.TB) (dir, big string, text []byte) {
	sample, err := testcorpus.Sample()
	if err != nil {
		tb.Fatal(err)
	}
	files, err := testcorpus.Files(sample)
	if err != nil {
		tb.Fatal(err)
	}
	dir = tb.TempDir()
	n := 0
	var buf bytes.Buffer
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		base := filepath.Base(f)
		if bytes.Contains(data, []byte("{{")) || base == "kustomization.yaml" || base == "Chart.yaml" || filepath.Ext(f) == ".json" {
			continue // plain manifests only: a workspace without render roots
		}
		if n < 200 {
			writeFile(tb, filepath.Join(dir, fmt.Sprintf("m%03d.yaml", n)), string(data))
			n++
			continue
		}
		if bytes.Count(buf.Bytes(), []byte("\n")) < 2000 {
			buf.WriteString("---\n")
			buf.Write(data)
			if !bytes.HasSuffix(data, []byte("\n")) {
				buf.WriteByte('\n')
			}
		}
	}
	if n < 200 || bytes.Count(buf.Bytes(), []byte("\n")) < 2000 {
		tb.Fatalf("the sample corpus gave %d manifests and %d lines", n, bytes.Count(buf.Bytes(), []byte("\n")))
	}
	big = filepath.Join(dir, "big.yaml")
	writeFile(tb, big, buf.String())
	return dir, big, buf.Bytes()
}

// BenchmarkChangeToPublish measures the time from a change of a 2 000-line
// multi-document file, in a workspace of 200 manifests, to its published
// diagnostics, after the debounce (set to nothing here): the median is
// reported as ms/publish-median.
//
//	go test -run=NONE -bench=ChangeToPublish -benchtime=50x ./internal/lsp
func BenchmarkChangeToPublish(b *testing.B) {
	dir, big, text := benchWorkspace(b)
	e := &Podlint{Configure: defaultConfig}
	c := startServer(b, e, -1, nil)
	c.initializeIn(dir)
	uri := c.open(big, string(text), 1)
	first := c.waitDiags(uri)
	b.Logf("%d lines, %d diagnostics, workspace of 200 manifests", bytes.Count(text, []byte("\n")), len(first.Diagnostics))
	var took []time.Duration
	b.ResetTimer()
	for i := range b.N {
		v := i + 2
		// Each change edits a value, as typing does.
		edited := strings.Replace(string(text), "replicas: 1", fmt.Sprintf("replicas: %d", 1+i%5), 1)
		start := time.Now()
		c.change(uri, edited, v)
		for {
			p := c.waitDiags(uri)
			if p.Version != nil && *p.Version == v {
				break
			}
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms/publish-median")
}

// TestMemoryFlatOverEdits sends 10 000 changes and checks that the heap
// after the last one is within 2 MiB of the heap after the first 1 000:
// nothing of an old version (text, findings, timers, requests) stays.
func TestMemoryFlatOverEdits(t *testing.T) {
	if testing.Short() {
		t.Skip("10 000 edits")
	}
	e, dir := newEngine(t)
	c := startServer(t, e, time.Millisecond, nil)
	c.initializeIn(dir)
	uri := c.open(filepath.Join(dir, "pod.yaml"), pl113YAML, 1)
	c.waitDiags(uri)
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var base uint64
	var goroutines int
	for v := 2; v <= 10001; v++ {
		c.change(uri, strings.Replace(pl113YAML, "successThreshold: 2", fmt.Sprintf("successThreshold: %d", v), 1), v)
		if v%100 == 0 || v == 10001 {
			// Every hundredth edit waits for its diagnostics, as a pause
			// in typing would; the others are superseded by the debounce.
			for {
				p := c.waitDiags(uri)
				if *p.Version == v {
					break
				}
			}
		}
		if v == 1001 {
			base, goroutines = heap(), runtime.NumGoroutine()
		}
	}
	// Drain what was published meanwhile.
	for len(c.diags) > 0 {
		<-c.diags
	}
	end := heap()
	t.Logf("heap after 1 000 edits %d B, after 10 000 edits %d B; goroutines %d → %d", base, end, goroutines, runtime.NumGoroutine())
	if end > base+2<<20 {
		t.Errorf("heap grew from %d B to %d B over 9 000 edits", base, end)
	}
	if n := runtime.NumGoroutine(); n > goroutines+5 {
		t.Errorf("goroutines grew from %d to %d", goroutines, n)
	}
}
