package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/gencrd"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
	"github.com/podlint/podlint/render/engine"
)

// TestMain makes the test binary this command: started as a render child
// it runs main, so the tests below render with what podlint-render does
// before rendering, not with the render package's test set-up.
func TestMain(m *testing.M) {
	if render.IsChild() {
		main()
	}
	engine.Link()
	os.Exit(m.Run())
}

var gcTrace = regexp.MustCompile(`the child's collector ran at GOGC (-?\d+)`)

// TestChildCollectsAtGoDefault: rendering a kustomization of large CRDs
// keeps hundreds of MB live, and podlint's own collector pacing (a 24 MB
// heap target, for linting) set GOGC to 20 for it, which collected five
// times as often and doubled the render's CPU time (docs/performance.md).
// The child keeps Go's default.
func TestChildCollectsAtGoDefault(t *testing.T) {
	dir := t.TempDir()
	if err := gencrd.Write(dir, 2, 1_000_000); err != nil {
		t.Fatal(err)
	}
	var lines []string
	o := &render.Options{Limits: render.Limits{CPU: 60 * time.Second, Wall: 10 * time.Minute},
		Trace: func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }}
	out, err := o.Open(manifest.Source{Path: filepath.Join(dir, "overlay"), Root: dir, Render: manifest.RenderKustomize})
	if err != nil {
		t.Fatal(err)
	}
	out.Map.Close()
	if len(out.Problems) > 0 {
		t.Fatalf("problems: %+v", out.Problems)
	}
	for _, l := range lines {
		if m := gcTrace.FindStringSubmatch(l); m != nil {
			t.Log(l)
			if pct, _ := strconv.Atoi(m[1]); pct != 100 {
				t.Errorf("the child collected at GOGC %d, want Go's default 100: %s", pct, l)
			}
			return
		}
	}
	t.Fatalf("no collector statistics in the trace:\n%q", lines)
}
