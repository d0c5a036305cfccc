package render

import (
	"fmt"
	"sync"
	"time"

	"github.com/podlint/podlint/manifest"
)

// DefaultBudget is the CPU time all the renders of one run may use
// together: a few thousand real charts (each costs its process start, tens
// of milliseconds), or the twenty roots of four operators' kustomize trees
// with multi-MB CRDs (5 to 10 s each on a loaded runner, issue 36), but
// not more than ten hostile roots at the per-root limit each.
const DefaultBudget = 5 * time.Minute

// Budget is the CPU time the renders of one run may use together
// (--render-budget). A root's render process is charged the CPU time it
// used (user and system, as the kernel counts it), at most its own limit.
//
// Which roots render must not depend on how busy the machine is or on
// which worker got to a root first. So the budget is spent as if the roots
// were rendered one after the other in the order of the run (the order of
// the report): root i may use min(per-root limit, what roots 0…i-1 left of
// the budget). Roots still render in parallel: a root starts at once with
// the full per-root limit when even the most the roots before it could
// still be charged leaves that much; only when the budget is nearly spent
// does a root wait for the ones before it, to know exactly what is left.
// The outcome then depends only on the CPU time each child used, never on
// timing; that measurement varies by a few milliseconds between runs, so
// a root whose predecessors leave within that of the budget may render in
// one run and not the next.
//
// Every root a Budget is made with must be rendered (Open) exactly once,
// in any order and on any goroutine: a root waits for the ones before it.
// analyzer.Run and podlint timeline do so. A root it was not made with is
// rendered with what is left at that moment, without waiting.
type Budget struct {
	total time.Duration
	mu    sync.Mutex
	cond  sync.Cond
	// order holds the positions of each root in the run, first unclaimed
	// first (a root named twice is two renders).
	order map[string][]int
	roots []budgetRoot
	// extra is what renders of roots the budget was not made with used.
	extra time.Duration
}

type budgetRoot struct {
	started, final bool
	limit          time.Duration // the CPU limit it was started with
	charge         time.Duration // once final
}

// NewBudget is a run's render budget of total CPU time, spent on the
// render roots of srcs (Source.Render set) in that order; the other sources
// are not looked at. A total of 0 renders nothing.
func NewBudget(total time.Duration, srcs []manifest.Source) *Budget {
	b := &Budget{total: total, order: map[string][]int{}}
	b.cond.L = &b.mu
	for _, s := range srcs {
		if s.Render == "" {
			continue
		}
		k := budgetKey(s)
		b.order[k] = append(b.order[k], len(b.roots))
		b.roots = append(b.roots, budgetRoot{})
	}
	return b
}

func budgetKey(s manifest.Source) string { return s.Render + "\x00" + s.Path }

// claim reserves the CPU limit for a render of src, perRoot at most. ok is
// false when the budget is spent before src: it is not rendered. The
// caller passes the returned slot to settle once the render ended (a slot
// of -1 is a root the budget was not made with).
func (b *Budget) claim(src manifest.Source, perRoot time.Duration) (slot int, limit time.Duration, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	slot = -1
	if q := b.order[budgetKey(src)]; len(q) > 0 {
		slot, b.order[budgetKey(src)] = q[0], q[1:]
	}
	end := slot
	if slot < 0 {
		end = len(b.roots)
	}
	for {
		var known, pending time.Duration
		settled := true
		for _, r := range b.roots[:end] {
			switch {
			case r.final:
				known += r.charge
			case r.started:
				pending, settled = pending+r.limit, false
			default:
				pending, settled = pending+perRoot, false
			}
		}
		known += b.extra
		left := b.total - known
		switch {
		case left <= 0:
			// Spent whatever the roots still running are charged.
			limit, ok = 0, false
		case left-pending >= perRoot:
			// Enough whatever they are charged.
			limit, ok = perRoot, true
		case settled:
			limit, ok = min(perRoot, left), true
		case slot < 0:
			limit = min(perRoot, left-pending)
			ok = limit > 0
		default:
			b.cond.Wait()
			continue
		}
		if slot >= 0 {
			b.roots[slot].started, b.roots[slot].limit = true, limit
			if !ok {
				b.roots[slot].final = true
				b.cond.Broadcast()
			}
		}
		return slot, limit, ok
	}
}

// settle charges the render in slot, which was given limit by claim,
// with the CPU time its child used (cpuHit: it was stopped at its CPU
// limit). over says the render needed more than the budget left it:
// its output is not used.
func (b *Budget) settle(slot int, limit, perRoot, used time.Duration, cpuHit bool) (over bool) {
	over = limit < perRoot && (cpuHit || used > limit)
	charge := min(used, limit)
	if over || cpuHit {
		charge = limit
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if slot < 0 {
		b.extra += charge
		return over
	}
	b.roots[slot].final, b.roots[slot].charge = true, charge
	b.cond.Broadcast()
	return over
}

// budgetProblem is the chart-render-error of a root the budget did not
// render: spent before it (over false) or while rendering it.
func budgetProblem(src manifest.Source, total time.Duration, over bool) Problem {
	what := "chart"
	if src.Render == manifest.RenderKustomize {
		what = "kustomization"
	}
	head := fmt.Sprintf("not rendered: the run's render budget of %s of CPU time was spent by the charts and kustomizations before this %s", total, what)
	if over {
		head = fmt.Sprintf("rendering the %s was stopped: the run's render budget of %s of CPU time ran out while rendering it", what, total)
	}
	return Problem{File: rootFile(src), Line: 1, Column: 1, Message: head,
		Detail: fmt.Sprintf("Nothing of this %s was linted. The charts and kustomizations of a run together may use --render-budget of CPU time, "+
			"charged in the order of the report (each its render process's CPU time), so that a pull request of many roots cannot cost "+
			"the CI runner the per-root limit many times over. The summary lists the roots that were not rendered. "+
			"Lint fewer roots per run, or raise --render-budget on the command line (a .podlint.yaml may only lower it).", what)}
}
