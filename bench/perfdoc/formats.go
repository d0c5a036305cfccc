//go:build benchtools

package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/podlint/podlint/bench"
	"github.com/podlint/podlint/internal/testcorpus"
)

// formatNames are the report formats compared (issue 37 item 1): text, and
// json and sarif, which verify the fixes they offer.
var formatNames = []string{"text", "json", "sarif"}

// formatRun is one podlint's runs of one format at one scale.
type formatRun struct {
	cpus []float64 // seconds, user + system
	rss  []int64
}

// measureFormats runs podlint (and the base build before the change, when
// o.base is set) with every format on the corpus at 1× and 4×, o.pairs
// rounds: a round runs each binary and format once, back to back, in an
// order that rotates from round to round. Each format's CPU time is read
// against text's of the same binary and round (per-round ratios, then their
// median), which other work on a shared machine disturbs far less than
// separate medians; peak RSS is GNU time's maximum resident set size.
func (o options) measureFormats() (string, error) {
	from := o.from
	if from == "" {
		var err error
		if from, err = testcorpus.Sample(); err != nil {
			return "", err
		}
	}
	base, err := bench.Workloads(from)
	if err != nil {
		return "", err
	}
	const docs, perFile = 10_000, 10
	bins := []string{o.podlint}
	names := []string{"after"}
	if o.base != "" {
		bins, names = []string{o.base, o.podlint}, []string{"before", "after"}
	}
	start, load := time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadAvg()
	scales := []int{1, 4}
	runs := map[string]*formatRun{} // by binary, format and scale
	key := func(b, f string, scale int) string { return fmt.Sprintf("%s %s %d", b, f, scale) }
	for _, scale := range scales {
		dir := filepath.Join(o.work, fmt.Sprintf("formats-x%d", scale))
		if _, err := os.Stat(dir); err != nil {
			logf("writing the corpus at %d× to %s", scale, dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", err
			}
			if _, err := bench.Build(base, docs*scale, perFile).Write(dir); err != nil {
				return "", err
			}
		}
		var jobs [][2]int // binary, format
		for b := range bins {
			for f := range formatNames {
				jobs = append(jobs, [2]int{b, f})
			}
		}
		for round := range o.pairs {
			logf("formats at %d×: round %d of %d (load %s)", scale, round+1, o.pairs, loadAvg())
			for k := range jobs {
				j := jobs[(k+round)%len(jobs)]
				args := []string{"check", "--no-config", "--color", "never", "-f", formatNames[j[1]], dir}
				s, _, err := run(bins[j[0]], args, "", nil, true, 0, 1)
				if err != nil {
					return "", err
				}
				r := runs[key(names[j[0]], formatNames[j[1]], scale)]
				if r == nil {
					r = &formatRun{}
					runs[key(names[j[0]], formatNames[j[1]], scale)] = r
				}
				r.cpus = append(r.cpus, s.cpu.Seconds())
				r.rss = append(r.rss, s.rss)
			}
		}
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("Measured %s on commit %s (%s, %d CPUs); load average %s at the start, %s at the end. `podlint check --no-config -f FORMAT` "+
		"of the corpus (%d documents of %s, %d to a file) at 1× and 4×, %d rounds; a round runs every build and format once, back to back, "+
		"in an order that rotates. CPU time is user + system (GNU time); the ratios are medians of each round's ratio to text of the same build.\n\n",
		start, cmp.Or(o.commit, gitCommit()), runtime.Version(), runtime.NumCPU(), load, loadAvg(), docs, filepath.Base(from), perFile, o.pairs)
	w("| build | scale | format | CPU median | / text (paired median) | peak RSS (max) |\n|---|---|---|---:|---:|---:|\n")
	for _, name := range names {
		for _, scale := range scales {
			text := runs[key(name, "text", scale)]
			for _, f := range formatNames {
				r := runs[key(name, f, scale)]
				var ratios []float64
				for i := range r.cpus {
					ratios = append(ratios, r.cpus[i]/text.cpus[i])
				}
				var peak int64
				for _, x := range r.rss {
					peak = max(peak, x)
				}
				w("| %s | %d× | %s | %.2f s | %.3f | %.1f MiB |\n", name, scale, f, median(r.cpus), median(ratios), float64(peak)/(1<<20))
			}
		}
	}
	w("\nScaling (CPU median at 4× over 4 times that at 1×; 1.00 is linear):")
	for _, name := range names {
		for _, f := range formatNames {
			w(" %s %s %.2f;", name, f, median(runs[key(name, f, 4)].cpus)/(4*median(runs[key(name, f, 1)].cpus)))
		}
	}
	w("\n")
	return b.String(), nil
}

// writeFormats puts the formats section into the document.
func writeFormats(path, section string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(replaceSection(string(data), "formats", section)), 0o644)
}
