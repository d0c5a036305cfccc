package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/alloctest"
	"github.com/podlint/podlint/internal/testcorpus"
)

// End-to-end hostile inputs: what reaches podlint through the file system
// and standard input. The loader-level cases (alias bombs, deep nesting,
// encodings, bad values) are in manifest/hostile_test.go. Work is bounded by
// measuring allocations, never by the clock.

var hostileDir = filepath.Join("..", "..", "testdata", "hostile")

type jsonReport struct {
	Findings []struct {
		ID, Name, File  string
		Line, Column    int
		Message, Detail string
	}
	Summary struct{ Files, Objects, Workloads int }
}

// check runs `podlint check -f json` and decodes the report.
func check(t *testing.T, stdin io.Reader, args ...string) (int, *jsonReport, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(append([]string{"podlint", "check", "--no-config", "-f", "json"}, args...), stdin, &stdout, &stderr)
	var rep jsonReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("exit %d, output is not a JSON report: %v\nstdout: %s\nstderr: %s", code, err, stdout.String(), stderr.String())
	}
	return code, &rep, stderr.String()
}

// allocated returns the bytes f allocates.
var allocated = alloctest.Bytes

// wantFinding fails unless rep holds a finding of rule in file whose message
// contains every one of parts.
func wantFinding(t *testing.T, rep *jsonReport, file, rule string, parts ...string) {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Name != rule || !strings.HasSuffix(f.File, file) {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(f.Message+"; "+f.Detail, p)
		}
		if ok {
			return
		}
	}
	t.Errorf("no %s finding in %s with %q; findings: %+v", rule, file, parts, rep.Findings)
}

const plainPod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: good\nspec:\n  containers:\n    - name: app\n      image: busybox\n"

// A 100 MB file is refused from its size alone: it is never read.
func TestHostileHugeFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: 100 MB that take no disk space; its size is what matters.
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(plainPod), 0o644)
	var code int
	var rep *jsonReport
	alloc := allocated(func() { code, rep, _ = check(t, nil, dir) })
	if code != ExitFindings || rep.Summary.Files != 2 || rep.Summary.Workloads != 1 {
		t.Errorf("exit %d, summary %+v; want exit 1, 2 files, 1 workload", code, rep.Summary)
	}
	wantFinding(t, rep, "big.yaml", "limit-exceeded", "larger than 67108864 bytes", "--max-file-size")
	if alloc > 8<<20 {
		t.Errorf("allocated %d bytes for a file that must not be read", alloc)
	}
}

// Endless streams named on the command line are read up to --max-file-size
// and refused with a finding (files) or an error (standard input).
func TestHostileEndlessStreams(t *testing.T) {
	const limit = "1048576"
	t.Run("/dev/zero", func(t *testing.T) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			t.Skip("no /dev/zero")
		}
		var code int
		var rep *jsonReport
		alloc := allocated(func() { code, rep, _ = check(t, nil, "--max-file-size", limit, "/dev/zero") })
		if code != ExitFindings {
			t.Errorf("exit %d, want 1", code)
		}
		wantFinding(t, rep, "/dev/zero", "limit-exceeded", "larger than 1048576 bytes", "--max-file-size")
		if alloc > 16<<20 {
			t.Errorf("allocated %d bytes reading at most 1 MB", alloc)
		}
	})
	t.Run("FIFO", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "stream.yaml")
		if err := mkfifo(fifo); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		go func() {
			// Writes until podlint closes its end (EPIPE).
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer w.Close()
			line := []byte("a: 1\n")
			for {
				if _, err := w.Write(line); err != nil {
					return
				}
			}
		}()
		code, rep, _ := check(t, nil, "--max-file-size", limit, fifo)
		if code != ExitFindings {
			t.Errorf("exit %d, want 1", code)
		}
		wantFinding(t, rep, "stream.yaml", "limit-exceeded", "larger than 1048576 bytes", "--max-file-size")
	})
	t.Run("stdin", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := Run([]string{"podlint", "check", "--no-config", "--max-file-size", limit, "-"}, endless{}, &stdout, &stderr)
		if code != ExitError || !strings.Contains(stderr.String(), "standard input is larger than 1048576 bytes (--max-file-size)") {
			t.Errorf("exit %d, stderr %q; want 2 and an error naming --max-file-size", code, stderr.String())
		}
	})
}

// endless is a reader that never ends, like `yes a: 1 |`.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "a: 1\n"[i%5]
	}
	return len(p), nil
}

