//go:build benchtools

// Command perfdoc measures the podlint binary as a whole process and writes
// the results into docs/performance.md; scripts/bench.sh builds the binaries
// and runs it. It measures
//
//   - paired ratios on the benchmark corpus (10 000 workload documents, 10
//     to a file): podlint against the node-parse and typed-decode floors of
//     bench/floor, sequential and on one worker per CPU, each pair run back
//     to back (alternating which goes first), the median of the per-pair
//     ratios of wall and of CPU time;
//   - podlint on 1×, 2×, 4× and 8× the corpus: wall, CPU (user+sys) and
//     peak RSS (the kernel's maxrss of the process, what GNU time's %M
//     prints);
//   - the same documents as one large file and on standard input, at 1× and
//     at the scale that makes a file of about -large-mb MB;
//   - a small file: the whole process, and GODEBUG=inittrace=1's most
//     expensive package initializations;
//   - a CPU profile of a whole run ($PODLINT_CPUPROFILE), split by stage
//     with `go tool pprof -traces`;
//   - and, given -suite, the summary of the `go test -bench` suite.
//
// The results go between the markers `<!-- BEGIN bench.sh LABEL -->` and
// `<!-- END bench.sh LABEL -->` (-label, default after), with their numbers
// in a comment; the `comparison` section then puts the before and after
// numbers side by side.
//
// The build tag keeps the command out of `go install ./...`.
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/podlint/podlint/bench"
	"github.com/podlint/podlint/internal/testcorpus"
)

type options struct {
	podlint, floor, from, work, small, format, label, doc, suite string
	runs, pairs, smallRuns, initRuns, profileScale               int
	scales                                                       []int
	largeMB                                                      float64
	// The start-up comparison (-startup): kube-score's executable, the
	// pairs, and the commit to name (the podlint measured may be another
	// checkout's build).
	kubeScore, commit string
	startupPairs      int
	startup           bool
	// The formats comparison (-formats): the build before the change, if
	// any, run in the same rounds.
	formats bool
	base    string
}

func main() {
	var o options
	flag.StringVar(&o.podlint, "podlint", "", "podlint binary (required)")
	flag.StringVar(&o.floor, "floor", "", "bench/floor binary (required)")
	flag.StringVar(&o.from, "from", "", "folder of real manifests the corpus is built from (default testdata/corpus)")
	flag.StringVar(&o.work, "work", "", "scratch folder for the corpora and profiles (required)")
	flag.StringVar(&o.small, "small", "testdata/examples/healthy-deployment.yaml", "the small file of the latency measurement")
	flag.StringVar(&o.format, "format", "json", "podlint's report format")
	flag.StringVar(&o.label, "label", "after", "section of the document to write: before or after")
	flag.StringVar(&o.doc, "doc", "docs/performance.md", "document to write the results into (empty: print them)")
	flag.StringVar(&o.suite, "suite", "", "output of the go test -bench suite to summarize")
	flag.IntVar(&o.runs, "runs", 3, "runs per row of the scale and large-file tables")
	flag.IntVar(&o.pairs, "pairs", 5, "pairs per floor")
	flag.IntVar(&o.smallRuns, "small-runs", 40, "runs of the small file")
	flag.IntVar(&o.initRuns, "init-runs", 5, "runs with GODEBUG=inittrace=1")
	flag.IntVar(&o.profileScale, "profile-scale", 2, "corpus scale of the profiled run")
	scales := flag.String("scales", "1,2,4,8", "corpus scales of the scale table")
	flag.Float64Var(&o.largeMB, "large-mb", 60, "size in MB the large file should reach (the corpus is repeated to reach it)")
	flag.BoolVar(&o.startup, "startup", false, "measure only the start-up on -small against -kube-score, into the `startup LABEL` section")
	flag.StringVar(&o.kubeScore, "kube-score", "", "kube-score binary, for -startup")
	flag.IntVar(&o.startupPairs, "startup-pairs", 200, "pairs of podlint and kube-score runs, for -startup")
	flag.StringVar(&o.commit, "commit", "", "commit to name in the results (default: the checkout's)")
	flag.BoolVar(&o.formats, "formats", false, "measure only text against json and sarif (CPU, peak RSS; -pairs rounds) on the corpus at 1× and 4×, into the `formats` section")
	flag.StringVar(&o.base, "base", "", "podlint binary of the code before the change, for -formats: run in the same rounds")
	flag.Parse()
	for _, s := range strings.Split(*scales, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fail(fmt.Errorf("-scales: %q is not a positive number", s))
		}
		o.scales = append(o.scales, n)
	}
	if o.startup {
		if o.podlint == "" || o.kubeScore == "" || (o.label != "before" && o.label != "after") {
			fmt.Fprintln(os.Stderr, "usage: perfdoc -startup -podlint BIN -kube-score BIN [-label before|after] [-small FILE] [-startup-pairs N]")
			os.Exit(2)
		}
		st, err := o.measureStartup()
		if err != nil {
			fail(err)
		}
		if o.doc == "" {
			fmt.Print(st.markdown())
			return
		}
		if err := writeStartup(o.doc, st); err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "perfdoc: wrote the startup %s section of %s\n", o.label, o.doc)
		return
	}
	if o.formats {
		if o.podlint == "" || o.work == "" {
			fmt.Fprintln(os.Stderr, "usage: perfdoc -formats -podlint BIN [-base BIN] -work DIR [-pairs N]")
			os.Exit(2)
		}
		section, err := o.measureFormats()
		if err != nil {
			fail(err)
		}
		if o.doc == "" {
			fmt.Print(section)
			return
		}
		if err := writeFormats(o.doc, section); err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "perfdoc: wrote the formats section of %s\n", o.doc)
		return
	}
	if o.podlint == "" || o.floor == "" || o.work == "" || (o.label != "before" && o.label != "after") {
		fmt.Fprintln(os.Stderr, "usage: perfdoc -podlint BIN -floor BIN -work DIR [-label before|after] [flags]")
		os.Exit(2)
	}
	res, err := measure(o)
	if err != nil {
		fail(err)
	}
	section := res.markdown()
	if o.doc == "" {
		fmt.Print(section)
		return
	}
	if err := writeDoc(o.doc, res, section); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "perfdoc: wrote the %s section of %s\n", o.label, o.doc)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "perfdoc:", err)
	os.Exit(1)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// Results is one run of perfdoc; it is kept in the document as JSON so that
