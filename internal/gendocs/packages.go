package gendocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/podlint/podlint/internal/deps"
)

// goPackage is what the package table of CONTRIBUTING.md needs of `go
// list -json`.
type goPackage struct {
	ImportPath  string
	Dir         string
	Doc         string
	Imports     []string
	TestGoFiles []string
}

// listPackages runs `go list -json ./...` in the working directory (the
// repository root).
func listPackages() ([]goPackage, error) {
	cmd := exec.Command("go", "list", "-json", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./...: %v: %s", err, stderr.String())
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p goPackage
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// packageBlock is the package table of CONTRIBUTING.md, which
// packageTable writes.
var packageBlock = regexp.MustCompile("(?s)(<!-- packages: go list ./... -->\n).*?(<!-- /packages -->)")

// contributingPackages rewrites the package table of CONTRIBUTING.md.
func contributingPackages(guide []byte, pkgs []goPackage) ([]byte, error) {
	if len(packageBlock.FindAllIndex(guide, -1)) != 1 {
		return nil, fmt.Errorf("CONTRIBUTING.md: want one <!-- packages: go list ./... --> … <!-- /packages --> block")
	}
	table := packageTable(pkgs)
	return packageBlock.ReplaceAllFunc(guide, func(m []byte) []byte {
		sub := packageBlock.FindSubmatch(m)
		return append(append(append([]byte{}, sub[1]...), table...), sub[2]...)
	}), nil
}

// packageTable lists the packages of the module: each with the first
// clause of its doc comment and the packages of the module it imports.
func packageTable(pkgs []goPackage) string {
	const module = "github.com/podlint/podlint"
	var b strings.Builder
	b.WriteString("| Package | What it holds | Imports of podlint |\n|---|---|---|\n")
	for _, p := range pkgs {
		name := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		var imports []string
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, "`"+rest+"`")
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, summary(p), strings.Join(imports, ", "))
	}
	return b.String()
}

// summary is what a package holds: its doc comment's first sentence (of
// the test files for a package of tests only) without "Package x" and cut
// at its first colon.
func summary(p goPackage) string {
	text, tests := p.Doc, ""
	if text == "" && len(p.TestGoFiles) > 0 {
		text, tests = testPackageDoc(p), " (tests only)"
	}
	for _, prefix := range []string{"Package ", "Command "} {
		if rest, ok := strings.CutPrefix(text, prefix); ok {
			if _, after, ok := strings.Cut(rest, " "); ok {
				text = after
			}
			break
		}
	}
	if head, _, ok := strings.Cut(text, ": "); ok {
		text = head
	}
	text = strings.TrimRight(text, ".:")
	return strings.ReplaceAll(text, "|", `\|`) + tests
}

// testPackageDoc is the synopsis of the doc comment of a package that
// has only test files.
func testPackageDoc(p goPackage) string {
	fset := token.NewFileSet()
	for _, name := range p.TestGoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err == nil && f.Doc != nil {
			return new(doc.Package).Synopsis(f.Doc.Text())
		}
	}
	return ""
}

// depsBlock is the copy of deps.Rules in CONTRIBUTING.md, which
// contributingDeps writes, so that the guide states the architecture the
// tests hold the code to.
var depsBlock = regexp.MustCompile("(?s)(<!-- deps: internal/deps.Rules -->\n).*?(<!-- /deps -->)")

// contributingDeps rewrites the copy of rules in CONTRIBUTING.md.
func contributingDeps(guide []byte, rules string) ([]byte, error) {
	if len(depsBlock.FindAllIndex(guide, -1)) != 1 {
		return nil, fmt.Errorf("CONTRIBUTING.md: want one <!-- deps: internal/deps.Rules --> … <!-- /deps --> block")
	}
	var b strings.Builder
	b.WriteString("```\n")
	for _, line := range strings.Split(strings.Trim(rules, "\n"), "\n") {
		b.WriteString(strings.TrimPrefix(line, "\t"))
		b.WriteByte('\n')
	}
	b.WriteString("```\n")
	return depsBlock.ReplaceAllFunc(guide, func(m []byte) []byte {
		sub := depsBlock.FindSubmatch(m)
		return append(append(append([]byte{}, sub[1]...), b.String()...), sub[2]...)
	}), nil
}

// contributingArchitecture writes both generated blocks of CONTRIBUTING.md.
func contributingArchitecture(guide []byte, pkgs []goPackage) ([]byte, error) {
	guide, err := contributingPackages(guide, pkgs)
	if err != nil {
		return nil, err
	}
	return contributingDeps(guide, deps.Rules)
}
