// Package apisurface counts podlint's exported identifiers and those that
// no other package uses, the measure of how much of its surface could be
// unexported (go run -tags apisurface ./internal/apisurface/cmd). It reads the source with
// go/parser alone: an identifier counts as used outside its package when a
// file of another package selects it through an import of its package
// (pkg.Name), and a method or field when another package selects any
// member of that name (x.Name), which can only overstate use.
package apisurface

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Package is one package's count.
type Package struct {
	Path     string   // import path
	Exported []string // package-level identifiers and members of exported types, "Name" or "Type.Member"
	Unused   []string // those no other package uses
	Doc      string   // the package comment
}

// Count reads the module at root (its go.mod names the module path) and
// counts every package but main packages, testdata and nested modules.
// Test files count as users of other packages, never as their own
// package's exports.
func Count(root string) ([]Package, error) {
	mod, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	type file struct {
		pkg  string // import path of the package it belongs to (its folder)
		test bool
		ast  *ast.File
	}
	var files []file
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || exists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		files = append(files, file{pkg: path.Join(mod, filepath.ToSlash(rel)), test: strings.HasSuffix(name, "_test.go"), ast: f})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// What each package declares, and the package comment.
	pkgs := map[string]*Package{}
	declared := map[string]map[string]bool{} // package → names
	for _, f := range files {
		if f.test || f.ast.Name.Name == "main" {
			continue
		}
		p := pkgs[f.pkg]
		if p == nil {
			p = &Package{Path: f.pkg}
			pkgs[f.pkg], declared[f.pkg] = p, map[string]bool{}
		}
		if f.ast.Doc != nil {
			p.Doc += f.ast.Doc.Text()
		}
		for _, name := range exportedNames(f.ast) {
			if !declared[f.pkg][name] {
				declared[f.pkg][name] = true
				p.Exported = append(p.Exported, name)
			}
		}
	}
	// What other packages use: pkg.Name through an import, and .Member
	// of anything.
	usedTop := map[string]map[string]bool{} // package → names
	usedMember := map[string]map[string]bool{}
	for _, f := range files {
		imports := map[string]string{} // local name → import path
		for _, im := range f.ast.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			local := path.Base(ip)
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = ip
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok {
				if ip, ok := imports[x.Name]; ok && ip != f.pkg {
					if usedTop[ip] == nil {
						usedTop[ip] = map[string]bool{}
					}
					usedTop[ip][sel.Sel.Name] = true
				}
			}
			if usedMember[f.pkg] == nil {
				usedMember[f.pkg] = map[string]bool{}
			}
			usedMember[f.pkg][sel.Sel.Name] = true
			return true
		})
	}
	var out []Package
	for _, p := range pkgs {
		for _, name := range p.Exported {
			_, member, isMember := strings.Cut(name, ".")
			used := false
			if !isMember {
				used = usedTop[p.Path][name]
			} else {
				// A member is used when another package uses it by name;
				// a member of a type nobody outside names is still used
				// through values the package hands out.
				for pkg, names := range usedMember {
					if pkg != p.Path && names[member] {
						used = true
						break
					}
				}
			}
			if !used {
				p.Unused = append(p.Unused, name)
			}
		}
		sort.Strings(p.Exported)
		sort.Strings(p.Unused)
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// exportedNames are the exported package-level identifiers of f, and the
// exported methods and fields of its exported types, as "Type.Member".
func exportedNames(f *ast.File) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				out = append(out, d.Name.Name)
			} else if t := recvType(d.Recv); t != "" && ast.IsExported(t) {
				out = append(out, t+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					out = append(out, s.Name.Name)
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fld := range st.Fields.List {
							for _, n := range fld.Names {
								if n.IsExported() {
									out = append(out, s.Name.Name+"."+n.Name)
								}
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

func recvType(r *ast.FieldList) string {
	if len(r.List) == 0 {
		return ""
	}
	t := r.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

func modulePath(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", os.ErrNotExist
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Internal reports whether an import path is under an internal/ folder,
// which no other module can import.
func Internal(importPath string) bool {
	return strings.Contains(importPath, "/internal/") || strings.HasSuffix(importPath, "/internal")
}