// a later run can compare with it.
type Results struct {
	Label, Date, Commit, Go, Format string
	CPUs                            int
	LoadStart, LoadEnd              string
	Corpus                          CorpusInfo
	Pairs                           []Pair
	Scale, Large                    []Row
	Small                           Small
	Profile                         Profile
	Suite                           []SuiteRow
	SuiteRatios                     []string
}

type CorpusInfo struct {
	From            string
	Docs, Distinct  int
	PerFile, LargeX int
	Bytes           int64
}

// sample is one process run.
type sample struct {
	wall, cpu time.Duration
	rss       int64 // bytes
	exit      int
}

// Pair is podlint against one floor.
type Pair struct {
	Floor                string
	N                    int
	WallRatio, CPURatio  float64 // medians of the per-pair ratios
	PodlintWall, PodCPU  float64 // seconds, medians
	FloorWall, FloorCPU  float64
	PodlintRSS, FloorRSS float64 // MiB, medians
}

// Row is podlint on one input, Runs times.
type Row struct {
	Input         string
	Docs          int
	MB            float64
	Runs          int
	Wall, WallMin float64 // seconds
	CPU           float64 // seconds, median
	RSS, RSSMax   float64 // MiB: median, maximum
	Load          string
	SplitWall     float64 // median wall of the same documents split into files, when measured
	path          string
	stdin         bool
}

type Small struct {
	File                  string
	Bytes                 int64
	Runs                  int
	Min, Median, P90, CPU float64 // milliseconds
	RSS                   float64 // MiB
	InitRuns, Packages    int
	InitMs, InitMB        float64 // medians over the runs: sum of the packages' clock, heap
	OwnInitMs             float64 // podlint's own packages
	TopInits              []Init
	Load                  string
}

type Init struct {
	Package string
	Ms, KB  float64 // medians
}

type Profile struct {
	Input   string
	Seconds float64 // CPU seconds sampled
	Wall    float64
	Shares  []Share
	Top     string
	Missing string // why there is no profile
}

type Share struct {
	Stage   string
	Percent float64
}

type SuiteRow struct {
	Name                                          string
	N                                             int
	Median, Min, MBs, CPUus, Allocs, KB, NsPerDoc float64
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}

// timeBin is GNU time, which measures peak RSS: the kernel's maxrss of a
// child this process starts directly is no use, because Go starts children
// with vfork and the child's figure then includes this process's memory.
const timeBin = "/usr/bin/time"

