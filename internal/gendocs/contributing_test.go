package gendocs

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/ruledoc"
	"github.com/podlint/podlint/internal/testbin"
)

// insideCopy is set in the environment of the commands the test runs, so
// that the copy's own gendocs tests do not start another copy.
const insideCopy = "PODLINT_ADD_RULE_TEST"

var (
	docFile  = regexp.MustCompile("(?s)<!-- file: (\\S+) -->\n```[a-z]*\n(.*?)```\n")
	docEdit  = regexp.MustCompile("(?s)<!-- edit: (\\S+) -->\n```diff\n(.*?)```\n")
	docSteps = regexp.MustCompile("(?s)<!-- commands -->\n```sh\n(.*?)```\n")
	ruleID   = regexp.MustCompile(`ID: "(PL\d+)", Name: "([a-z-]+)"`)
)

// TestAddRuleAsDocumented follows "Adding a rule" of CONTRIBUTING.md on a
// copy of the repository: it writes the files the example shows, applies
// its edit of rules/all.go, runs its commands, and checks that the rule's
// page and catalog row were generated and that `podlint rules ID` prints
// the doc. So the four files of the example are all a rule needs, and the
// guide cannot drift from the code.
func TestAddRuleAsDocumented(t *testing.T) {
	if os.Getenv(insideCopy) != "" {
		t.Skip("running inside the copy made by TestAddRuleAsDocumented")
	}
	if testing.Short() {
		t.Skip("-short: skipping the add-a-rule walk-through, which builds podlint in a copy of the repository")
	}
	if os.Getenv("PODLINT_SLOW_TESTS") != "1" {
		// The copy is another folder, so its packages are compiled again:
		// a minute of CPU on an empty build cache, a third of what the
		// whole suite adds to the dependencies' compilation.
		t.Skip("the add-a-rule walk-through builds and tests podlint in a copy of the repository: run with PODLINT_SLOW_TESTS=1 (as .ci/run does) to include it")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	inRoot(t)
	guide, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	files := docFile.FindAllSubmatch(guide, -1)
	edits := docEdit.FindAllSubmatch(guide, -1)
	steps := docSteps.FindSubmatch(guide)
	if len(files) < 3 || len(edits) != 1 || steps == nil {
		t.Fatalf("CONTRIBUTING.md: found %d files, %d edits and commands %v; want the rule file, its doc, its testdata, the edit of rules/all.go and the commands", len(files), len(edits), steps != nil)
	}
	id := ruleID.FindSubmatch(files[0][2])
	if id == nil {
		t.Fatalf("the first file of the example, %s, declares no rule ID and name", files[0][1])
	}
	if _, err := os.Stat(filepath.Join("rules", "doc", string(id[1])+".md")); err == nil {
		t.Fatalf("the example's ID %s is now a real rule: give the example in CONTRIBUTING.md a free ID", id[1])
	}

	dir, bins := copyDir(t)
	copyRepo(t, dir)
	original := treeHashes(t, dir)
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(string(f[1])))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f[2], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range edits {
		applyDiff(t, filepath.Join(dir, filepath.FromSlash(string(e[1]))), string(e[2]))
	}

	env := append(os.Environ(), insideCopy+"=1", "GOFLAGS=-mod=readonly", "GOPROXY=off", "GOWORK=off")
	var last string
	for _, line := range strings.Split(strings.TrimSpace(string(steps[1])), "\n") {
		args := strings.Fields(line)
		if len(args) == 0 || args[0] != "go" {
			t.Fatalf("CONTRIBUTING.md: command %q is not a go command", line)
		}
		cmd := exec.Command(goTool, args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		last = string(out)
	}

	// What else a new rule could change is in the goldens of the CLI's
	// output, which `-update` rewrites: they run the rules listed in
	// internal/cli/testdata/golden-rules.txt, so a new rule changes them
	// only once listed there (TestStreamGolden runs the corpus of
	// TestOutputGolden with the same list). Together with the files the example adds
	// and edits and those go generate writes, a rule touches at most
	// maxRuleFiles files (the example: its Go file, doc, two testdata
	// files, rules/all.go, its page and docs/rules.md).
	// go test -c -o onto the test binary of the last run links nothing
	// when the copy is unchanged (see copyDir), where go test links 80 MB.
	cliTest := filepath.Join(bins, "cli.test")
	build := exec.Command(goTool, "test", "-c", "-o", cliTest, "./internal/cli")
	build.Dir, build.Env = dir, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI's tests: %v\n%s", err, out)
	}
	update := exec.Command(cliTest, "-test.run", "^(TestOutputGolden|TestTimelineGolden)$", "-update")
	update.Dir, update.Env = filepath.Join(dir, "internal", "cli"), env
	if out, err := update.CombinedOutput(); err != nil {
		t.Fatalf("rewriting the goldens: %v\n%s", err, out)
	}
	touched := changedFiles(original, treeHashes(t, dir))
	t.Logf("adding %s touches %d files: %s", id[1], len(touched), strings.Join(touched, " "))
	if len(touched) > maxRuleFiles {
		t.Errorf("adding %s as CONTRIBUTING.md shows touches %d files, more than %d: %s", id[1], len(touched), maxRuleFiles, strings.Join(touched, " "))
	}

	page, err := os.ReadFile(filepath.Join(dir, "docs", "rules", string(id[1])+".md"))
	if err != nil {
		t.Fatalf("go generate wrote no page for %s: %v", id[1], err)
	}
	doc := strings.TrimSpace(string(files[1][2]))
	for _, want := range []string{"# " + string(id[1]) + " " + string(id[2]) + "\n", doc, "## Failing example", "## Passing example"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("docs/rules/%s.md lacks %q:\n%s", id[1], want, page)
		}
	}
	catalog, _ := os.ReadFile(filepath.Join(dir, "docs", "rules.md"))
	if !strings.Contains(string(catalog), "| ["+string(id[1])+"](rules/"+string(id[1])+".md) | `"+string(id[2])+"` |") {
		t.Errorf("docs/rules.md has no row for %s", id[1])
	}
	// The binary prints the page for the terminal: the doc without its
	// Markdown.
	if !strings.HasPrefix(last, string(id[1])+" ") || !strings.Contains(last, strings.TrimSpace(ruledoc.Terminal(doc))) {
		t.Errorf("the last command should print the rule's page with its doc; it printed:\n%s", last)
	}
}

