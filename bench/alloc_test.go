package bench

import (
	"os"
	"testing"

	"github.com/podlint/podlint/internal/alloctest"
	"github.com/podlint/podlint/internal/testcorpus"
	"github.com/podlint/podlint/manifest"
)

// TestAllocationsPerDocument bounds what the pipeline and the loader
// allocate per document (counts of allocations, never times), on every
// distinct workload document of the committed sample corpus once, 10 to a
// file. The bounds are about twice what was measured when they were set, so
// that only a real regression (an allocation per node, a copy of every
// file, a lost cache) fails; scripts/bench.sh reports the exact figures.
func TestAllocationsPerDocument(t *testing.T) {
	const (
		// Measured 2026-11-25 on main (cfdc75e) with go1.26.8: pipeline
		// 1 046 allocations per document, load 709.
		maxPipeline = 2100
		maxLoad     = 1400
		// Bytes: 57 125 per document before the loader reused its
		// converters (2026-12-07, go1.26.8), 49 260 after; the bound
		// fails a loader that grows a JSON buffer per document again.
		maxLoadBytes = 53000
	)
	dir, err := testcorpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	base, err := Workloads(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sample corpus %s: %d distinct workload documents", dir, len(base))
	c := Build(base, len(base), perFile)
	paths, err := c.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var data [][]byte
	for _, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, d)
	}
	cfg := config()
	docs := float64(len(c.Docs))
	if res := check(t, cfg, paths); res.Summary.Workloads != len(c.Docs) {
		t.Fatalf("linted %d workloads, want %d", res.Summary.Workloads, len(c.Docs))
	}
	pipeline := testing.AllocsPerRun(2, func() { check(t, cfg, paths) }) / docs
	load := testing.AllocsPerRun(2, func() {
		for i, d := range data {
			manifest.Parse(paths[i], d, cfg.Limits)
		}
	}) / docs
	loadBytes := float64(alloctest.Min(func() {
		for i, d := range data {
			manifest.Parse(paths[i], d, cfg.Limits)
		}
	})) / docs
	t.Logf("allocations per document: pipeline %.0f (bound %d), load %.0f (bound %d), %.0f bytes (bound %d)", pipeline, maxPipeline, load, maxLoad, loadBytes, maxLoadBytes)
	if pipeline > maxPipeline {
		t.Errorf("the pipeline allocates %.0f times per document, more than %d", pipeline, maxPipeline)
	}
	if loadBytes > maxLoadBytes {
		t.Errorf("manifest.Parse allocates %.0f bytes per document, more than %d", loadBytes, maxLoadBytes)
	}
	if load > maxLoad {
		t.Errorf("manifest.Parse allocates %.0f times per document, more than %d", load, maxLoad)
	}
}