// run runs bin once; stdin names a file to give it on standard input.
// Exit codes other than those in ok are errors. With rss the process runs
// under GNU time, which gives its CPU time and peak RSS; without, the RSS
// is unknown and nothing stands between this process and bin.
func run(bin string, args []string, stdin string, env []string, rss bool, ok ...int) (sample, []byte, error) {
	name, argv := bin, args
	var out string
	if rss {
		f, err := os.CreateTemp("", "perfdoc-time-")
		if err != nil {
			return sample{}, nil, err
		}
		out = f.Name()
		f.Close()
		defer os.Remove(out)
		name, argv = timeBin, append([]string{"-f", "%U %S %M", "-o", out, bin}, args...)
	}
	cmd := exec.Command(name, argv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Env = append(os.Environ(), env...)
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			return sample{}, nil, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) && slices.Contains(ok, exit.ExitCode()) {
		err = nil
	}
	if err != nil {
		return sample{}, stderr.Bytes(), fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, tail(stderr.String()))
	}
	st := cmd.ProcessState
	s := sample{wall: wall, cpu: st.UserTime() + st.SystemTime(), exit: st.ExitCode()}
	if rss {
		data, err := os.ReadFile(out)
		if err != nil {
			return sample{}, nil, err
		}
		// The last line: GNU time may write "Command exited with non-zero
		// status 1" first.
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		var user, sys float64
		var kb int64
		if _, err := fmt.Sscanf(lines[len(lines)-1], "%g %g %d", &user, &sys, &kb); err != nil {
			return sample{}, nil, fmt.Errorf("GNU time wrote %q: %v", data, err)
		}
		s.cpu, s.rss = time.Duration((user+sys)*1e9), kb<<10
	}
	return s, stderr.Bytes(), nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return "…" + s[len(s)-2000:]
	}
	return s
}

func (o options) podlintArgs(path string) []string {
	// The limits are raised so that the large files are linted whole; they
	// change nothing for the corpus files.
	return []string{"check", "--no-config", "--color", "never", "-f", o.format,
		"--max-documents", "10000000", "--max-file-size", strconv.Itoa(1 << 30), path}
}

func (o options) runPodlint(path string, stdin bool) (sample, error) {
	if stdin {
		s, _, err := run(o.podlint, o.podlintArgs("-"), path, nil, true, 0, 1)
		return s, err
	}
	s, _, err := run(o.podlint, o.podlintArgs(path), "", nil, true, 0, 1)
	return s, err
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1)]
}

const mib = 1 << 20

