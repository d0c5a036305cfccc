package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestSummaryCountsFilesOnDisk: the summary counts the files on disk a
// run read, each once. A chart of 7 files said "2 files" (the templates
// that produced documents), two overlays over one base counted the base's
// files once per overlay, and a file linted and also rendered counted
// twice.
func TestSummaryCountsFilesOnDisk(t *testing.T) {
	onDisk := func(dirs ...string) int {
		n := 0
		for _, d := range dirs {
			_ = filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
				if err == nil && e.Type().IsRegular() {
					n++
				}
				return nil
			})
		}
		return n
	}
	render := filepath.Join("..", "..", "render", "testdata")
	chart := filepath.Join(render, "helm", "subchart")
	overlays := filepath.Join(render, "kustomize", "overlays")
	plain := filepath.Join("testdata", "sample", "batch-job.yaml")
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{chart}, onDisk(chart)},
		{[]string{overlays}, onDisk(overlays)},
		// The same chart named twice, and a plain file twice: each file once.
		{[]string{chart, chart, plain, plain}, onDisk(chart) + 1},
	} {
		_, rep, stderr := check(t, nil, c.args...)
		if rep.Summary.Files != c.want {
			t.Errorf("%v: summary counts %d files, want %d (the files on disk, each once)\n%s", c.args, rep.Summary.Files, c.want, stderr)
		}
	}
	if n := onDisk(chart); n < 5 {
		t.Fatalf("%s holds %d files; the test needs a chart of several files", chart, n)
	}
	if _, err := os.Stat(filepath.Join(overlays, "base")); err != nil {
		t.Fatal(err)
	}
}
