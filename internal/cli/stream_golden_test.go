package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// streamVariants are the command lines of TestStreamGolden: every output
// format, text also brief.
var streamVariants = []struct {
	name string
	args []string
}{
	{"text", []string{"--color", "never"}},
	{"text-brief", []string{"--color", "never", "--brief"}},
	{"json", []string{"-f", "json"}},
	{"sarif", []string{"-f", "sarif"}},
	{"github", []string{"-f", "github"}},
	{"junit", []string{"-f", "junit"}},
	{"codeclimate", []string{"-f", "codeclimate"}},
	{"markdown", []string{"-f", "markdown"}},
}

// TestStreamGolden pins the output of `podlint check` on the sample corpus
// (testdata/corpus), as files and as one stream on standard input, in
// every format, to goldens taken before the loader and the report were
// made to stream (internal/cli/testdata/stream/*.golden.gz), and requires
// the same bytes with 1, 2 and 8 workers (GOMAXPROCS) in the text and json
// formats: streaming must change neither what is reported nor its order.
// go test ./internal/cli -run TestStreamGolden -update rewrites the goldens.
func TestStreamGolden(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	t.Setenv("NO_COLOR", "1")
	ruleArgs := goldenRuleArgs(t)
	t.Setenv("COLUMNS", "")
	stdin := corpusStream(t, "testdata/corpus")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, input := range []string{"corpus", "stdin"} {
		for _, v := range streamVariants {
			name := input + "." + v.name + ".golden.gz"
			t.Run(name, func(t *testing.T) {
				args := append(append([]string{"podlint", "check", "--no-config"}, ruleArgs...), v.args...)
				in := ""
				if input == "stdin" {
					args = append(args, "-")
					in = stdin
				} else {
					args = append(args, "testdata/corpus")
				}
				// The writers are functions of the sorted findings: the text
				// (snippets) and json (every other field) outputs show any
				// change of order or content with the worker count, so the
				// other formats, pinned by their goldens, run once.
				workers := []int{1, 2, 8}
				if v.name != "text" && v.name != "json" {
					workers = []int{2}
				}
				var first []byte
				for _, procs := range workers {
					runtime.GOMAXPROCS(procs)
					var out, errb bytes.Buffer
					if code := Run(args, strings.NewReader(in), &out, &errb); code != ExitFindings {
						t.Fatalf("GOMAXPROCS %d: exit %d, want 1: %s", procs, code, errb.String())
					}
					if first == nil {
						first = out.Bytes()
					} else if !bytes.Equal(out.Bytes(), first) {
						t.Fatalf("GOMAXPROCS %d: the output differs from GOMAXPROCS 1's (%d and %d bytes)", procs, out.Len(), len(first))
					}
				}
				first = goldenOf(t, v.name, first)
				file := filepath.Join("internal", "cli", "testdata", "stream", name)
				if *update {
					writeGzip(t, file, first)
					return
				}
				want := readGzip(t, file)
				if !bytes.Equal(first, want) {
					t.Errorf("%s differs from the golden (%d and %d bytes); first difference at line %d", name, len(first), len(want), firstDiffLine(first, want))
				}
			})
		}
	}
}

// corpusStream concatenates the manifests under dir, in path order, into
// one multi-document stream, as `helm template` would write it.
func corpusStream(t *testing.T, dir string) string {
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b.WriteString("---\n# Source: " + filepath.ToSlash(p) + "\n")
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func writeGzip(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readGzip(t *testing.T, file string) []byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("%v (go test ./internal/cli -run TestStreamGolden -update creates it)", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func firstDiffLine(a, b []byte) int {
	line := 1
	for i := 0; i < len(a) && i < len(b) && a[i] == b[i]; i++ {
		if a[i] == '\n' {
			line++
		}
	}
	return line
}
