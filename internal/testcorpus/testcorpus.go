// Package testcorpus finds the corpora of real Kubernetes manifests that the
// tests, fuzz seeds and benchmarks run on: the sample committed in
// testdata/corpus, always there, and a larger extra set when one is present
// (never required). Callers log which sets ran, so a run that used only the
// sample says so.
package testcorpus

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// ExtraEnv names the environment variable that points at an extra corpus.
// When it is set the folder must exist; when it is not, ../shared/corpus
// beside the repository is used if it exists.
const ExtraEnv = "PODLINT_EXTRA_CORPUS"

// Set is one corpus: Name is "sample" or "extra".
type Set struct {
	Name string
	Dir  string
}

const module = "module github.com/podlint/podlint"

// Root returns the repository root: the nearest folder at or above the
// working directory whose go.mod declares podlint's module. Tests run in
// their package's folder, so this works from any package.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isPodlintMod(data) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testcorpus: not inside the podlint repository (no go.mod of github.com/podlint/podlint above the working directory)")
		}
		dir = parent
	}
}

// isPodlintMod reports whether a go.mod's first line declares podlint's
// module (a Windows checkout may end it with CRLF).
func isPodlintMod(data []byte) bool {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	return string(bytes.TrimSpace(first)) == module
}

// Sample returns the folder of the committed sample corpus.
func Sample() (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "testdata", "corpus")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("testcorpus: sample corpus %s missing: %v", dir, err)
	}
	return dir, nil
}

// Extra returns the extra corpus folder, "" when there is none, and where it
// was looked for (for the log line).
func Extra() (dir, where string, err error) {
	if env := os.Getenv(ExtraEnv); env != "" {
		if fi, err := os.Stat(env); err != nil || !fi.IsDir() {
			return "", ExtraEnv, fmt.Errorf("testcorpus: %s=%s is not a folder", ExtraEnv, env)
		}
		return env, ExtraEnv, nil
	}
	root, err := Root()
	if err != nil {
		return "", "", err
	}
	shared := filepath.Join(filepath.Dir(root), "shared", "corpus")
	if fi, err := os.Stat(shared); err == nil && fi.IsDir() {
		return shared, shared, nil
	}
	return "", shared, nil
}

// Sets returns the sample and, when present, the extra corpus, and reports
// through logf which of them will run and why the extra one does not.
func Sets(logf func(format string, args ...any)) ([]Set, error) {
	sample, err := Sample()
	if err != nil {
		return nil, err
	}
	sets := []Set{{"sample", sample}}
	extra, where, err := Extra()
	switch {
	case err != nil:
		return nil, err
	case extra == "":
		logf("corpus: the committed sample %s only (no extra corpus: %s does not exist and %s is not set)", sample, where, ExtraEnv)
	default:
		sets = append(sets, Set{"extra", extra})
		logf("corpus: the committed sample %s and the extra corpus %s", sample, extra)
	}
	return sets, nil
}

// IsManifest reports whether path has the extension of a manifest file.
func IsManifest(path string) bool {
	switch filepath.Ext(path) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// Files returns the manifest files under dir (.yaml, .yml, .json), sorted.
func Files(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && IsManifest(p) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("testcorpus: no manifests under %s", dir)
	}
	return files, err
}