// A walked folder may hold FIFOs, devices and symbolic-link loops: they are
// skipped, and the walk neither blocks nor loops.
func TestHostileWalkSkipsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(plainPod), 0o644)
	if err := mkfifo(filepath.Join(dir, "fifo.yaml")); err != nil {
		t.Skipf("mkfifo: %v", err) // opening it would block forever: no writer
	}
	for name, target := range map[string]string{"zero.yaml": "/dev/zero", "loop.yaml": "loop.yaml", "sub": ".", "up.yaml": ".."} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	code, rep, stderr := check(t, nil, dir)
	if code != ExitOK || rep.Summary.Files != 1 || rep.Summary.Workloads != 1 {
		t.Errorf("exit %d, summary %+v, stderr %q; want exit 0 and only good.yaml linted", code, rep.Summary, stderr)
	}

	// Named explicitly, a looping link is an error that names it.
	code, _, stderr = check(t, nil, filepath.Join(dir, "loop.yaml"), filepath.Join(dir, "good.yaml"))
	if code != ExitError || !strings.Contains(stderr, "loop.yaml: too many levels of symbolic links") {
		t.Errorf("exit %d, stderr %q; want 2 and the loop named", code, stderr)
	}
}

func TestHostileUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: file permissions do not apply")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "good.yaml"), []byte(plainPod), 0o644)
	locked := filepath.Join(dir, "locked.yaml")
	os.WriteFile(locked, []byte(plainPod), 0o000)
	code, rep, stderr := check(t, nil, dir)
	if code != ExitError || !strings.Contains(stderr, "locked.yaml: permission denied") {
		t.Errorf("exit %d, stderr %q; want 2 and locked.yaml named", code, stderr)
	}
	if rep.Summary.Workloads != 1 {
		t.Errorf("summary %+v: good.yaml was not linted", rep.Summary)
	}
}

// Each limit is a flag, and hitting it is a finding that names the flag.
func TestHostileLimitFlags(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	docs := write("docs.yaml", strings.Repeat("---\na: 1\n", 1_000_000))
	deep := write("deep.yaml", plainPod+"      x: [[[[[[[[1]]]]]]]]\n")
	aliases := write("aliases.yaml", "x: &x [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"+plainPod+"      y: [*x, *x, *x, *x, *x, *x, *x, *x]\n")
	for _, tc := range []struct {
		path, flag, value, msg string
		maxAlloc               uint64
	}{
		// A million documents: splitting stops past the limit, so this costs
		// reading 9 MB and parsing 100 documents.
		{docs, "--max-documents", "100", "more than 100 YAML documents; Only the first 100 were linted (raise --max-documents", 64 << 20},
		{deep, "--max-depth", "10", "nested more than 10 levels deep and was not linted (limit: --max-depth)", 4 << 20},
		{aliases, "--max-nodes", "60", "more than 60 nodes through YAML aliases and merge keys; It was not linted (limit: --max-nodes)", 4 << 20},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			var rep *jsonReport
			alloc := allocated(func() { _, rep, _ = check(t, nil, tc.flag, tc.value, tc.path) })
			wantFinding(t, rep, filepath.Base(tc.path), "limit-exceeded", tc.msg)
			if alloc > tc.maxAlloc {
				t.Errorf("allocated %d bytes, more than %d", alloc, tc.maxAlloc)
			}
		})
	}
}

// One million documents under the default --max-documents: 20 000 are
// linted and the rest is reported, not read into memory as documents.
func TestHostileMillionDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 20 000 documents; skipped with -short")
	}
	p := filepath.Join(t.TempDir(), "docs.yaml")
	os.WriteFile(p, bytes.Repeat([]byte("---\na: 1\n"), 1_000_000), 0o644)
	code, rep, _ := check(t, nil, p)
	if code != ExitFindings {
		t.Errorf("exit %d, want 1", code)
	}
	wantFinding(t, rep, "docs.yaml", "limit-exceeded", "more than 20000 YAML documents", "--max-documents")
}

// 25 000 files in one folder are all linted, with memory per file bounded.
// It used 100 000 files until the suite had to fit in two minutes: 37
// CPU-s, 40% of it creating and deleting the files. What 25 000 gives up:
// a per-file allocation that grows with the number of files (each file
// copying a list of all of them) now fails the bound from about 4 bytes
// per file in the folder, where 100 000 caught 1 byte.
func TestHostileManyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and lints 25 000 files; skipped with -short")
	}
	const n = 25_000
	dir := t.TempDir()
	for i := range n {
		text := fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata: {name: p%d}\nspec: {containers: [{name: app, image: busybox}]}\n", i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%06d.yaml", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var code int
	var rep *jsonReport
	alloc := allocated(func() { code, rep, _ = check(t, nil, dir) })
	if code != ExitOK || rep.Summary.Files != n || rep.Summary.Workloads != n {
		t.Errorf("exit %d, summary %+v; want exit 0 and %d files and workloads", code, rep.Summary, n)
	}
	t.Logf("%d bytes allocated per file", alloc/n)
	if alloc/n > 128<<10 {
		t.Errorf("allocated %d bytes per one-line file", alloc/n)
	}
}

