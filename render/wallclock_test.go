package render

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/gencrd"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// TestWallClockStopsOnlyAWaitingChild: the wall-clock limit decides
// nothing about a child that computes. Two 1 MB CRDs take about 2 s of CPU
// time to build (8 s of wall-clock time at load 19 on 2 cores): with a
// wall-clock limit of 2 s, that root ended in "took longer than 2s", and
// whether it did depended on the machine's load. Only the CPU-time limit
// may stop a child that runs, so it renders.
func TestWallClockStopsOnlyAWaitingChild(t *testing.T) {
	dir := t.TempDir()
	if err := gencrd.Write(dir, 2, 1_000_000); err != nil {
		t.Fatal(err)
	}
	src := manifest.Source{Path: filepath.Join(dir, "overlay"), Root: dir, Render: manifest.RenderKustomize}
	fs := lintSource(t, src, &Options{Limits: Limits{CPU: 60 * time.Second, Memory: 1 << 30, Wall: 2 * time.Second, Output: 64 << 20}})
	for _, f := range fs {
		if f.RuleID == rules.ChartRenderError.ID {
			t.Errorf("the root did not render: %s", f.Message)
		}
	}
}

// TestWaitingChildStopped: a child that waits without running is stopped
// at the wall-clock limit, with its own message: not the CPU-time one,
// since it used next to none.
func TestWaitingChildStopped(t *testing.T) {
	dir := filepath.Join("testdata", "kustomize", "helloWorld")
	fs := lintRoot(t, dir, manifest.RenderKustomize, &Options{Limits: Limits{CPU: 30 * time.Second, Memory: 256 << 20, Wall: time.Second, Output: 1 << 20},
		testHooks: testHooks{waitForTest: time.Hour}})
	wantLimit(t, fs, filepath.Join(dir, "kustomization.yaml"))
	if !strings.Contains(fs[0].Message, "waited 1s without running") || !strings.Contains(fs[0].Detail, "--render-timeout") {
		t.Errorf("want the wall-clock limit's own message, got: %s\n%s", fs[0].Message, fs[0].Detail)
	}
}
