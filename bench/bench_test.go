package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/internal/testcorpus"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/report"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"
)

// The benchmark corpus: 10 000 workload documents of the committed sample
// corpus (testdata/corpus), or of the folder $PODLINT_BENCH_CORPUS names,
// taken round-robin, 10 to a file, written to a temporary folder once per
// run. Run everything with scripts/bench.sh, or e.g.
//
//	go test -run=NONE -bench=. -benchtime=5x ./bench
const (
	corpusDocs = 10_000
	perFile    = 10
)

// corpusEnv names a folder of manifests to build the benchmark corpus from
// instead of the committed sample.
const corpusEnv = "PODLINT_BENCH_CORPUS"

// baseCorpus is the folder the benchmark corpus is built from.
func baseCorpus() (string, error) {
	if dir := os.Getenv(corpusEnv); dir != "" {
		return dir, nil
	}
	return testcorpus.Sample()
}

type fixture struct {
	corpus *Corpus
	paths  []string
	data   [][]byte // file contents, for the stages that start after reading

	large     string // the corpus as one file, once written (largeFile)
	largeData []byte
}

var (
	tmpDir   string
	baseDir  string
	baseDocs []Doc
	baseErr  error
	baseOnce sync.Once
	fixMu    sync.Mutex
	fixtures = map[int]*fixture{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
	os.Exit(code)
}

// corpusAt returns the corpus scale times the size of the standard one.
func corpusAt(b *testing.B, scale int) *fixture {
	b.Helper()
	baseOnce.Do(func() {
		if baseDir, baseErr = baseCorpus(); baseErr == nil {
			baseDocs, baseErr = Workloads(baseDir)
		}
	})
	if baseErr != nil {
		b.Fatal(baseErr)
	}
	b.Logf("corpus: %d distinct workload documents of %s ($%s overrides)", len(baseDocs), baseDir, corpusEnv)
	fixMu.Lock()
	defer fixMu.Unlock()
	if f := fixtures[scale]; f != nil {
		return f
	}
	if tmpDir == "" {
		d, err := os.MkdirTemp("", "podlint-bench-")
		if err != nil {
			b.Fatal(err)
		}
		tmpDir = d
	}
	dir := filepath.Join(tmpDir, fmt.Sprintf("x%d", scale))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	c := Build(baseDocs, corpusDocs*scale, perFile)
	paths, err := c.Write(dir)
	if err != nil {
		b.Fatal(err)
	}
	f := &fixture{corpus: c, paths: paths}
	if scale == 1 {
		for _, p := range paths {
			d, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			f.data = append(f.data, d)
		}
	}
	fixtures[scale] = f
	return f
}

// config runs every rule, the opt-in ones too: the benchmarks measure
// the whole catalog.
func config() *analyzer.Linter { return analyzer.Default(analyzer.Enable(rules.All...)) }

// perDoc runs body b.N times and reports bytes/s, time and allocations per
// document of the corpus.
func perDoc(b *testing.B, f *fixture, body func()) {
	b.Helper()
	b.SetBytes(f.corpus.Bytes())
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		body()
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	docs := float64(len(f.corpus.Docs)) * float64(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/docs, "ns/doc")
	// CPU time, all threads and the garbage collector included: on a
	// shared machine it varies much less than wall time.
	b.ReportMetric(float64(cpu.Nanoseconds())/docs, "cpu-ns/doc")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/docs, "allocs/doc")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/docs, "B/doc")
}

// BenchmarkFloor is what podlint is measured against, from memory (no
// reading, no splitting: the floors get those for free), sequentially and
// with as many workers as podlint uses, a file's documents to a worker:
//
//   - the typed-decode floor (sequential, workers=N): each document decoded
//     with sigs.k8s.io/yaml.Unmarshal into its k8s.io/api type, as kubectl
//     does;
//   - the node-parse floor (node-sequential, node-workers=N): each document
//     parsed into yaml.v3 nodes and nothing else, the least podlint must do
//     to know positions.
func BenchmarkFloor(b *testing.B) {
	f := corpusAt(b, 1)
	typed := func(d Doc) {
		if err := sigsyaml.Unmarshal(d.Text, reflect.New(d.Type).Interface()); err != nil {
			b.Fatal(err)
		}
	}
	node := func(d Doc) {
		var n yaml.Node
		if err := yaml.Unmarshal(d.Text, &n); err != nil {
			b.Fatal(err)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	for _, floor := range []struct {
		prefix string
		do     func(Doc)
	}{{"", typed}, {"node-", node}} {
		b.Run(floor.prefix+"sequential", func(b *testing.B) {
			perDoc(b, f, func() {
				for _, d := range f.corpus.Docs {
					floor.do(d)
				}
			})
		})
		b.Run(fmt.Sprintf("%sworkers=%d", floor.prefix, workers), func(b *testing.B) {
			perDoc(b, f, func() { onWorkers(f.corpus.Docs, workers, floor.do) })
		})
	}
}

// onWorkers runs do on every document, perFile documents (a file) at a time
// to each of workers goroutines.
func onWorkers(docs []Doc, workers int, do func(Doc)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for first := range next {
				for _, d := range docs[first:min(first+perFile, len(docs))] {
					do(d)
				}
			}
		})
	}
	for first := 0; first < len(docs); first += perFile {
		next <- first
	}
	close(next)
	wg.Wait()
}

