package rules_test

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/rules"
)

// The conventions of the catalog, checked by validateCatalog in the manner
// of golang.org/x/tools/go/analysis's Validate.
var (
	ruleID   = regexp.MustCompile(`^PL\d{3}$`)
	ruleName = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`) // kebab-case
)

// catalogFiles is what of the rules directory validateCatalog compares the
// list with.
type catalogFiles struct {
	testdata map[string]bool // directories under testdata/
	docs     map[string]bool // files under doc/
}

func readCatalogFiles(t *testing.T, dir string) catalogFiles {
	t.Helper()
	out := catalogFiles{testdata: map[string]bool{}, docs: map[string]bool{}}
	for sub, m := range map[string]map[string]bool{"testdata": out.testdata, "doc": out.docs} {
		entries, err := fs.ReadDir(os.DirFS(dir), sub)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if (sub == "testdata") == e.IsDir() {
				m[e.Name()] = true
			}
		}
	}
	return out
}

// validateCatalog checks a list of rules against podlint's conventions and
// the rules directory: IDs are PLnnn, unique and sorted; names are unique
// kebab-case and no name reads as an ID; every rule has a title, a
// severity, a doc/<ID>.md and a testdata/<ID>/ directory (except the rules
// of elsewhere, which must have none, so that no example goes unrun); every
// testdata directory and doc file belongs to a rule.
func validateCatalog(list rules.List, files catalogFiles, elsewhere map[string]string) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	ids, names := map[string]bool{}, map[string]bool{}
	prev := ""
	for i, r := range list {
		if r == nil {
			bad("rule %d is nil", i)
			continue
		}
		switch {
		case !ruleID.MatchString(r.ID):
			bad("rule %d (%s): ID %q is not PLnnn", i, r.Name, r.ID)
		case ids[r.ID]:
			bad("rule %s: ID used twice", r.ID)
		case r.ID < prev:
			bad("rule %s: listed after %s; keep the list sorted by ID", r.ID, prev)
		}
		ids[r.ID] = true
		if ruleID.MatchString(r.ID) {
			prev = max(prev, r.ID)
		}
		switch {
		case !ruleName.MatchString(r.Name):
			bad("rule %s: name %q is not kebab-case (lower-case words joined by -)", r.ID, r.Name)
		case names[r.Name]:
			bad("rule %s: name %q used twice", r.ID, r.Name)
		}
		names[r.Name] = true
		if r.Title == "" {
			bad("rule %s: no title", r.ID)
		}
		if r.Severity == finding.Off {
			bad("rule %s: no severity (Off; use DefaultOff for a rule that runs only when enabled)", r.ID)
		}
		if !files.docs[r.ID+".md"] {
			bad("rule %s: no doc/%s.md", r.ID, r.ID)
		}
		_, other := elsewhere[r.ID]
		switch {
		case other && files.testdata[r.ID]:
			bad("rule %s: has testdata/%s/ but is listed as tested elsewhere, so the directory is never run", r.ID, r.ID)
		case !other && !files.testdata[r.ID]:
			bad("rule %s: no testdata/%s/", r.ID, r.ID)
		}
	}
	for _, r := range list {
		if r == nil || r.SupersededBy == nil {
			continue
		}
		by := r.SupersededBy
		if r.Check == nil {
			bad("rule %s: SupersededBy on a rule without Check; the cross-object view supersedes only single-object rules", r.ID)
		}
		if by.When == nil {
			bad("rule %s: SupersededBy has no When", r.ID)
		}
		switch {
		case by.Rule == nil:
		case !slices.Contains(list, by.Rule):
			bad("rule %s: superseded by %s, which is not in the list", r.ID, by.Rule.ID)
		case by.Rule.CrossObject == nil:
			bad("rule %s: superseded by %s, which is no cross-object rule (no CrossObject check)", r.ID, by.Rule.ID)
		}
	}
	for id := range elsewhere {
		if !ids[id] {
			bad("testedElsewhere names %s, which is no rule", id)
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(files.testdata)) {
		if !ids[dir] {
			bad("testdata/%s/ belongs to no rule", dir)
		}
	}
	for _, doc := range slices.Sorted(maps.Keys(files.docs)) {
		if !ids[strings.TrimSuffix(doc, ".md")] {
			bad("doc/%s documents no rule", doc)
		}
	}
	for name := range names {
		if ruleID.MatchString(strings.ToUpper(name)) {
			bad("name %q reads as a rule ID", name)
		}
	}
	return errors.Join(errs...)
}

// TestCatalog validates rules.All against the conventions and the rules
// directory.
func TestCatalog(t *testing.T) {
	if err := validateCatalog(rules.All, readCatalogFiles(t, "."), testedElsewhere); err != nil {
		t.Error(err)
	}
}

// TestValidateCatalogRejects breaks the catalog in each way validateCatalog
// knows and checks that it says so: a check that cannot fail tests nothing.
func TestValidateCatalogRejects(t *testing.T) {
	mk := func(id, name string) *rules.Rule {
		return &rules.Rule{ID: id, Name: name, Title: "a title", Severity: finding.Warning}
	}
	files := func(ids ...string) catalogFiles {
		f := catalogFiles{testdata: map[string]bool{}, docs: map[string]bool{}}
		for _, id := range ids {
			f.testdata[id], f.docs[id+".md"] = true, true
		}
		return f
	}
	good := rules.List{mk("PL101", "first-rule"), mk("PL102", "second-rule")}
	if err := validateCatalog(good, files("PL101", "PL102"), nil); err != nil {
		t.Fatalf("a valid catalog was rejected: %v", err)
	}
	when := func(*crossobject.View, *crossobject.Workload, *crossobject.Namespace, string) bool { return true }
	withCheck := func(r *rules.Rule, s *rules.Supersession) *rules.Rule {
		r.Check, r.SupersededBy = func(*rules.Pass) {}, s
		return r
	}
	withCrossObject := func(r *rules.Rule, s *rules.Supersession) *rules.Rule {
		r.CrossObject, r.SupersededBy = func(*rules.CrossObjectPass) {}, s
		return r
	}
	cross := withCrossObject(mk("PL701", "cross-rule"), nil)
	superseded := rules.List{withCheck(mk("PL101", "first-rule"), &rules.Supersession{Rule: cross, When: when}), cross}
	if err := validateCatalog(superseded, files("PL101", "PL701"), nil); err != nil {
		t.Fatalf("a valid supersession was rejected: %v", err)
	}
	noTestdata := files("PL101", "PL102")
	delete(noTestdata.testdata, "PL102")
	noDoc := files("PL101", "PL102")
	delete(noDoc.docs, "PL102.md")
	for _, tc := range []struct {
		name      string
		list      rules.List
		files     catalogFiles
		elsewhere map[string]string
		want      string
	}{
		{"ID not PLnnn", rules.List{mk("PL1", "first-rule")}, files("PL1"), nil, `ID "PL1" is not PLnnn`},
		{"lower-case ID", rules.List{mk("pl101", "first-rule")}, files("pl101"), nil, "is not PLnnn"},
		{"duplicate ID", rules.List{mk("PL101", "first-rule"), mk("PL101", "second-rule")}, files("PL101"), nil, "ID used twice"},
		{"unsorted", rules.List{mk("PL102", "second-rule"), mk("PL101", "first-rule")}, files("PL101", "PL102"), nil, "keep the list sorted"},
		{"camel-case name", rules.List{mk("PL101", "firstRule")}, files("PL101"), nil, "not kebab-case"},
		{"snake-case name", rules.List{mk("PL101", "first_rule")}, files("PL101"), nil, "not kebab-case"},
		{"trailing dash", rules.List{mk("PL101", "first-")}, files("PL101"), nil, "not kebab-case"},
		{"duplicate name", rules.List{mk("PL101", "first-rule"), mk("PL102", "first-rule")}, files("PL101", "PL102"), nil, "used twice"},
		{"name reads as ID", rules.List{mk("PL101", "pl102")}, files("PL101"), nil, "reads as a rule ID"},
		{"no title", rules.List{{ID: "PL101", Name: "first-rule", Severity: finding.Warning}}, files("PL101"), nil, "no title"},
		{"no testdata", good, noTestdata, nil, "no testdata/PL102/"},
		{"no doc", good, noDoc, nil, "no doc/PL102.md"},
		{"stray testdata", good, files("PL101", "PL102", "PL103"), nil, "testdata/PL103/ belongs to no rule"},
		{"testdata of a rule tested elsewhere", good, files("PL101", "PL102"), map[string]string{"PL102": "x"}, "never run"},
		{"elsewhere names no rule", good, files("PL101", "PL102"), map[string]string{"PL109": "x"}, "PL109, which is no rule"},
		{"superseded cross-object rule", rules.List{withCrossObject(mk("PL701", "cross-rule"), &rules.Supersession{When: when})}, files("PL701"), nil, "PL701: SupersededBy on a rule without Check"},
		{"superseded without When", rules.List{withCheck(mk("PL101", "first-rule"), &rules.Supersession{})}, files("PL101"), nil, "SupersededBy has no When"},
		{"superseded by a rule not listed", rules.List{withCheck(mk("PL101", "first-rule"), &rules.Supersession{Rule: withCrossObject(mk("PL701", "cross-rule"), nil), When: when})}, files("PL101"), nil, "superseded by PL701, which is not in the list"},
		{"superseded by a single-object rule", rules.List{withCheck(mk("PL101", "first-rule"), &rules.Supersession{Rule: good[1], When: when}), good[1]}, files("PL101", "PL102"), nil, "superseded by PL102, which is no cross-object rule"},
	} {
		err := validateCatalog(tc.list, tc.files, tc.elsewhere)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// printfFuncs are the formatting functions of the standard library that
// rules use; go vet's printf check knows them and every function that
// forwards its format and arguments to one of them.
var printfFuncs = map[string]bool{"Sprintf": true, "Errorf": true, "Fprintf": true, "Printf": true, "Appendf": true}

// TestMessageFormattingIsVetted holds the rules' message formatting to
// what go vet's printf check can see: fmt's formatting functions are only
// called, never stored in a variable (an alias such as `var sprintf =
// fmt.Sprintf` hides every call through it from vet), and every call of
// them or of a printf wrapper (a function or function literal whose last
// two parameters are `format string, args ...any`, which vet recognises
// as a wrapper) passes a constant format that vet can check against the
// arguments, or forwards its own format and args....
func TestMessageFormattingIsVetted(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string][]byte{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if srcs[f], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	if len(srcs) == 0 {
		t.Fatal("no rule sources found")
	}
	for _, p := range unvettedFormatting(srcs) {
		t.Error(p)
	}
}

// unvettedFormatting returns the places in the Go sources of one package
// (file name → source) where message formatting escapes go vet's printf
// check.
func unvettedFormatting(srcs map[string][]byte) []string {
	fset := token.NewFileSet()
	var files []*ast.File
	var out []string
	for _, name := range slices.Sorted(maps.Keys(srcs)) {
		f, err := parser.ParseFile(fset, name, srcs[name], 0)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		files = append(files, f)
	}
	// wrappers maps the printf wrappers of the package (functions and
	// methods) to the index of their format parameter; a function literal
	// bound to a local name is found through the name's declaration.
	wrappers := map[string]int{}
	formatParam := func(ft *ast.FuncType) int {
		ps := ft.Params.List
		if len(ps) < 2 {
			return -1
		}
		last, format := ps[len(ps)-1], ps[len(ps)-2]
		if _, variadic := last.Type.(*ast.Ellipsis); !variadic {
			return -1
		}
		if id, ok := format.Type.(*ast.Ident); !ok || id.Name != "string" || len(format.Names) == 0 || format.Names[len(format.Names)-1].Name != "format" {
			return -1
		}
		n := 0
		for _, p := range ps[:len(ps)-1] {
			n += max(len(p.Names), 1)
		}
		return n - 1
	}
	for _, file := range files {
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if i := formatParam(n.Type); i >= 0 {
					wrappers[n.Name.Name] = i
				}
			}
			return true
		})
	}
	for _, file := range files {
		fmtName := ""
		for _, imp := range file.Imports {
			if imp.Path.Value == `"fmt"` {
				fmtName = "fmt"
				if imp.Name != nil {
					fmtName = imp.Name.Name
				}
			}
		}
		fmtFunc := func(e ast.Expr) string {
			if sel, ok := e.(*ast.SelectorExpr); ok && fmtName != "" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == fmtName && printfFuncs[sel.Sel.Name] {
					return sel.Sel.Name
				}
			}
			return ""
		}
		called := map[ast.Expr]bool{}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			called[call.Fun] = true
			name, idx := "", -1
			if f := fmtFunc(call.Fun); f != "" {
				name, idx = "fmt."+f, 0
				if f == "Fprintf" || f == "Appendf" {
					idx = 1
				}
			} else {
				switch fn := call.Fun.(type) {
				case *ast.SelectorExpr:
					name = fn.Sel.Name
					if i, ok := wrappers[name]; ok {
						idx = i
					}
				case *ast.Ident:
					name = fn.Name
					if lit := localFunc(fn); lit != nil {
						idx = formatParam(lit.Type)
					} else if i, ok := wrappers[name]; ok {
						idx = i
					}
				}
			}
			if idx < 0 || idx >= len(call.Args) || call.Ellipsis.IsValid() {
				return true // not a printf call, or one that forwards format and args...: vet follows it
			}
			if !constantString(call.Args[idx]) {
				out = append(out, fmt.Sprintf("%s: %s is called with a format that is not a constant string, so go vet cannot check its arguments", fset.Position(call.Pos()), name))
			}
			return true
		})
		ast.Inspect(file, func(n ast.Node) bool {
			if e, ok := n.(ast.Expr); ok && !called[e] {
				if f := fmtFunc(e); f != "" {
					out = append(out, fmt.Sprintf("%s: fmt.%s is used as a value; call it (go vet does not check calls through an alias)", fset.Position(e.Pos()), f))
				}
			}
			return true
		})
	}
	return out
}