// TestNothingLost lints good and hostile files together and checks that
// each hostile file yields its finding while every good file is linted
// exactly as it is alone: same findings, same object and workload counts.
func TestNothingLost(t *testing.T) {
	root := t.TempDir()
	goodDir, badDir := filepath.Join(root, "good"), filepath.Join(root, "bad")
	os.MkdirAll(goodDir, 0o755)
	os.MkdirAll(badDir, 0o755)

	// Good files: 150 real ones from the committed sample corpus.
	goods := 0
	corpus, err := testcorpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") && !strings.Contains(d.Name(), ".golden.") && goods < 150 { // a walk skips golden outputs
			if data, err := os.ReadFile(p); err == nil {
				os.WriteFile(filepath.Join(goodDir, fmt.Sprintf("c%03d-%s", goods, d.Name())), data, 0o644)
				goods++
			}
		}
		return nil
	})
	if goods < 150 {
		t.Fatalf("only %d YAML files in %s; want 150", goods, corpus)
	}

	// Hostile files, each with the finding it must produce ("" for valid
	// files that must simply be linted).
	expect := map[string]string{
		"billion-laughs.yaml": "invalid-yaml", "merge-bomb.yaml": "invalid-yaml", "tabs.yaml": "invalid-yaml",
		"unknown-anchor.yaml": "invalid-yaml", "nul-bytes.yaml": "invalid-yaml",
		"overflow.yaml": "invalid-manifest", "strings-for-numbers.yaml": "invalid-manifest",
		"duplicate-keys.yaml": "duplicate-key",
		"crlf.yaml":           "unknown-field", "bom.yaml": "unknown-field", "utf16le.yaml": "unknown-field", "utf16be.yaml": "unknown-field",
		"nulls.yaml": "", "negative.yaml": "", "merge-keys.yaml": "",
		"deep.yaml": "limit-exceeded", "big.yaml": "limit-exceeded", "docs.yaml": "limit-exceeded", "latin1.yaml": "invalid-yaml",
	}
	for name := range expect {
		src := filepath.Join(hostileDir, name)
		data, err := os.ReadFile(src)
		switch name {
		case "deep.yaml":
			data, err = []byte(plainPod+"x: "+strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)+"\n"), nil
		case "big.yaml":
			data, err = bytes.Repeat([]byte(plainPod), (2<<20)/len(plainPod)+1), nil // over --max-file-size below
		case "docs.yaml":
			data, err = bytes.Repeat([]byte("---\n"+plainPod), 600), nil // over --max-documents below
		case "latin1.yaml":
			data, err = []byte(plainPod+"      command: [caf\xe9]\n"), nil
		}
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(badDir, name), data, 0o644)
	}

	limits := []string{"--max-file-size", "2097152", "--max-documents", "500", "--fail-on", "info"}
	_, good, _ := check(t, nil, append(limits, goodDir)...)
	_, bad, _ := check(t, nil, append(limits, badDir)...)
	_, mixed, _ := check(t, nil, append(limits, goodDir, badDir)...)

	if good.Summary.Files != goods || good.Summary.Workloads == 0 {
		t.Fatalf("good files alone: summary %+v", good.Summary)
	}
	if mixed.Summary.Files != good.Summary.Files+bad.Summary.Files ||
		mixed.Summary.Objects != good.Summary.Objects+bad.Summary.Objects ||
		mixed.Summary.Workloads != good.Summary.Workloads+bad.Summary.Workloads {
		t.Errorf("summaries do not add up: good %+v + bad %+v != together %+v", good.Summary, bad.Summary, mixed.Summary)
	}
	key := func(r *jsonReport) []string {
		var out []string
		for _, f := range r.Findings {
			out = append(out, fmt.Sprintf("%s:%d:%d %s %s", f.File, f.Line, f.Column, f.ID, f.Message))
		}
		sort.Strings(out)
		return out
	}
	want := append(key(good), key(bad)...)
	sort.Strings(want)
	if got := key(mixed); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings together differ from the findings of each set alone:\ntogether:\n%s\napart:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for name, rule := range expect {
		if rule != "" {
			wantFinding(t, mixed, filepath.Join("bad", name), rule)
		}
	}
	t.Logf("good (from %s): %+v, bad: %+v", corpus, good.Summary, bad.Summary)
}
