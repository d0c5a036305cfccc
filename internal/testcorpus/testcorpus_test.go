package testcorpus

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetsFromEnv(t *testing.T) {
	var log []string
	logf := func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) }

	extra := t.TempDir()
	t.Setenv(ExtraEnv, extra)
	sets, err := Sets(logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 2 || sets[0].Name != "sample" || sets[1] != (Set{"extra", extra}) {
		t.Errorf("with %s=%s: sets %v", ExtraEnv, extra, sets)
	}
	if filepath.Base(sets[0].Dir) != "corpus" || filepath.Base(filepath.Dir(sets[0].Dir)) != "testdata" {
		t.Errorf("sample at %s, want …/testdata/corpus", sets[0].Dir)
	}
	if len(log) != 1 || !strings.Contains(log[0], extra) {
		t.Errorf("log %q does not name the extra corpus", log)
	}

	// A named folder that does not exist is an error, not a quiet skip.
	t.Setenv(ExtraEnv, filepath.Join(extra, "missing"))
	if _, err := Sets(logf); err == nil || !strings.Contains(err.Error(), ExtraEnv) {
		t.Errorf("missing %s folder: err = %v", ExtraEnv, err)
	}

	// Unset: the sample, plus ../shared/corpus only when it exists; the log
	// line says which.
	t.Setenv(ExtraEnv, "")
	log = nil
	sets, err = Sets(logf)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(sets) == 1 && strings.Contains(log[0], "only"):
	case len(sets) == 2 && strings.HasSuffix(filepath.ToSlash(sets[1].Dir), "/shared/corpus") && strings.Contains(log[0], sets[1].Dir):
	default:
		t.Errorf("unset: sets %v, log %q", sets, log)
	}
	t.Log(log[0])
}

func TestFiles(t *testing.T) {
	dir, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !IsManifest(f) || !strings.HasPrefix(f, dir) {
			t.Errorf("Files returned %s", f)
		}
	}
	if len(files) < 200 {
		t.Errorf("%d manifests in the sample", len(files))
	}
	if _, err := Files(t.TempDir()); err == nil {
		t.Error("an empty folder gave no error")
	}
}
