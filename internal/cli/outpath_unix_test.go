//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/textsafe"
)

// TestOutputFoldersInTheTreeAreNotFollowed: a folder of an output path
// inside the working tree (the git work tree holding the working
// directory) that is a symbolic link is refused, wherever it is on the
// path and wherever it points (out of the repository or into it); a path
// outside the working tree is used as given, links included ($RUNNER_TEMP,
// macOS's /tmp). Before, only a link as the last component was refused:
// `-o reports/podlint.sarif` with a committed reports -> ../x replaced x's
// file.
func TestOutputFoldersInTheTreeAreNotFollowed(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	writeFiles(t, base, map[string]string{
		"x/podlint.sarif":          "VICTIM\n",
		"repo/.git/HEAD":           "ref: refs/heads/main\n",
		"repo/sub/pod.yaml":        findingPod,
		"repo/inside/keep.txt":     "kept\n",
		"repo/deep/real/empty.txt": "",
	})
	for link, target := range map[string]string{
		"repo/reports":         "../x",
		"repo/deep/real/up":    "../../../x",
		"repo/into":            "inside",
		"repo/sub/reports":     "../../x",
		"tmplink":              "x", // a link outside the tree, like macOS's /tmp
		"repo/sub/charts-link": "../../x",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	unchanged := func(what string) {
		t.Helper()
		if b, _ := os.ReadFile(filepath.Join(base, "x/podlint.sarif")); string(b) != "VICTIM\n" {
			t.Errorf("%s: the file outside the repository was replaced (%d bytes)", what, len(b))
		}
		if es, _ := os.ReadDir(filepath.Join(base, "x")); len(es) != 1 {
			t.Errorf("%s: files written outside the repository: %v", what, es)
		}
		if es, _ := os.ReadDir(filepath.Join(repo, "inside")); len(es) != 1 {
			t.Errorf("%s: files written through the link into the repository: %v", what, es)
		}
	}
	sub := filepath.Join(repo, "sub")
	// The message names the link by its absolute path.
	for _, tc := range []struct{ dir, out, link string }{
		{repo, "reports/podlint.sarif", "reports"},
		{repo, "deep/real/up/podlint.sarif", "deep/real/up"},
		{repo, "into/podlint.sarif", "into"},
		{sub, "../reports/podlint.sarif", "reports"}, // from a subfolder: the tree is the work tree
		{sub, "reports/podlint.sarif", "sub/reports"},
		{sub, filepath.Join(repo, "reports", "podlint.sarif"), "reports"},
	} {
		tc.link = textsafe.Quote(filepath.Join(repo, tc.link))
		pod := "sub/pod.yaml"
		if tc.dir == sub {
			pod = "pod.yaml"
		}
		code, _, errs := run(t, tc.dir, nil, "check", "--no-config", "-f", "sarif", "-o", tc.out, pod)
		if code != ExitError || !strings.Contains(errs, tc.link+" is a symbolic link inside the working tree") {
			t.Errorf("-o %s: exit %d, want 2 naming %s; stderr:\n%s", tc.out, code, tc.link, errs)
		}
		unchanged("-o " + tc.out)
	}
	code, _, errs := run(t, sub, nil, "timeline", "--no-config", "-f", "svg", "-o", "charts-link/svg/", "pod.yaml")
	if code != ExitError || !strings.Contains(errs, textsafe.Quote(filepath.Join(sub, "charts-link"))+" is a symbolic link inside the working tree") {
		t.Errorf("timeline -o charts-link/svg/: exit %d, stderr:\n%s", code, errs)
	}
	unchanged("timeline -o charts-link/svg/")

	// Inside the tree without links: written, folders created for charts.
	if code, _, errs := run(t, sub, nil, "check", "--no-config", "-f", "sarif", "-o", "../inside/podlint.sarif", "pod.yaml"); code != ExitFindings {
		t.Errorf("-o ../inside/podlint.sarif: exit %d, stderr:\n%s", code, errs)
	}
	if code, _, errs := run(t, sub, nil, "timeline", "--no-config", "-f", "svg", "-o", "out/svg/", "pod.yaml"); code != 0 {
		t.Errorf("timeline -o out/svg/: exit %d, stderr:\n%s", code, errs)
	} else if es, _ := os.ReadDir(filepath.Join(sub, "out/svg")); len(es) != 1 || !strings.HasSuffix(es[0].Name(), ".svg") {
		t.Errorf("timeline -o out/svg/ wrote %v", es)
	}
	// Outside the tree: as given, through the link outside it.
	for _, out := range []string{filepath.Join(base, "tmplink", "report.sarif"), "../../x/report2.sarif"} {
		if code, _, errs := run(t, sub, nil, "check", "--no-config", "-f", "sarif", "-o", out, "pod.yaml"); code != ExitFindings {
			t.Errorf("-o %s (outside the tree): exit %d, stderr:\n%s", out, code, errs)
		}
	}
	es, _ := os.ReadDir(filepath.Join(base, "x"))
	if len(es) != 3 {
		t.Errorf("the reports outside the tree were not written: %v", es)
	}
}