func measure(o options) (*Results, error) {
	res := &Results{Label: o.label, Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Format: o.format,
		CPUs: runtime.NumCPU(), LoadStart: loadAvg(), Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	res.Commit = cmp.Or(o.commit, gitCommit())
	from := o.from
	if from == "" {
		var err error
		if from, err = testcorpus.Sample(); err != nil {
			return nil, err
		}
	}
	res.Corpus.From = from
	if root, err := testcorpus.Root(); err == nil {
		if rel, err := filepath.Rel(root, from); err == nil && !strings.HasPrefix(rel, "..") {
			res.Corpus.From = filepath.ToSlash(rel)
		}
	}
	base, err := bench.Workloads(from)
	if err != nil {
		return nil, err
	}
	const docs, perFile = 10_000, 10
	res.Corpus.Docs, res.Corpus.Distinct, res.Corpus.PerFile = docs, len(base), perFile
	res.Corpus.Bytes = bench.Build(base, docs, perFile).Bytes()
	res.Corpus.LargeX = max(1, int(math.Ceil(o.largeMB*1e6/float64(res.Corpus.Bytes))))

	// The corpora: split into files at every scale used, and as one file.
	dirs := map[int]string{}
	dirOf := func(scale int) (string, error) {
		if d, ok := dirs[scale]; ok {
			return d, nil
		}
		d := filepath.Join(o.work, fmt.Sprintf("x%d", scale))
		logf("writing the corpus at %d× to %s", scale, d)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		if _, err := bench.Build(base, docs*scale, perFile).Write(d); err != nil {
			return "", err
		}
		dirs[scale] = d
		return d, nil
	}
	single := func(scale int) (string, error) {
		p := filepath.Join(o.work, fmt.Sprintf("x%d.yaml", scale))
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		logf("writing the corpus at %d× as one file %s", scale, p)
		return p, os.WriteFile(p, bench.Build(base, docs*scale, perFile).Single(), 0o644)
	}
	x1, err := dirOf(1)
	if err != nil {
		return nil, err
	}

	// Paired ratios.
	floors := []struct {
		name string
		args []string
	}{
		{"node-parse floor, 1 worker", []string{"-parse", "node", "-workers", "1"}},
		{fmt.Sprintf("node-parse floor, %d workers", res.CPUs), []string{"-parse", "node"}},
		{"typed-decode floor, 1 worker", []string{"-parse", "typed", "-workers", "1"}},
		{fmt.Sprintf("typed-decode floor, %d workers", res.CPUs), []string{"-parse", "typed"}},
	}
	type acc struct{ wr, cr, pw, pc, fw, fc, pr, fr []float64 }
	accs := make([]acc, len(floors))
	for i := range o.pairs {
		logf("pairs: round %d of %d (load %s)", i+1, o.pairs, loadAvg())
		for k, f := range floors {
			var p, fl sample
			runFloor := func() error {
				var err error
				fl, _, err = run(o.floor, append(slices.Clone(f.args), x1), "", nil, true, 0)
				return err
			}
			runPod := func() error {
				var err error
				p, err = o.runPodlint(x1, false)
				return err
			}
			first, second := runPod, runFloor
			if (i+k)%2 == 1 {
				first, second = runFloor, runPod
			}
			if err := first(); err != nil {
				return nil, err
			}
			if err := second(); err != nil {
				return nil, err
			}
			a := &accs[k]
			a.wr = append(a.wr, p.wall.Seconds()/fl.wall.Seconds())
			a.cr = append(a.cr, p.cpu.Seconds()/fl.cpu.Seconds())
			a.pw, a.pc, a.pr = append(a.pw, p.wall.Seconds()), append(a.pc, p.cpu.Seconds()), append(a.pr, float64(p.rss)/mib)
			a.fw, a.fc, a.fr = append(a.fw, fl.wall.Seconds()), append(a.fc, fl.cpu.Seconds()), append(a.fr, float64(fl.rss)/mib)
		}
	}
	for k, f := range floors {
		a := accs[k]
		res.Pairs = append(res.Pairs, Pair{Floor: f.name, N: len(a.wr), WallRatio: median(a.wr), CPURatio: median(a.cr),
			PodlintWall: median(a.pw), PodCPU: median(a.pc), FloorWall: median(a.fw), FloorCPU: median(a.fc),
			PodlintRSS: median(a.pr), FloorRSS: median(a.fr)})
	}

	measureRow := func(r *Row) error {
		r.Load = loadAvg()
		logf("%s: %d runs (load %s)", r.Input, o.runs, r.Load)
		var walls, cpus, rss []float64
		for range o.runs {
			s, err := o.runPodlint(r.path, r.stdin)
			if err != nil {
				return err
			}
			walls, cpus, rss = append(walls, s.wall.Seconds()), append(cpus, s.cpu.Seconds()), append(rss, float64(s.rss)/mib)
		}
		r.Runs = len(walls)
		r.Wall, r.WallMin, r.CPU, r.RSS, r.RSSMax = median(walls), slices.Min(walls), median(cpus), median(rss), slices.Max(rss)
		return nil
	}
	mb := func(scale int) float64 { return float64(res.Corpus.Bytes) * float64(scale) / 1e6 }

	// Scale.
	scaleWall := map[int]float64{}
	inFiles := func(s int) (Row, error) {
		d, err := dirOf(s)
		if err != nil {
			return Row{}, err
		}
		r := Row{Input: fmt.Sprintf("%d× (%d files)", s, docs*s/perFile), Docs: docs * s, MB: mb(s), path: d}
		if err := measureRow(&r); err != nil {
			return Row{}, err
		}
		scaleWall[s] = r.Wall
		return r, nil
	}
	for _, s := range o.scales {
		r, err := inFiles(s)
		if err != nil {
			return nil, err
		}
		res.Scale = append(res.Scale, r)
	}

	// One large file and stdin.
	lx := res.Corpus.LargeX
	for _, s := range slices.Compact([]int{1, lx}) {
		p, err := single(s)
		if err != nil {
			return nil, err
		}
		if _, ok := scaleWall[s]; !ok {
			r, err := inFiles(s)
			if err != nil {
				return nil, err
			}
			res.Large = append(res.Large, r)
		}
		for _, stdin := range []bool{false, true} {
			r := Row{Input: fmt.Sprintf("%d× as one file", s), Docs: docs * s, MB: mb(s), path: p, stdin: stdin, SplitWall: scaleWall[s]}
			if stdin {
				r.Input = fmt.Sprintf("%d× on standard input", s)
			}
			if err := measureRow(&r); err != nil {
				return nil, err
			}
			res.Large = append(res.Large, r)
		}
	}

	if err := o.measureSmall(res); err != nil {
		return nil, err
	}
	d, err := dirOf(o.profileScale)
	if err != nil {
		return nil, err
	}
	o.profile(res, d, fmt.Sprintf("%d×", o.profileScale))
	if o.suite != "" {
		if err := res.readSuite(o.suite); err != nil {
			return nil, err
		}
	}
	res.LoadEnd = loadAvg()
	return res, nil
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += " (with uncommitted changes)"
	}
	return c
}

