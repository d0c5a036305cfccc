package analyzer

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// TestFindingsDoNotRetainFiles checks that the findings of a run do not keep
// the files they came from in memory: the analyzer streams files through
// its workers, and a finding that pointed into a loaded object would keep
// that file's bytes, YAML nodes and typed objects alive until the report.
func TestFindingsDoNotRetainFiles(t *testing.T) {
	const files, size = 100, 256 << 10 // 25 MB of input, one finding per file
	pad := strings.Repeat("x", size)
	var srcs []manifest.Source
	for i := range files {
		text := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p%d\n  annotations:\n    pad: %s\nspec:\n  containers:\n    - name: app\n      image: busybox\n      imagePullPolicyy: Always\n", i, pad)
		srcs = append(srcs, manifest.Source{Path: fmt.Sprintf("p%d.yaml", i), Data: []byte(text)})
	}
	cfg := Default(Only(rules.UnknownField))
	res, errs := Run(cfg, Options{}, srcs)
	if len(errs) > 0 || len(res.List()) != files {
		t.Fatalf("got %d findings and errors %v; want one unknown-field finding per file", len(res.List()), errs)
	}
	srcs = nil // the input itself may go; only the findings are kept
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 12<<20 {
		t.Errorf("%d bytes still in use after the run for %d findings: findings keep their files alive", ms.HeapAlloc, len(res.List()))
	}
	runtime.KeepAlive(res)
}
