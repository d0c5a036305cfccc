package apisurface

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Func is a function and its cyclomatic complexity.
type Func struct {
	Name       string // "pkg/file.go:Recv.Name"
	Complexity int
}

// Complexities returns every function of the non-test Go files under root
// (testdata and nested modules left out) with its cyclomatic complexity
// counted as gocyclo does: 1, plus one for each if, for, range, case or
// comm clause other than default, and each && and ||.
func Complexities(root string) ([]Func, error) {
	var out []Func
	err := walkGoFiles(root, func(rel string, f *ast.File, _ *token.FileSet) {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil {
				name = recvType(fn.Recv) + "." + name
			}
			out = append(out, Func{Name: rel + ":" + name, Complexity: complexity(fn.Body)})
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, err
}

// ruleID is a rule's ID as code would spell it: "PL101".
var ruleID = regexp.MustCompile(`\bPL[0-9]{3}\b`)

// RuleIDLiterals returns the string literals of the non-test Go files
// under root that spell a rule ID ("file.go:12: \"PL101 …\""), except a
// rule's own `ID: "PL101"`. Code refers to a rule by its value
// (rules.CronJobOverlap.ID), so that a message cannot name the wrong rule
// (PL010 written where PL008 was meant) and a renumbering reaches every
// use.
func RuleIDLiterals(root string) ([]string, error) {
	var out []string
	err := walkGoFiles(root, func(rel string, f *ast.File, fset *token.FileSet) {
		own := map[*ast.BasicLit]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "ID" {
					if lit, ok := kv.Value.(*ast.BasicLit); ok {
						own[lit] = true
					}
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if ok && lit.Kind == token.STRING && !own[lit] && ruleID.MatchString(lit.Value) {
				out = append(out, fmt.Sprintf("%s:%d: %s", rel, fset.Position(lit.Pos()).Line, lit.Value))
			}
			return true
		})
	})
	sort.Strings(out)
	return out, err
}

// walkGoFiles parses every non-test Go file under root (testdata, hidden
// folders and nested modules left out) and hands it to visit with its path
// relative to root, slash-separated.
func walkGoFiles(root string, visit func(rel string, f *ast.File, fset *token.FileSet)) error {
	fset := token.NewFileSet()
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || exists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		visit(filepath.ToSlash(rel), f, fset)
		return nil
	})
}

func complexity(body ast.Node) int {
	c := 1
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}
