// Package gendocs writes every generated file of the repository from the
// code it documents:
//
//   - docs/rules/<ID>.md, one page per rule, from the rule's metadata, its
//     Markdown doc rules/doc/<ID>.md and its examples in rules/testdata/<ID>/
//     (internal/ruledoc renders them, as it renders `podlint rules ID`);
//   - docs/rules.md, the catalog (`podlint rules --format markdown`);
//   - docs/usage.md, from the command and flag definitions of internal/cli;
//   - the whole-output example blocks of README.md and docs/policies.md and
//     docs/timeline.svg, by running podlint on the shipped examples, and
//     the policy files docs/policies.md shows;
//   - the package table of CONTRIBUTING.md, from `go list ./...`.
//
// Run it with `go generate ./...` from anywhere in the repository.
// TestGeneratedFilesAreCurrent fails when a file differs from what it
// would write, so a change that needs regenerating cannot go unnoticed.
//
// The command is ./cmd, behind the build tag gendocs: pre-commit installs
// podlint's hook with `go install ./...`, and cmd/podlint must be the only
// command that pattern matches.
//
//go:generate go run -tags gendocs ./cmd
package gendocs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/podlint/podlint/internal/cli"
	"github.com/podlint/podlint/internal/ruledoc"
	"github.com/podlint/podlint/rules"
)

// Main is the gendocs command: it regenerates the files and exits 1 on an
// error.
func Main() {
	root, err := repoRoot()
	if err == nil {
		err = os.Chdir(root)
	}
	if err == nil {
		err = os.Setenv("NO_COLOR", "1")
	}
	if err == nil {
		err = write()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}

// write brings the generated files up to date and deletes rule pages of
// rules that no longer exist.
func write() error {
	files, err := generate()
	if err != nil {
		return err
	}
	for _, name := range sortedKeys(files) {
		if old, err := os.ReadFile(filepath.FromSlash(name)); err == nil && bytes.Equal(old, files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(filepath.FromSlash(name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.FromSlash(name), files[name], 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", name)
	}
	for _, name := range strayPages(files) {
		if err := os.Remove(filepath.FromSlash(name)); err != nil {
			return err
		}
		fmt.Println("removed", name)
	}
	return nil
}

// generate returns every generated file by its slash-separated path from
// the repository root, which must be the working directory. NO_COLOR must
// be set, as README examples are shown without color.
func generate() (map[string][]byte, error) {
	files := map[string][]byte{
		"docs/rules.md": []byte(ruledoc.Index(rules.All)),
		"docs/usage.md": []byte(usageMarkdown()),
	}
	rulesDir := os.DirFS("rules")
	for _, r := range rules.All {
		files["docs/rules/"+r.ID+".md"] = []byte(ruledoc.File(r, ruledoc.ReadExamples(rulesDir, r.ID)))
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return nil, err
	}
	if files["README.md"], err = readmeExamples(readme); err != nil {
		return nil, err
	}
	guide, err := os.ReadFile("CONTRIBUTING.md")
	if err != nil {
		return nil, err
	}
	pkgs, err := listPackages()
	if err != nil {
		return nil, err
	}
	if files["CONTRIBUTING.md"], err = contributingArchitecture(guide, pkgs); err != nil {
		return nil, err
	}
	fixGuide, err := os.ReadFile("docs/fix.md")
	if err != nil {
		return nil, err
	}
	if files["docs/fix.md"], err = fixDoc(fixGuide, rules.All); err != nil {
		return nil, err
	}
	policies, err := os.ReadFile("docs/policies.md")
	if err != nil {
		return nil, err
	}
	if files["docs/policies.md"], err = readmeExamples(includeFiles(policies)); err != nil {
		return nil, err
	}
	svg, err := podlint("timeline --no-config -f svg testdata/examples/web-deployment.yaml")
	if err != nil {
		return nil, err
	}
	files["docs/timeline.svg"] = []byte(svg)
	return files, nil
}

// strayPages lists the rule pages under docs/rules that files does not
// have: pages of rules that were removed or renumbered.
func strayPages(files map[string][]byte) []string {
	entries, _ := os.ReadDir(filepath.Join("docs", "rules"))
	var out []string
	for _, e := range entries {
		if name := path.Join("docs/rules", e.Name()); files[name] == nil {
			out = append(out, name)
		}
	}
	return out
}

// exampleBlock is a README example: the block between
//
//	<!-- example: ARGS -->            (the whole output of podlint ARGS,
//	                                   which generate rewrites)
//	<!-- example-excerpt: ARGS -->    (lines that appear, in order and
//	                                   contiguous, in the output; indentation
//	                                   is ignored; TestReadmeExcerpts checks
//	                                   them)
//
// and <!-- /example -->.
var exampleBlock = regexp.MustCompile("(?s)<!-- (example|example-excerpt): ([^>]*?) -->\n```[a-z]*\n(.*?)```\n<!-- /example -->")

// readmeExamples rewrites the whole-output example blocks of the README.
func readmeExamples(readme []byte) ([]byte, error) {
	var out bytes.Buffer
	last := 0
	for _, m := range exampleBlock.FindAllSubmatchIndex(readme, -1) {
		if string(readme[m[2]:m[3]]) != "example" {
			continue
		}
		got, err := podlint(exampleArgs(string(readme[m[4]:m[5]])))
		if err != nil {
			return nil, err
		}
		out.Write(readme[last:m[6]])
		out.WriteString(got)
		last = m[7]
	}
	out.Write(readme[last:])
	return out.Bytes(), nil
}

// includeBlock is a file shown whole in a doc, between
//
//	<!-- include: PATH -->  (PATH from the repository root)
//
// and <!-- /include -->: generate rewrites the block with the file, so
// that docs/policies.md shows the policy files its examples run with.
var includeBlock = regexp.MustCompile("(?s)<!-- include: ([^>]*?) -->\n```[a-z]*\n(.*?)```\n<!-- /include -->")

// includeFiles rewrites the include blocks of doc; a file that cannot be
// read is shown as the error, which the generated-files test then reports.
func includeFiles(doc []byte) []byte {
	return includeBlock.ReplaceAllFunc(doc, func(block []byte) []byte {
		m := includeBlock.FindSubmatchIndex(block)
		data, err := os.ReadFile(filepath.FromSlash(string(block[m[2]:m[3]])))
		if err != nil {
			data = []byte(err.Error() + "\n")
		}
		out := append([]byte{}, block[:m[4]]...)
		out = append(out, data...)
		return append(out, block[m[5]:]...)
	})
}

// exampleArgs are the arguments an example runs with: as shown, plus
// --no-config so that a user's configuration cannot change the output
// (flags after paths work).
func exampleArgs(shown string) string {
	if strings.HasPrefix(shown, "check") || strings.HasPrefix(shown, "timeline") {
		return shown + " --no-config"
	}
	return shown
}

// podlint runs the CLI in process; an exit status of 2 is an error.
func podlint(args string) (string, error) {
	var out, errb bytes.Buffer
	if code := cli.Run(append([]string{"podlint"}, strings.Fields(args)...), strings.NewReader(""), &out, &errb); code == cli.ExitError {
		return "", fmt.Errorf("podlint %s: exit 2: %s", args, errb.String())
	}
	return out.String(), nil
}

// repoRoot is the nearest directory at or above the working directory
// that holds podlint's go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(data, []byte("module github.com/podlint/podlint\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the podlint repository")
		}
		dir = parent
	}
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