// check is `podlint check` without the command line: read, load, analyze on
// the worker pool, write the text report.
func check(b testing.TB, cfg *analyzer.Linter, paths []string) *finding.Result {
	srcs := make([]manifest.Source, len(paths))
	for i, p := range paths {
		srcs[i] = manifest.Source{Path: p}
	}
	return checkSources(b, cfg, srcs)
}

// checkSources is check on sources already made: standard input is a
// Source holding its Data, as the command line makes it.
func checkSources(b testing.TB, cfg *analyzer.Linter, srcs []manifest.Source) *finding.Result {
	return checkFormat(b, cfg, srcs, "text")
}

// checkFormat is checkSources writing the report in format; for json and
// sarif, whose reports offer fixes, the fixes are verified as podlint check
// verifies them (fix.InRun: in the workers, and the rest after the run).
func checkFormat(b testing.TB, cfg *analyzer.Linter, srcs []manifest.Source, format string) *finding.Result {
	var opt analyzer.Options
	var verify *fix.InRun
	if format == "json" || format == "sarif" {
		verify = fix.NewInRun()
		opt.VerifyFixes = verify.Document
	}
	res, errs := analyzer.Run(cfg, opt, srcs)
	if len(errs) > 0 {
		b.Fatal(errs[0])
	}
	if verify != nil {
		verify.Finish(cfg, res, func(path string) ([]byte, error) { return os.ReadFile(path) })
	}
	if err := report.Write(io.Discard, format, res, report.Options{Rules: ruleInfos(cfg)}); err != nil {
		b.Fatal(err)
	}
	return res
}

func ruleInfos(cfg *analyzer.Linter) []finding.RuleInfo {
	var out []finding.RuleInfo
	for _, r := range rules.All {
		info := r.Info()
		info.Severity = cfg.Severity[r]
		out = append(out, info)
	}
	return out
}

// BenchmarkPipeline is the whole check over the corpus, with one worker per
// CPU as podlint runs it.
func BenchmarkPipeline(b *testing.B) {
	f := corpusAt(b, 1)
	cfg := config()
	res := check(b, cfg, f.paths)
	if res.Summary.Workloads != corpusDocs {
		b.Fatalf("linted %d workloads, want %d", res.Summary.Workloads, corpusDocs)
	}
	perDoc(b, f, func() { check(b, cfg, f.paths) })
}

// BenchmarkFormat is the pipeline writing each report format that check
// -f takes in CI: text, and json and sarif, which verify the fixes they
// offer (issue 37 item 1: within 5 % of text's CPU time is the goal).
func BenchmarkFormat(b *testing.B) {
	f := corpusAt(b, 1)
	cfg := config()
	srcs := make([]manifest.Source, len(f.paths))
	for i, p := range f.paths {
		srcs[i] = manifest.Source{Path: p}
	}
	for _, format := range []string{"text", "json", "sarif"} {
		b.Run(format, func(b *testing.B) {
			perDoc(b, f, func() { checkFormat(b, cfg, srcs, format) })
		})
	}
}

// BenchmarkLargeFile is the pipeline on the whole corpus as one file (the
// 1 000 files concatenated, every document still starting with "---"), read
// from disk: `helm template big-chart > all.yaml; podlint check all.yaml`.
func BenchmarkLargeFile(b *testing.B) {
	f := corpusAt(b, 1)
	path, _ := largeFile(b, f)
	cfg := config()
	if res := check(b, cfg, []string{path}); res.Summary.Workloads != corpusDocs {
		b.Fatalf("linted %d workloads, want %d", res.Summary.Workloads, corpusDocs)
	}
	perDoc(b, f, func() { check(b, cfg, []string{path}) })
}

