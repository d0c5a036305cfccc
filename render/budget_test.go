package render

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// The run-wide render budget (budget.go). No test here reads the clock:
// the budgets are 0, or 1ns (less than any process start costs), or one
// per-root limit spent by a chart that never ends; what they assert is
// which roots rendered, which the budget decides in the order of the run
// whatever the machine's speed and load.

// tinyCharts are the roots of testdata/hostile/render/many-tiny, in order.
func tinyCharts() []manifest.Source {
	var srcs []manifest.Source
	for i := 1; i <= 3; i++ {
		srcs = append(srcs, manifest.Source{Path: filepath.Join(hostileRender, "many-tiny", fmt.Sprintf("chart-%d", i)), Render: manifest.RenderHelm})
	}
	return srcs
}

// budgetRun lints srcs as one run (analyzer.Run, one worker per root so
// that they all race for the budget) with budget, and returns the findings
// by root file, the summary and the --debug lines.
func budgetRun(t *testing.T, srcs []manifest.Source, lim Limits, budget time.Duration) (map[string][]finding.Finding, finding.Summary, []string) {
	t.Helper()
	var mu sync.Mutex
	var trace []string
	o := &Options{Limits: lim, Budget: NewBudget(budget, srcs), Trace: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		trace = append(trace, fmt.Sprintf(format, args...))
	}}
	l := lintConfig()
	l.Open = o.Open
	res, errs := analyzer.Run(l, analyzer.Options{Workers: len(srcs)}, srcs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	by := map[string][]finding.Finding{}
	for _, f := range res.List() {
		by[f.File] = append(by[f.File], f)
	}
	return by, res.Summary, trace
}

// started lists the roots whose render process was started.
func started(trace []string) []string {
	var out []string
	for _, l := range trace {
		if strings.Contains(l, "in a child process of this executable") {
			out = append(out, strings.TrimPrefix(strings.SplitN(l, ":", 2)[0], "render "))
		}
	}
	return out
}

func wantOne(t *testing.T, fs []finding.Finding, file, message string) {
	t.Helper()
	if len(fs) != 1 || fs[0].RuleID != rules.ChartRenderError.ID || fs[0].File != file || !strings.HasPrefix(fs[0].Message, message) ||
		!strings.Contains(fs[0].Detail, "--render-budget") {
		t.Errorf("want one chart-render-error at %s: %q…, got %d:\n%s", file, message, len(fs), dump(fs))
	}
}

// TestRenderBudgetZero: a budget of 0 starts no render process, and every
// root gets its finding and its place in the summary.
func TestRenderBudgetZero(t *testing.T) {
	srcs := tinyCharts()
	by, sum, trace := budgetRun(t, srcs, testLimits, 0)
	if s := started(trace); len(s) > 0 {
		t.Errorf("render processes started with a budget of 0: %v", s)
	}
	var labels []string
	for _, src := range srcs {
		wantOne(t, by[rootFile(src)], rootFile(src), "not rendered: the run's render budget of 0s of CPU time was spent")
		labels = append(labels, rootLabel(src))
	}
	if !slices.Equal(sum.NotRendered, labels) || len(sum.Rendered) != 0 {
		t.Errorf("summary: rendered %q, not rendered %q; want none and %q", sum.Rendered, sum.NotRendered, labels)
	}
}

// TestRenderBudgetOrder: with a budget smaller than any render process
// costs, the first root of the run (and only it) is started, and stopped
// for the budget; the others are not rendered. Three workers race for the
// three roots, so this holds whichever reaches the budget first.
func TestRenderBudgetOrder(t *testing.T) {
	srcs := tinyCharts()
	by, sum, trace := budgetRun(t, srcs, testLimits, time.Nanosecond)
	if s := started(trace); !slices.Equal(s, []string{srcs[0].Path}) {
		t.Errorf("started %q; want only the first root, %s", s, srcs[0].Path)
	}
	wantOne(t, by[rootFile(srcs[0])], rootFile(srcs[0]), "rendering the chart was stopped: the run's render budget of 1ns of CPU time ran out while rendering it")
	for _, src := range srcs[1:] {
		wantOne(t, by[rootFile(src)], rootFile(src), "not rendered: the run's render budget of 1ns of CPU time was spent by the charts and kustomizations before this chart")
	}
	if len(sum.NotRendered) != 3 {
		t.Errorf("summary: not rendered %q; want all three", sum.NotRendered)
	}
}

// TestRenderBudgetClaimOrder: roots claim the budget in the order of the
// run even when they ask in the opposite order: the last asks first and
// waits for the ones before it.
func TestRenderBudgetClaimOrder(t *testing.T) {
	srcs := tinyCharts()
	b := NewBudget(time.Nanosecond, srcs)
	perRoot := time.Second
	var wg sync.WaitGroup
	ok := make([]bool, len(srcs))
	limits := make([]time.Duration, len(srcs))
	for i := len(srcs) - 1; i >= 0; i-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slot, lim, rendered := b.claim(srcs[i], perRoot)
			ok[i], limits[i] = rendered, lim
			// A render process costs more than the budget.
			b.settle(slot, lim, perRoot, time.Millisecond, false)
		}()
	}
	wg.Wait()
	if !slices.Equal(ok, []bool{true, false, false}) || limits[0] != time.Nanosecond {
		t.Errorf("claimed %v with limits %v; want only the first, with the whole budget (1ns)", ok, limits)
	}
}

// TestRenderBudgetBoundsHostileCharts: three charts (cpu-burn) that would each burn
// the per-root limit cost the run one: the first is stopped at its CPU
// limit, which spends the budget, and the others are never started.
func TestRenderBudgetBoundsHostileCharts(t *testing.T) {
	dir := t.TempDir()
	var srcs []manifest.Source
	for i := range 3 {
		root := copyHostile(t, "cpu-burn", filepath.Join(dir, fmt.Sprint(i)))
		srcs = append(srcs, manifest.Source{Path: root, Render: manifest.RenderHelm})
	}
	lim := testLimits
	by, sum, trace := budgetRun(t, srcs, lim, lim.CPU)
	if s := started(trace); !slices.Equal(s, []string{srcs[0].Path}) {
		t.Errorf("started %q; want only the first root", s)
	}
	if fs := by[rootFile(srcs[0])]; len(fs) != 1 || !strings.HasPrefix(fs[0].Message, "rendering the chart used more than 1s of CPU time") {
		t.Errorf("the first chart: want its CPU limit hit, got:\n%s", dump(fs))
	}
	for _, src := range srcs[1:] {
		wantOne(t, by[rootFile(src)], rootFile(src), "not rendered: the run's render budget of 1s of CPU time was spent")
	}
	if len(sum.NotRendered) != 2 || len(sum.Rendered) != 1 {
		t.Errorf("summary: rendered %q, not rendered %q; want the first, then the other two", sum.Rendered, sum.NotRendered)
	}
}
