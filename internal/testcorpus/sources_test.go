package testcorpus

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// licenses are the licenses a file of the sample may carry: permissive ones
// that allow redistribution with the notices kept.
var licenses = map[string]bool{"Apache-2.0": true, "MIT": true, "BSD-2-Clause": true, "BSD-3-Clause": true}

// fileRow is one row of the "Files" table of SOURCES.md:
// | `owner__repo/path` | owner/repo | `commit` | license |
var fileRow = regexp.MustCompile("^\\| `([^`]+)` \\| ([\\w.-]+/[\\w.-]+) \\| `([0-9a-f]{40})` \\| ([\\w.-]+) \\|$")

type source struct{ repo, commit, license string }

// parseSources reads the "Files" table of a SOURCES.md; every row of that
// table that is not of the expected form is a problem, not skipped.
func parseSources(r io.Reader) (map[string]source, []string, error) {
	rows := map[string]source{}
	var problems []string
	inFiles := false
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "## ") {
			inFiles = line == "## Files"
			continue
		}
		if !inFiles || !strings.HasPrefix(line, "| `") {
			continue
		}
		m := fileRow.FindStringSubmatch(line)
		if m == nil {
			problems = append(problems, fmt.Sprintf("SOURCES.md:%d: row not of the form | `owner__repo/path` | owner/repo | `40-hex commit` | license |: %s", n, line))
			continue
		}
		if _, dup := rows[m[1]]; dup {
			problems = append(problems, fmt.Sprintf("SOURCES.md:%d: %s listed twice", n, m[1]))
		}
		rows[m[1]] = source{m[2], m[3], m[4]}
	}
	return rows, problems, sc.Err()
}

// TestSampleSources checks testdata/corpus/SOURCES.md against the folder:
// every file has a row and every row a file, the repository matches the
// file's owner__repo folder, and the license allows redistribution. It also
// keeps the sample small.
func TestSampleSources(t *testing.T) {
	dir, err := Sample()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, problems, err := parseSources(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	var total int64
	seen := map[string]bool{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := filepath.ToSlash(p[len(dir)+1:])
		if rel == "SOURCES.md" {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		total += fi.Size()
		if fi.Size() > 1<<20 {
			t.Errorf("%s: %d bytes; no file of the sample may exceed 1 MiB", rel, fi.Size())
		}
		if !IsManifest(rel) {
			t.Errorf("%s: not a manifest (.yaml, .yml or .json)", rel)
		}
		seen[rel] = true
		src, ok := rows[rel]
		if !ok {
			t.Errorf("%s: no row in SOURCES.md", rel)
			return nil
		}
		owner, repo, _ := strings.Cut(strings.SplitN(rel, "/", 2)[0], "__")
		if src.repo != owner+"/"+repo {
			t.Errorf("%s: SOURCES.md names repository %s; the folder says %s/%s", rel, src.repo, owner, repo)
		}
		if !licenses[src.license] {
			t.Errorf("%s: license %q is not one that allows redistribution here (%v)", rel, src.license, licenses)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range rows {
		if !seen[rel] {
			t.Errorf("SOURCES.md lists %s, which is not in %s", rel, dir)
		}
	}
	if total > 3<<20 {
		t.Errorf("the sample is %d bytes; keep it under 3 MiB", total)
	}
	if len(seen) < 200 {
		t.Errorf("the sample has %d files; the tests count on a few hundred", len(seen))
	}
	t.Logf("%d files, %d bytes", len(seen), total)
}

// TestParseSourcesCatchesMistakes keeps the parser above honest: malformed
// and repeated rows are reported, not skipped.
func TestParseSourcesCatchesMistakes(t *testing.T) {
	good := "| `a__b/x.yaml` | a/b | `0123456789012345678901234567890123456789` | Apache-2.0 |\n"
	rows, problems, err := parseSources(strings.NewReader("## Repositories\n\n| `not/a file row` |\n\n## Files\n\n" +
		"| file | repository | commit | license |\n|---|---|---|---|\n" + good + good +
		"| `a__b/y.yaml` | a/b | `0123` | Apache-2.0 |\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SOURCES.md:10: a__b/x.yaml listed twice", "SOURCES.md:11: row not of the form"}
	if len(rows) != 1 || len(problems) != len(want) {
		t.Fatalf("rows %v, problems %q; want one row and %d problems", rows, problems, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d = %q, want it to start with %q", i, problems[i], w)
		}
	}
}