// localFunc returns the function literal a local name is bound to by
// `name := func(…) {…}`, or nil.
func localFunc(id *ast.Ident) *ast.FuncLit {
	if id.Obj == nil {
		return nil
	}
	as, ok := id.Obj.Decl.(*ast.AssignStmt)
	if !ok {
		return nil
	}
	for i, lhs := range as.Lhs {
		if l, ok := lhs.(*ast.Ident); ok && l.Name == id.Name && i < len(as.Rhs) {
			lit, _ := as.Rhs[i].(*ast.FuncLit)
			return lit
		}
	}
	return nil
}

// constantString reports whether e is a string literal or a concatenation
// of them.
func constantString(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.BinaryExpr:
		return e.Op == token.ADD && constantString(e.X) && constantString(e.Y)
	case *ast.ParenExpr:
		return constantString(e.X)
	}
	return false
}

// TestUnvettedFormattingCatches breaks the formatting rules on purpose.
func TestUnvettedFormattingCatches(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"alias", "package rules\nimport \"fmt\"\nvar sprintf = fmt.Sprintf\nfunc f() string { return sprintf(\"%d\", 1) }\n", "used as a value"},
		{"renamed import", "package rules\nimport f \"fmt\"\nvar s = f.Sprintf\n", "used as a value"},
		{"variable format", "package rules\nimport \"fmt\"\nfunc f(m string) string { return fmt.Sprintf(m, 1) }\n", "not a constant string"},
		{"variable format to a wrapper", "package rules\nimport \"fmt\"\nfunc detail(format string, args ...any) string { return fmt.Sprintf(format, args...) }\nfunc f(m string) string { return detail(m) }\n", "not a constant string"},
		{"variable format to a local wrapper", "package rules\nimport \"fmt\"\nfunc f(m string) { report := func(format string, args ...any) { _ = fmt.Sprintf(format, args...) }\nreport(m, 1) }\n", "not a constant string"},
	} {
		got := strings.Join(unvettedFormatting(map[string][]byte{"x.go": []byte(tc.src)}), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want a problem containing %q", tc.name, got, tc.want)
		}
	}
	ok := "package rules\nimport \"fmt\"\nfunc detail(format string, args ...any) string { return fmt.Sprintf(format, args...) }\nfunc f(n int) string { return detail(\"%d \"+\"x\", n) + fmt.Sprintf(\"%d\", n) }\n"
	if got := unvettedFormatting(map[string][]byte{"x.go": []byte(ok)}); len(got) > 0 {
		t.Errorf("vetted formatting reported: %v", got)
	}
}
