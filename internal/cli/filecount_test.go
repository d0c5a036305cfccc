package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestSummaryCountsFilesOnDisk: the summary counts the manifest files on
// disk a run read (YAML, JSON, chart templates), each once. A chart of 7
// files said "2 files" (the templates that produced documents), two
// overlays over one base counted the base's files once per overlay, a file
// linted and also rendered counted twice, and a chart's README, NOTES.txt,
// .helmignore and scripts were counted as files (a tree of 74 YAML files
// said 85).
func TestSummaryCountsFilesOnDisk(t *testing.T) {
	onDisk := func(dirs ...string) int {
		n := 0
		for _, d := range dirs {
			_ = filepath.WalkDir(d, func(_ string, e fs.DirEntry, err error) error {
				name := e.Name()
				ext := filepath.Ext(name)
				if err == nil && e.Type().IsRegular() && name[0] != '.' && (ext == ".yaml" || ext == ".yml" || ext == ".json" || ext == ".tpl") {
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
	// A chart with files that are not manifests beside its templates.
	withDocs := t.TempDir()
	writeFiles(t, withDocs, map[string]string{
		"Chart.yaml":             "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"values.yaml":            "replicas: 1\n",
		"templates/pod.yaml":     "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: app, image: busybox}]}\n",
		"templates/_helpers.tpl": "{{- define \"c.name\" -}}c{{- end -}}\n",
		"templates/NOTES.txt":    "Installed.\n",
		"README.md":              "# c\n",
		".helmignore":            ".git/\n",
		"ci/test.sh":             "#!/bin/sh\n",
	})
	if _, rep, stderr := check(t, nil, withDocs); rep.Summary.Files != 4 {
		t.Errorf("a chart of 4 manifest files and 4 others: summary counts %d files, want 4\n%s", rep.Summary.Files, stderr)
	}
	if n := onDisk(chart); n < 5 {
		t.Fatalf("%s holds %d files; the test needs a chart of several files", chart, n)
	}
	if _, err := os.Stat(filepath.Join(overlays, "base")); err != nil {
		t.Fatal(err)
	}
}