// maxRuleFiles is how many files adding a rule may touch, authored and
// generated: the issue that set it counted 12 (5 authored, 2 generated and
// 5 SARIF goldens, rewritten because their rule catalog grew).
const maxRuleFiles = 7

// treeHashes maps every file of the tree at dir (hidden directories left
// out, as copyRepo leaves them) to the hash of its content.
func treeHashes(t *testing.T, dir string) map[string][sha256.Size]byte {
	t.Helper()
	out := map[string][sha256.Size]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// changedFiles lists, sorted, the files added, changed or removed between
// two trees.
func changedFiles(before, after map[string][sha256.Size]byte) []string {
	var out []string
	for p, h := range after {
		if old, ok := before[p]; !ok || old != h {
			out = append(out, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// copyDir returns an empty folder for the copy of the repository and a
// folder for the test binaries built from it, the same folders on every
// run where it can (testbin): without -trimpath a
// package's folder is part of its key in the build cache, so a copy in a
// new folder compiled every package of podlint again, and relinked the
// programs that go run caches, on every run (half the test's 48 s). The
// copy's content is the same from run to run, so a run after an unchanged
// one finds all of it in the cache. A second run of the test at the same
// time, which cannot take the folder's lock, works in a temporary folder.
func copyDir(t *testing.T) (repo, bins string) {
	t.Helper()
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	kept, temporary, err := testbin.Dir(root, "gendocs-add-rule")
	if err != nil {
		t.Fatal(err)
	}
	if temporary {
		t.Cleanup(func() { os.RemoveAll(kept) })
		return t.TempDir(), kept
	}
	unlock, ok := testbin.TryLock(kept)
	if !ok {
		t.Logf("%s is in use; copying the repository to a temporary folder", kept)
		return t.TempDir(), t.TempDir()
	}
	t.Cleanup(unlock)
	dir := filepath.Join(kept, "repo")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir, kept
}

// copyRepo copies the repository, without hidden directories such as
// .git, to dir.
func copyRepo(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		target := filepath.Join(dir, path)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// applyDiff applies a one-hunk unified diff without line numbers: the
// context (" ") and removed ("-") lines must appear in the file in a row.
func applyDiff(t *testing.T, path, diff string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var before, after []string
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		if l == "" {
			t.Fatalf("%s: empty line in the diff", path)
		}
		switch l[0] {
		case ' ':
			before, after = append(before, l[1:]), append(after, l[1:])
		case '-':
			before = append(before, l[1:])
		case '+':
			after = append(after, l[1:])
		default:
			t.Fatalf("%s: diff line %q", path, l)
		}
	}
	old := strings.Join(before, "\n") + "\n"
	if strings.Count(string(data), old) != 1 {
		t.Fatalf("%s: the context of the diff in CONTRIBUTING.md does not appear exactly once:\n%s", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, strings.Join(after, "\n")+"\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}