// BenchmarkStdin is the same bytes as BenchmarkLargeFile given on standard
// input (`helm template big-chart | podlint check -`): the command line
// reads them before linting starts and hands them over as a Source with
// Data, which is what this benchmark does.
func BenchmarkStdin(b *testing.B) {
	f := corpusAt(b, 1)
	_, data := largeFile(b, f)
	cfg := config()
	src := []manifest.Source{{Path: "<stdin>", Data: data, Explicit: true}}
	if res := checkSources(b, cfg, src); res.Summary.Workloads != corpusDocs {
		b.Fatalf("linted %d workloads, want %d", res.Summary.Workloads, corpusDocs)
	}
	perDoc(b, f, func() { checkSources(b, cfg, src) })
}

// largeFile writes the corpus f as one file, once, and returns its path and
// contents.
func largeFile(b *testing.B, f *fixture) (string, []byte) {
	b.Helper()
	fixMu.Lock()
	defer fixMu.Unlock()
	if f.large == "" {
		data := f.corpus.Single()
		path := filepath.Join(tmpDir, fmt.Sprintf("large-%d.yaml", len(f.corpus.Docs)))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		f.large, f.largeData = path, data
	}
	return f.large, f.largeData
}

// BenchmarkStage measures each stage on its own, sequentially, so that their
// costs add up to the single-worker pipeline.
func BenchmarkStage(b *testing.B) {
	f := corpusAt(b, 1)
	cfg := config()
	b.Run("read", func(b *testing.B) {
		perDoc(b, f, func() {
			for _, p := range f.paths {
				if _, _, err := manifest.ReadSource(p, cfg.Limits.MaxFileSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	// parse is what the loader does before decoding: index the lines, split
	// the stream (every document of the corpus starts with a "---" line) and
	// parse each document into yaml.v3 nodes.
	b.Run("parse", func(b *testing.B) {
		perDoc(b, f, func() {
			for i, data := range f.data {
				manifest.NewFile(f.paths[i], data)
				for _, d := range bytes.Split(data[len("---\n"):], []byte("\n---\n")) {
					var n yaml.Node
					if err := yaml.Unmarshal(d, &n); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	})
	// load is manifest.Parse: parse plus the typed decoding and
	// normalization; decode = load - parse.
	b.Run("load", func(b *testing.B) {
		perDoc(b, f, func() {
			for i, data := range f.data {
				manifest.Parse(f.paths[i], data, cfg.Limits)
			}
		})
	})
	var objs []*manifest.Object
	for i, data := range f.data {
		objs = append(objs, manifest.Parse(f.paths[i], data, cfg.Limits).Objects...)
	}
	b.Run("timeline", func(b *testing.B) {
		perDoc(b, f, func() {
			for _, o := range objs {
				timeline.Compute(o.Workload, cfg.Version, cfg.Params)
			}
		})
	})
	tls := make([]*timeline.Timeline, len(objs))
	for i, o := range objs {
		tls[i] = timeline.Compute(o.Workload, cfg.Version, cfg.Params)
	}
	b.Run("rules", func(b *testing.B) {
		perDoc(b, f, func() {
			for i, o := range objs {
				tl := func() *timeline.Timeline { return tls[i] }
				for _, r := range rules.All {
					if r.Check != nil && cfg.Enabled(r) {
						r.Check(rules.NewPass(r, o, cfg.Version, cfg.Params, tl, func(rules.Diagnostic) {}))
					}
				}
			}
		})
	})
	// analyze is everything after reading, on one goroutine: load, timeline,
	// rules, suppressions and positions (analyzer.Linter.File).
	b.Run("analyze", func(b *testing.B) {
		perDoc(b, f, func() {
			for i, data := range f.data {
				cfg.File(f.paths[i], data, false)
			}
		})
	})
	res := check(b, cfg, f.paths)
	b.Run("report", func(b *testing.B) {
		opts := report.Options{Rules: ruleInfos(cfg)}
		perDoc(b, f, func() {
			if err := report.Write(io.Discard, "text", res, opts); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkScaling runs the pipeline on 1, 2 and 4 times the corpus: ns/doc
// should stay flat.
func BenchmarkScaling(b *testing.B) {
	cfg := config()
	for _, scale := range []int{1, 2, 4} {
		f := corpusAt(b, scale)
		b.Run(fmt.Sprintf("x%d", scale), func(b *testing.B) {
			perDoc(b, f, func() { check(b, cfg, f.paths) })
		})
	}
}
