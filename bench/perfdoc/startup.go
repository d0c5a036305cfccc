//go:build benchtools

package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Startup is the side-by-side start-up of podlint and kube-score on one
// small file (issue 37 item 2), kept in the document like Results.
type Startup struct {
	Label, Date, Commit, Go, LoadStart, LoadEnd string
	File                                        string
	Bytes                                       int64
	// Pairs is how many times both ran, back to back, alternating which
	// ran first.
	Pairs int
	// Podlint and KubeScore: milliseconds of CPU time (user + system) per
	// run, the sum over the pairs divided by them, and the median; wall
	// time median.
	Podlint, KubeScore StartupSide
	// CPURatio is the sum of podlint's CPU time over the sum of
	// kube-score's; PairRatio the median of the per-pair ratios.
	CPURatio, PairRatio float64
}

type StartupSide struct {
	Command            string
	CPUMean, CPUMedian float64 // ms
	WallMedian         float64 // ms
	InitRuns, Packages int
	InitMs, InitMB     float64 // medians: the sum of the packages' init clocks, their heap
	TopInits           []Init
	ExitCodes          []int // the exit codes seen (kube-score exits 1 on a critical finding)
	exitSeen           map[int]bool
	args               []string
	bin                string
	cpus, walls        []float64
}

// measureStartup runs podlint and kube-score on the same small file,
// o.startupPairs times each, interleaved: CPU time is summed over the runs,
// which other work on a shared machine disturbs far less than wall time.
// Then GODEBUG=inittrace=1 for both (o.initRuns runs each).
func (o options) measureStartup() (*Startup, error) {
	info, err := os.Stat(o.small)
	if err != nil {
		return nil, err
	}
	st := &Startup{Label: o.label, Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Commit: cmp.Or(o.commit, gitCommit()),
		Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH, LoadStart: loadAvg(), File: o.small, Bytes: info.Size()}
	sides := []*StartupSide{&st.Podlint, &st.KubeScore}
	st.Podlint.bin, st.Podlint.args = o.podlint, []string{"check", "--no-config", "--color", "never", o.small}
	st.KubeScore.bin, st.KubeScore.args = o.kubeScore, []string{"score", o.small}
	for _, s := range sides {
		s.Command = strings.Join(append([]string{baseName(s.bin)}, s.args...), " ")
		s.exitSeen = map[int]bool{}
	}
	logf("start-up: %d pairs of `%s` and `%s` (load %s)", o.startupPairs, st.Podlint.Command, st.KubeScore.Command, st.LoadStart)
	// A few runs first, so that both executables are in the page cache.
	for range 3 {
		for _, s := range sides {
			if _, _, err := run(s.bin, s.args, "", nil, false, 0, 1); err != nil {
				return nil, err
			}
		}
	}
	var ratios []float64
	for i := range o.startupPairs {
		order := []*StartupSide{&st.Podlint, &st.KubeScore}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, s := range order {
			smp, _, err := run(s.bin, s.args, "", nil, false, 0, 1)
			if err != nil {
				return nil, err
			}
			s.cpus = append(s.cpus, smp.cpu.Seconds()*1e3)
			s.walls = append(s.walls, smp.wall.Seconds()*1e3)
			s.exitSeen[smp.exit] = true
		}
		if k := st.KubeScore.cpus[i]; k > 0 {
			ratios = append(ratios, st.Podlint.cpus[i]/k)
		}
	}
	st.Pairs = o.startupPairs
	for _, s := range sides {
		s.CPUMean, s.CPUMedian, s.WallMedian = sum(s.cpus)/float64(len(s.cpus)), median(s.cpus), median(s.walls)
		for c := range s.exitSeen {
			s.ExitCodes = append(s.ExitCodes, c)
		}
		slices.Sort(s.ExitCodes)
		it, err := initTrace(s.bin, s.args, o.initRuns)
		if err != nil {
			return nil, err
		}
		s.InitRuns, s.Packages, s.InitMs, s.InitMB, s.TopInits = it.runs, it.packages, it.ms, it.mb, it.top
	}
	st.CPURatio = sum(st.Podlint.cpus) / sum(st.KubeScore.cpus)
	st.PairRatio = median(ratios)
	st.LoadEnd = loadAvg()
	return st, nil
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

func baseName(p string) string {
	return p[strings.LastIndexAny(p, `/\`)+1:]
}

// inits is what GODEBUG=inittrace=1 says of runs of one command: medians
// over the runs of the sum of every package's init clock and heap, podlint's
// own packages' share, and the most expensive packages.
type inits struct {
	runs, packages int
	ms, mb, ownMs  float64
	top            []Init
}

func initTrace(bin string, args []string, runs int) (inits, error) {
	var it inits
	perPkg := map[string][]float64{}
	perPkgKB := map[string][]float64{}
	var totals, heaps, own []float64
	for range runs {
		_, stderr, err := run(bin, args, "", []string{"GODEBUG=inittrace=1"}, false, 0, 1)
		if err != nil {
			return it, err
		}
		var total, heap, mine float64
		n := 0
		sc := bufio.NewScanner(bytes.NewReader(stderr))
		for sc.Scan() {
			m := initLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			ms, _ := strconv.ParseFloat(m[2], 64)
			b, _ := strconv.ParseFloat(m[3], 64)
			perPkg[m[1]] = append(perPkg[m[1]], ms)
			perPkgKB[m[1]] = append(perPkgKB[m[1]], b/1024)
			total, heap, n = total+ms, heap+b, n+1
			if strings.HasPrefix(m[1], "github.com/podlint/podlint") {
				mine += ms
			}
		}
		totals, heaps, own = append(totals, total), append(heaps, heap/1e6), append(own, mine)
		it.packages = n
	}
	it.runs = len(totals)
	it.ms, it.mb, it.ownMs = median(totals), median(heaps), median(own)
	for p, ms := range perPkg {
		it.top = append(it.top, Init{Package: p, Ms: median(ms), KB: median(perPkgKB[p])})
	}
	slices.SortFunc(it.top, func(a, b Init) int {
		return cmp.Or(cmp.Compare(b.Ms, a.Ms), strings.Compare(a.Package, b.Package))
	})
	it.top = it.top[:min(8, len(it.top))]
	return it, nil
}

func (st *Startup) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("Measured %s on commit %s (%s, %d CPUs); load average %s at the start, %s at the end. `%s` (%d bytes) and `%s`, "+
		"%d pairs run back to back, alternating which goes first; CPU time is user + system of the process (fork, exec, "+
		"runtime start-up, package inits, the run, exit).\n\n",
		st.Date, st.Commit, st.Go, runtime.NumCPU(), st.LoadStart, st.LoadEnd, st.Podlint.Command, st.Bytes, st.KubeScore.Command, st.Pairs)
	w("| | CPU per run (sum / runs) | CPU median | wall median | packages initialized | `init` clocks, summed (median of %d) | heap allocated in `init` |\n", st.Podlint.InitRuns)
	w("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range []StartupSide{st.Podlint, st.KubeScore} {
		w("| %s | %.2f ms | %.2f ms | %.2f ms | %d | %.2f ms | %.1f MB |\n", baseName(s.bin), s.CPUMean, s.CPUMedian, s.WallMedian, s.Packages, s.InitMs, s.InitMB)
	}
	w("\npodlint / kube-score, CPU: **%.2f×** (sums), %.2f× (median of the per-pair ratios). ", st.CPURatio, st.PairRatio)
	w("Exit codes seen: podlint %v, kube-score %v. The most expensive `init`s of podlint:\n\n", st.Podlint.ExitCodes, st.KubeScore.ExitCodes)
	w("| package | init ms | heap KB |\n|---|---:|---:|\n")
	for _, in := range st.Podlint.TopInits {
		w("| `%s` | %.2f | %.0f |\n", in.Package, in.Ms, in.KB)
	}
	data, _ := json.Marshal(st)
	w("\n<!-- bench.sh data %s -->\n", data)
	return b.String()
}

// startupComparison puts the before and after start-up side by side.
func startupComparison(before, after *Startup) string {
	if before == nil || after == nil {
		return "Run `STARTUP=1 LABEL=before scripts/bench.sh` on the code before and `STARTUP=1 scripts/bench.sh` after to fill this in.\n"
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("Before: commit %s, %s (load %s → %s). After: commit %s, %s (load %s → %s).\n\n",
		before.Commit, before.Date, before.LoadStart, before.LoadEnd, after.Commit, after.Date, after.LoadStart, after.LoadEnd)
	w("| measure | before | after | after / before |\n|---|---:|---:|---:|\n")
	row := func(name, unit string, x, y float64) {
		w("| %s | %.2f%s | %.2f%s | %.2f |\n", name, x, unit, y, unit, y/x)
	}
	row("podlint CPU per run (sum / runs)", " ms", before.Podlint.CPUMean, after.Podlint.CPUMean)
	row("kube-score CPU per run, same pairs", " ms", before.KubeScore.CPUMean, after.KubeScore.CPUMean)
	row("podlint / kube-score, CPU (sums)", "×", before.CPURatio, after.CPURatio)
	row("podlint / kube-score, CPU (median per-pair ratio)", "×", before.PairRatio, after.PairRatio)
	row("podlint wall median", " ms", before.Podlint.WallMedian, after.Podlint.WallMedian)
	row("podlint packages initialized", "", float64(before.Podlint.Packages), float64(after.Podlint.Packages))
	row("podlint `init` clocks, summed (median)", " ms", before.Podlint.InitMs, after.Podlint.InitMs)
	row("kube-score `init` clocks, summed (median)", " ms", before.KubeScore.InitMs, after.KubeScore.InitMs)
	row("podlint heap allocated in `init`", " MB", before.Podlint.InitMB, after.Podlint.InitMB)
	return b.String()
}

func readStartup(doc, name string) *Startup {
	begin, end := markers(name)
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return nil
	}
	k := strings.LastIndex(doc[i:j], "<!-- bench.sh data ")
	if k < 0 {
		return nil
	}
	rest := doc[i+k+len("<!-- bench.sh data ") : j]
	rest = rest[:strings.Index(rest, " -->")]
	var st Startup
	if json.Unmarshal([]byte(rest), &st) != nil {
		return nil
	}
	return &st
}

// writeStartup puts the start-up section of its label into the document
// and regenerates the start-up comparison.
func writeStartup(path string, st *Startup) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	doc := replaceSection(string(data), "startup "+st.Label, st.markdown())
	doc = replaceSection(doc, "startup comparison", startupComparison(readStartup(doc, "startup before"), readStartup(doc, "startup after")))
	return os.WriteFile(path, []byte(doc), 0o644)
}
