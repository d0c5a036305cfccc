package render

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/podlint/podlint/"

// TestImports: render is a loader stage. It returns documents and a source
// map (Open) and knows nothing of the analysis: neither it nor anything it
// imports from this module imports analyzer or rules. The imports are read
// from the non-test Go files with go/parser (every file, whatever its build
// constraint), following this module's packages.
func TestImports(t *testing.T) {
	forbidden := map[string]bool{module + "analyzer": true, module + "rules": true}
	seen := map[string][]string{} // package → the chain that imports it
	queue := []string{module + "render"}
	seen[queue[0]] = []string{queue[0]}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		for _, imp := range moduleImports(t, pkg) {
			if _, ok := seen[imp]; ok {
				continue
			}
			chain := append(append([]string{}, seen[pkg]...), imp)
			seen[imp] = chain
			if forbidden[imp] {
				t.Errorf("render imports %s: %s", strings.TrimPrefix(imp, module), strings.Join(chain, " → "))
				continue
			}
			queue = append(queue, imp)
		}
	}
	if len(seen) < 3 {
		t.Fatalf("read the imports of %d packages; the walk found nothing to check", len(seen))
	}
}

// moduleImports lists the packages of this module that pkg's non-test Go
// files import.
func moduleImports(t *testing.T, pkg string) []string {
	dir := filepath.Join("..", filepath.FromSlash(strings.TrimPrefix(pkg, module)))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no Go files in %s (%v)", pkg, dir, err)
	}
	set := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range af.Imports {
			p, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(p, module) {
				set[p] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
