package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testcorpus"
)

// FuzzRun runs the whole `podlint check -` on arbitrary standard input in
// every output format: it must never panic, must exit 0, 1 or 2, and must
// write the same output for the same input. Run it with
//
//	go test -run=NONE -fuzz=FuzzRun -fuzztime=10m -parallel=1 ./internal/cli
//
// Crashers are kept in testdata/fuzz/FuzzRun/ of this package.
func FuzzRun(f *testing.F) {
	formats := []string{"text", "json", "sarif", "github"}
	// Every hostile file and every fourth corpus file: plain `go test` runs
	// each seed, so the set stays small.
	type seedDir struct {
		dir   string
		every int
	}
	seeds := []seedDir{{filepath.Join("..", "..", "testdata", "hostile"), 1}}
	sets, err := testcorpus.Sets(f.Logf)
	if err != nil {
		f.Fatal(err)
	}
	for _, set := range sets {
		seeds = append(seeds, seedDir{set.Dir, 4})
	}
	for _, seeds := range seeds {
		i := 0
		filepath.WalkDir(seeds.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.Size() <= 32<<10 && i%seeds.every == 0 {
				if data, err := os.ReadFile(p); err == nil {
					f.Add(data, uint8(i))
				}
			}
			i++
			return nil
		})
	}
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    ignore-check.podlint.dev/PL114: \"\"\n# podlint:ignore nonsense\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		args := []string{"podlint", "check", "--no-config", "--color", "never", "-f", formats[int(format)%len(formats)],
			"--max-nodes", "100000", "--stdin-filename", "in.yaml", "-"}
		run := func() (int, string, string) {
			var stdout, stderr bytes.Buffer
			code := Run(args, bytes.NewReader(data), &stdout, &stderr)
			return code, stdout.String(), stderr.String()
		}
		code, out, errOut := run()
		if code != ExitOK && code != ExitFindings && code != ExitError {
			t.Fatalf("exit code %d", code)
		}
		if strings.Contains(errOut, "internal error") || strings.Contains(out, "crashed on this object: ") {
			t.Fatalf("internal error:\nstdout: %s\nstderr: %s", out, errOut)
		}
		// Whatever the input holds, text and github output and stderr show
		// control, bidi and separator characters only escaped.
		if f := args[6]; f == "text" || f == "github" {
			if m := rawControl.FindString(out + errOut); m != "" {
				t.Fatalf("raw %q in the %s output:\n%q\n%q", m, f, out, errOut)
			}
		}
		code2, out2, errOut2 := run()
		if code2 != code || out2 != out || errOut2 != errOut {
			t.Fatalf("two runs on the same input differ:\nexit %d vs %d\nstdout:\n%s\n---\n%s\nstderr:\n%s\n---\n%s", code, code2, out, out2, errOut, errOut2)
		}
	})
}
