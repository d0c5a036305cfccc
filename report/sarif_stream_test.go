package report

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/podlint/podlint/finding"
)

// heapProbe is a writer that records the most heap in use, after a
// collection, at any of its writes: what the writer holds while it writes.
type heapProbe struct {
	base, peak uint64
	n          int
}

func (p *heapProbe) Write(b []byte) (int, error) {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > p.base {
		p.peak = max(p.peak, m.HeapAlloc-p.base)
	}
	p.n += len(b)
	return len(b), nil
}

// TestSARIFWritesAsItGoes: the SARIF log is written while it is built, one
// result at a time from the packed findings. It held every result's
// objects and then the whole encoded log before its first byte, so the
// memory a SARIF report took grew with the findings (the log of 40 000
// documents needed 224 MiB of peak RSS, against 57 MiB for JSON). The heap
// a write adds is bounded here against the size of the log, which holding
// the encoded log exceeds. Not parallel: it reads the process's heap.
func TestSARIFWritesAsItGoes(t *testing.T) {
	res := &finding.Result{Packed: finding.NewStore()}
	for i := range 4000 {
		f := finding.Finding{RuleID: "PL106", RuleName: "liveness-timeout", Severity: finding.Warning,
			Location: finding.Location{File: fmt.Sprintf("k8s/app-%d.yaml", i/10), Line: 10 + i%10*20, Column: 11},
			Object:   &finding.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Name: fmt.Sprintf("app-%d", i)},
			Message:  "the liveness probe of \"api\" times out after 30s", Detail: "Lower timeoutSeconds.",
			SourceLine: "            timeoutSeconds: 30", Container: "api", Path: "spec.template.spec.containers[0].livenessProbe.timeoutSeconds",
			Fixes: []finding.Fix{{Title: "Set timeoutSeconds to 5", Edits: []finding.Edit{{File: "k8s/app.yaml", Start: 100, End: 102, NewText: "5"}}}}}
		res.Packed.Add(&f)
	}
	res.Packed.Sort() // as the engine does
	p := &heapProbe{}
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	p.base = m.HeapAlloc
	if err := Write(p, "sarif", res, Options{SrcRoot: "/repo", Rules: fixtureRules()}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d findings: a log of %d bytes; at most %d bytes of heap held while it was written", res.Len(), p.n, p.peak)
	if p.n < 4000*500 {
		t.Fatalf("a log of %d bytes for 4000 findings: the fixture is not what the test assumes", p.n)
	}
	if p.peak > uint64(p.n)/2 {
		t.Errorf("writing the SARIF log held %d bytes of heap, more than half the log's %d bytes: the log is built in memory", p.peak, p.n)
	}
}
