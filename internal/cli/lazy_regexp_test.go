package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLazyRegexpsCompile compiles every regexp of the package that is
// compiled on first use (to keep it out of every run's start-up), so that a
// bad pattern fails here rather than in a user's run.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{unsafeFileChars} {
		first, again := re(), re()
		if first == nil || first != again {
			t.Errorf("a lazy regexp is nil or compiled twice")
		}
	}
}

// inlineDefault is the expression it replaced: on every string literal
// of the package's sources that names a default (the flags' usages among
// them) and on the edge cases of each form.
func TestInlineDefaultIsTheExpression(t *testing.T) {
	re := regexp.MustCompile(`(?:\s*\(default ([^()]*(?:\([^()]*\)[^()]*)*)\)|;\s*default (\S+)|;?\s*unknown by default)\s*$`)
	cases := []string{
		"", "default", "x (default 5s)", "x (default 5s)  ", "x\t(default 5s)\n", "x(default 5s)", "x (default (a) b)",
		"x (default ((a)))", "x (default a) b)", "x (default a) (default b)", "x (default a (default b))", "(default )",
		"x; default 1.37", "x;default 1.37", "x; default  1.37", "x; default\t1.37", "x ; default 1.37 ", "x default 1.37",
		"x; unknown by default", "x unknown by default", "xunknown by default", ";unknown by default", "x;  unknown by default  ",
		"x; default unknown by default", "x (default 3); default 4", "a; default (default 1)", "a (default 1; default 2)",
		"x; default (y)", "x (default y); unknown by default", "x (default )", "x (default", "x default)",
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(s, "default") {
					cases = append(cases, s)
				}
			}
			return true
		})
	}
	for _, u := range cases {
		wantAt, wantText, wantOK := -1, "", false
		if m := re.FindStringSubmatchIndex(u); m != nil {
			wantAt, wantOK = m[0], true
			switch {
			case m[2] >= 0:
				wantText = u[m[2]:m[3]]
			case m[4] >= 0:
				wantText = u[m[4]:m[5]]
			default:
				wantText = "unknown"
			}
		}
		at, text, ok := inlineDefault(u)
		if !ok {
			at = -1
		}
		if at != wantAt || text != wantText || ok != wantOK {
			t.Errorf("inlineDefault(%q) = %d, %q, %v; the expression: %d, %q, %v", u, at, text, ok, wantAt, wantText, wantOK)
		}
	}
	if len(cases) < 60 {
		t.Errorf("only %d cases: the sources' literals were not read", len(cases))
	}
}