var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock, ([0-9]+) bytes, ([0-9]+) allocs`)

func (o options) measureSmall(res *Results) error {
	sm := &res.Small
	sm.File = o.small
	info, err := os.Stat(o.small)
	if err != nil {
		return err
	}
	sm.Bytes = info.Size()
	sm.Load = loadAvg()
	logf("small file %s: %d runs (load %s)", o.small, o.smallRuns, sm.Load)
	args := []string{"check", "--no-config", "--color", "never", o.small}
	var walls, cpus, rss []float64
	// Wall and CPU time of the process alone; every fifth run under GNU
	// time for the peak RSS.
	for i := range o.smallRuns {
		s, _, err := run(o.podlint, args, "", nil, false, 0, 1)
		if err != nil {
			return err
		}
		walls, cpus = append(walls, s.wall.Seconds()*1e3), append(cpus, s.cpu.Seconds()*1e3)
		if i%5 == 0 {
			if s, _, err = run(o.podlint, args, "", nil, true, 0, 1); err != nil {
				return err
			}
			rss = append(rss, float64(s.rss)/mib)
		}
	}
	sm.Runs = len(walls)
	sm.Min, sm.Median, sm.P90, sm.CPU, sm.RSS = slices.Min(walls), median(walls), percentile(walls, 0.9), median(cpus), median(rss)

	it, err := initTrace(o.podlint, args, o.initRuns)
	if err != nil {
		return err
	}
	sm.InitRuns, sm.Packages, sm.InitMs, sm.InitMB, sm.OwnInitMs, sm.TopInits = it.runs, it.packages, it.ms, it.mb, it.ownMs, it.top
	return nil
}

// stages attributes a sample to the stage of the frame nearest the leaf
// that belongs to one, after the garbage collector's own work (background
// marking, assists, sweeping), which is attributed to GC wherever it runs.
var stages = []struct{ prefix, stage string }{
	{"go.yaml.in/yaml/v3.", "parse (yaml.v3)"},
	{"gopkg.in/yaml.v3.", "parse (yaml.v3)"},
	{"github.com/podlint/podlint/manifest.", "decode (conversion, splitting, line index)"},
	{"github.com/podlint/podlint/timeline.", "timeline"},
	{"github.com/podlint/podlint/rules.", "rules"},
	{"github.com/podlint/podlint/report", "report"},
	{"github.com/podlint/podlint/analyzer.", "analyzer (suppressions, positions, cross-object view)"},
	{"github.com/podlint/podlint/render", "render"},
	{"github.com/podlint/podlint/internal/cli.", "command line, reading"},
}

var gcFrames = []string{"runtime.gcBgMarkWorker", "runtime.gcAssistAlloc", "runtime.gcDrain", "runtime.bgsweep",
	"runtime.bgscavenge", "runtime.sweepone", "runtime.gcStart", "runtime.gcMarkDone", "runtime.gcMarkTermination",
	"runtime.markroot", "runtime.(*mheap).reclaim"}

func stageOf(frames []string) string {
	for _, f := range frames {
		for _, g := range gcFrames {
			if strings.HasPrefix(f, g) {
				return "GC (marking, assists, sweeping)"
			}
		}
	}
	for _, f := range frames {
		for _, s := range stages {
			if strings.HasPrefix(f, s.prefix) {
				return s.stage
			}
		}
	}
	for _, f := range frames {
		if strings.HasPrefix(f, "syscall.") || strings.HasPrefix(f, "os.") || strings.HasPrefix(f, "internal/poll.") {
			return "system calls outside the stages"
		}
	}
	return "other (scheduler, runtime start-up)"
}

func (o options) profile(res *Results, dir, label string) {
	pr := &res.Profile
	pr.Input = label
	prof := filepath.Join(o.work, "cpu.pprof")
	logf("CPU profile of podlint on %s (load %s)", label, loadAvg())
	s, _, err := run(o.podlint, o.podlintArgs(dir), "", []string{"PODLINT_CPUPROFILE=" + prof}, false, 0, 1)
	if err != nil {
		pr.Missing = err.Error()
		return
	}
	pr.Wall = s.wall.Seconds()
	if info, err := os.Stat(prof); err != nil || info.Size() == 0 {
		pr.Missing = "the binary wrote no profile (it predates $PODLINT_CPUPROFILE)"
		return
	}
	traces, err := exec.Command("go", "tool", "pprof", "-traces", o.podlint, prof).Output()
	if err != nil {
		pr.Missing = "go tool pprof -traces: " + err.Error()
		return
	}
	byStage := map[string]float64{}
	var total float64
	var value float64
	var frames []string
	flush := func() {
		if value > 0 {
			byStage[stageOf(frames)] += value
			total += value
		}
		value, frames = 0, nil
	}
	for _, line := range strings.Split(string(traces), "\n") {
		if strings.HasPrefix(line, "-----------+") {
			flush()
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(line, " ") {
			continue
		}
		if v, ok := parseDuration(f[0]); ok && len(f) >= 2 && frames == nil && value == 0 {
			value, frames = v, []string{f[1]}
			continue
		}
		frames = append(frames, f[0])
	}
	flush()
	if total == 0 {
		pr.Missing = "the profile holds no samples"
		return
	}
	pr.Seconds = total
	for st, v := range byStage {
		pr.Shares = append(pr.Shares, Share{Stage: st, Percent: 100 * v / total})
	}
	slices.SortFunc(pr.Shares, func(a, b Share) int {
		return cmp.Or(cmp.Compare(b.Percent, a.Percent), strings.Compare(a.Stage, b.Stage))
	})
	top, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=20", o.podlint, prof).Output()
	if err == nil {
		// The header names the temporary binary and the time: keep the table.
		lines := strings.Split(strings.TrimSpace(string(top)), "\n")
		for i, l := range lines {
			if strings.Contains(l, "flat%") {
				lines = lines[i:]
				break
			}
		}
		pr.Top = strings.Join(lines, "\n")
	}
}

// parseDuration reads pprof's sample values: 10ms, 1.20s, 500us.
func parseDuration(s string) (float64, bool) {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}, {"s", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f * u.scale, err == nil
		}
	}
	return 0, false
}

// readSuite summarizes `go test -bench` output: medians over -count.
func (res *Results) readSuite(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	type vals struct{ ns, mbs, cpu, allocs, bytes, nsdoc []float64 }
	byName := map[string]*vals{}
	var order []string
	suffix := regexp.MustCompile(`-[0-9]+$`)
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := suffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		v := byName[name]
		if v == nil {
			v = &vals{}
			byName[name] = v
			order = append(order, name)
		}
		for i := 2; i+1 < len(f); i += 2 {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				v.ns = append(v.ns, x)
			case "MB/s":
				v.mbs = append(v.mbs, x)
			case "cpu-ns/doc":
				v.cpu = append(v.cpu, x)
			case "allocs/doc":
				v.allocs = append(v.allocs, x)
			case "B/doc":
				v.bytes = append(v.bytes, x)
			case "ns/doc":
				v.nsdoc = append(v.nsdoc, x)
			}
		}
	}
	for _, name := range order {
		v := byName[name]
		if len(v.ns) == 0 {
			continue
		}
		res.Suite = append(res.Suite, SuiteRow{Name: name, N: len(v.ns), Median: median(v.ns) / 1e9, Min: slices.Min(v.ns) / 1e9,
			MBs: median(v.mbs), CPUus: median(v.cpu) / 1e3, Allocs: median(v.allocs), KB: median(v.bytes) / 1024, NsPerDoc: median(v.nsdoc)})
	}
	if len(res.Suite) == 0 {
		return fmt.Errorf("%s holds no benchmark results", path)
	}
	var pipe *SuiteRow
	for i := range res.Suite {
		if res.Suite[i].Name == "Pipeline" {
			pipe = &res.Suite[i]
		}
	}
	if pipe != nil {
		for _, r := range res.Suite {
			if strings.HasPrefix(r.Name, "Floor/") {
				res.SuiteRatios = append(res.SuiteRatios, fmt.Sprintf("Pipeline / %s: wall %.2f (minimums %.2f), CPU %.2f",
					r.Name, pipe.Median/r.Median, pipe.Min/r.Min, pipe.CPUus/r.CPUus))
			}
		}
	}
	return nil
}

// metric is one number of the comparison table.
type metric struct {
	key, name string
	value     float64
	format    string
}

func (res *Results) metrics() []metric {
	var m []metric
	add := func(key, name, format string, v float64) {
		if !math.IsNaN(v) && v != 0 {
			m = append(m, metric{key, name, v, format})
		}
	}
	for _, p := range res.Pairs {
		add("pair wall "+p.Floor, "podlint / "+p.Floor+", wall (paired median)", "%.2f×", p.WallRatio)
		add("pair cpu "+p.Floor, "podlint / "+p.Floor+", CPU (paired median)", "%.2f×", p.CPURatio)
	}
	for _, r := range append(slices.Clone(res.Scale), res.Large...) {
		add("wall "+r.Input, r.Input+": wall, median", "%.2f s", r.Wall)
		add("cpu "+r.Input, r.Input+": CPU, median", "%.2f s", r.CPU)
		add("rss "+r.Input, r.Input+": peak RSS, maximum", "%.0f MiB", r.RSSMax)
		if r.SplitWall > 0 {
			add("vs split "+r.Input, r.Input+": wall / the same documents in files", "%.2f×", r.Wall/r.SplitWall)
		}
	}
	add("small median", "small file: whole process, median", "%.1f ms", res.Small.Median)
	add("small min", "small file: whole process, minimum", "%.1f ms", res.Small.Min)
	add("small init", "small file: package init, sum of clocks (median)", "%.1f ms", res.Small.InitMs)
	add("small rss", "small file: peak RSS", "%.1f MiB", res.Small.RSS)
	for _, s := range res.Profile.Shares {
		add("profile "+s.Stage, "CPU profile: "+s.Stage, "%.1f %%", s.Percent)
	}
	for _, r := range res.Suite {
		add("suite cpu "+r.Name, "go test -bench "+r.Name+": CPU µs/doc", "%.1f", r.CPUus)
		add("suite allocs "+r.Name, "go test -bench "+r.Name+": allocs/doc", "%.1f", r.Allocs)
	}
	return m
}

func (res *Results) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	c := res.Corpus
	w("Measured %s on commit %s (%s, %d CPUs); load average %s at the start, %s at the end. ",
		res.Date, res.Commit, res.Go, res.CPUs, res.LoadStart, res.LoadEnd)
	w("Corpus: %s workload documents (%d distinct) of `%s`, %d per file, %.1f MB; `podlint check --no-config -f %s`, report to /dev/null.\n\n",
		thousands(c.Docs), c.Distinct, c.From, c.PerFile, float64(c.Bytes)/1e6, res.Format)
	if busy(res.LoadStart, res.CPUs) || busy(res.LoadEnd, res.CPUs) {
		w("The load average exceeded the %d CPUs: other work was running, the wall times include waiting for a CPU, and the CPU times and CPU ratios are the figures to compare.\n\n", res.CPUs)
	}

	w("**Paired whole-process runs** on the corpus (each pair back to back, alternating which runs first; medians of the per-pair ratios):\n\n")
	w("| podlint against | pairs | wall ratio | CPU ratio | podlint wall / CPU / RSS | floor wall / CPU / RSS |\n|---|---:|---:|---:|---:|---:|\n")
	for _, p := range res.Pairs {
		w("| %s | %d | **%.2f×** | %.2f× | %.2f s / %.2f s / %.0f MiB | %.2f s / %.2f s / %.0f MiB |\n", p.Floor, p.N, p.WallRatio, p.CPURatio,
			p.PodlintWall, p.PodCPU, p.PodlintRSS, p.FloorWall, p.FloorCPU, p.FloorRSS)
	}
	w("\n**Corpus scale** (%d runs each; wall and CPU medians, peak RSS median and maximum):\n\n", firstRuns(res.Scale))
	rows(&b, res.Scale, false)
	w("\n**One large file and standard input** (the same documents concatenated; `podlint check FILE` and `podlint check - < FILE`):\n\n")
	rows(&b, res.Large, true)

	s := res.Small
	w("\n**Small file** (`podlint check --no-config %s`, %d bytes, the whole process: fork, exec, init, lint, exit; %d runs, load %s): ",
		s.File, s.Bytes, s.Runs, s.Load)
	w("median **%.1f ms**, minimum %.1f ms, 90th percentile %.1f ms; CPU %.1f ms; peak RSS %.1f MiB.\n", s.Median, s.Min, s.P90, s.CPU, s.RSS)
	w("`GODEBUG=inittrace=1` (%d runs, medians): %d packages initialized, %.1f ms in `init` (sum of the packages' clocks; podlint's own packages %.2f ms), %.1f MB allocated. The most expensive:\n\n",
		s.InitRuns, s.Packages, s.InitMs, s.OwnInitMs, s.InitMB)
	w("| package | init ms | heap KB |\n|---|---:|---:|\n")
	for _, i := range s.TopInits {
		w("| `%s` | %.2f | %.0f |\n", i.Package, i.Ms, i.KB)
	}

	p := res.Profile
	w("\n**CPU profile** of one run on %s the corpus (`PODLINT_CPUPROFILE`, split by the nearest stage frame of each sample with `go tool pprof -traces`; GC work counted as GC wherever it runs, allocation as its caller's): ", p.Input)
	if p.Missing != "" {
		w("not measured: %s.\n", p.Missing)
	} else {
		w("%.2f s of CPU sampled in %.2f s of wall time.\n\n| stage | share of CPU |\n|---|---:|\n", p.Seconds, p.Wall)
		for _, sh := range p.Shares {
			w("| %s | %.1f %% |\n", sh.Stage, sh.Percent)
		}
		if p.Top != "" {
			w("\n<details><summary><code>go tool pprof -top</code></summary>\n\n```\n%s\n```\n</details>\n", p.Top)
		}
	}

	if len(res.Suite) > 0 {
		w("\n**Benchmark suite** (`go test -bench` in `bench/`, in-process, medians over the runs):\n\n")
		w("| benchmark | runs | median s | min s | MB/s | CPU µs/doc | allocs/doc | KB/doc |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range res.Suite {
			w("| %s | %d | %.3f | %.3f | %.1f | %.1f | %.1f | %.1f |\n", r.Name, r.N, r.Median, r.Min, r.MBs, r.CPUus, r.Allocs, r.KB)
		}
		if len(res.SuiteRatios) > 0 {
			w("\n")
			for _, r := range res.SuiteRatios {
				w("- %s\n", r)
			}
		}
	}
	data, _ := json.Marshal(res)
	w("\n<!-- bench.sh data %s -->\n", data)
	return b.String()
}

// busy reports whether the 1-minute load average exceeds the CPUs.
func busy(load string, cpus int) bool {
	f := strings.Fields(load)
	if len(f) == 0 {
		return false
	}
	l, err := strconv.ParseFloat(f[0], 64)
	return err == nil && l > float64(cpus)
}

func firstRuns(rs []Row) int {
	if len(rs) == 0 {
		return 0
	}
	return rs[0].Runs
}

func rows(b *strings.Builder, rs []Row, split bool) {
	fmt.Fprintf(b, "| input | documents | MB | runs | wall median (min) | CPU | peak RSS (max) |%s load average |\n|---|---:|---:|---:|---:|---:|---:|%s---|\n",
		map[bool]string{true: " wall / in files |"}[split], map[bool]string{true: "---:|"}[split])
	for _, r := range rs {
		ratio := ""
		if split {
			ratio = " – |"
			if r.SplitWall > 0 {
				ratio = fmt.Sprintf(" %.2f× |", r.Wall/r.SplitWall)
			}
		}
		fmt.Fprintf(b, "| %s | %s | %.1f | %d | %.2f s (%.2f s) | %.2f s | %.0f MiB (%.0f MiB) |%s %s |\n",
			r.Input, thousands(r.Docs), r.MB, r.Runs, r.Wall, r.WallMin, r.CPU, r.RSS, r.RSSMax, ratio, r.Load)
	}
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}

// writeDoc puts section between the markers of res.Label in the document
// (appending them when missing) and regenerates the comparison.
func writeDoc(path string, res *Results, section string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	doc := replaceSection(string(data), res.Label, section)
	before, after := readData(doc, "before"), readData(doc, "after")
	doc = replaceSection(doc, "comparison", comparison(before, after))
	return os.WriteFile(path, []byte(doc), 0o644)
}

func markers(name string) (string, string) {
	return "<!-- BEGIN bench.sh " + name + " -->\n", "<!-- END bench.sh " + name + " -->"
}

func replaceSection(doc, name, content string) string {
	begin, end := markers(name)
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return strings.TrimRight(doc, "\n") + "\n\n" + begin + content + end + "\n"
	}
	return doc[:i+len(begin)] + content + doc[j:]
}

func readData(doc, name string) *Results {
	begin, end := markers(name)
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return nil
	}
	sec := doc[i:j]
	const tag = "<!-- bench.sh data "
	k := strings.Index(sec, tag)
	if k < 0 {
		return nil
	}
	js, _, ok := strings.Cut(sec[k+len(tag):], " -->")
	if !ok {
		return nil
	}
	var r Results
	if json.NewDecoder(strings.NewReader(js)).Decode(&r) != nil {
		return nil
	}
	return &r
}

func comparison(before, after *Results) string {
	if before == nil || after == nil {
		return "No before/after pair yet: `LABEL=before scripts/bench.sh` records the before side, `scripts/bench.sh` the after side.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Before: commit %s, %s (load %s → %s). After: commit %s, %s (load %s → %s).\n\n",
		before.Commit, before.Date, before.LoadStart, before.LoadEnd, after.Commit, after.Date, after.LoadStart, after.LoadEnd)
	b.WriteString("| measure | before | after | after / before |\n|---|---:|---:|---:|\n")
	old := map[string]metric{}
	for _, m := range before.metrics() {
		old[m.key] = m
	}
	seen := map[string]bool{}
	for _, m := range after.metrics() {
		seen[m.key] = true
		o, ok := old[m.key]
		if !ok {
			fmt.Fprintf(&b, "| %s | – | %s | – |\n", m.name, fmt.Sprintf(m.format, m.value))
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f |\n", m.name, fmt.Sprintf(o.format, o.value), fmt.Sprintf(m.format, m.value), m.value/o.value)
	}
	for _, o := range before.metrics() {
		if !seen[o.key] {
			fmt.Fprintf(&b, "| %s | %s | – | – |\n", o.name, fmt.Sprintf(o.format, o.value))
		}
	}
	return b.String()
}
