package deps

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tags are the build tags of the tools kept in the module: they are held to
// the rules like the rest.
const tags = "gencorpus,benchtools,gendocs,apisurface,observescrub"

// listGraph runs go list in dir with the given environment and returns the
// direct imports of every package, the module's relative to Module.
func listGraph(t *testing.T, dir string, env ...string) Graph {
	t.Helper()
	out := goList(t, dir, env, "-e", "-tags", tags, "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	g := Graph{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var imports []string
		for _, imp := range f[1:] {
			imports = append(imports, rel(imp))
		}
		g[rel(f[0])] = imports
	}
	return g
}

func rel(path string) string {
	if path == Module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, Module+"/"); ok {
		return r
	}
	return path
}

func rules(t *testing.T) map[string]map[string]bool {
	t.Helper()
	allowed, err := Allowed(Rules)
	if err != nil {
		t.Fatal(err)
	}
	return allowed
}

// TestDependencies holds every package of the module, on the platforms
// whose files differ (cgo or not, Linux, other Unix, Windows), to Rules,
// External and Pure.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	allowed := rules(t)
	for _, env := range [][]string{
		{"CGO_ENABLED=1", "GOOS=linux"},
		{"CGO_ENABLED=0", "GOOS=linux"},
		{"CGO_ENABLED=0", "GOOS=darwin"},
		{"CGO_ENABLED=0", "GOOS=windows"},
	} {
		g := listGraph(t, "../..", env...)
		if len(g) < 20 || g["render"] == nil || g["internal/cli"] == nil {
			t.Fatalf("%v: go list found %d packages; the walk found too little to check", env, len(g))
		}
		for _, v := range Check(g, allowed) {
			t.Errorf("%v: %s", env, v)
		}
	}
}

// TestRulesCatchABadArrow: the check fails on each kind of import it
// exists to forbid, on a copy of the real graph with one arrow added.
func TestRulesCatchABadArrow(t *testing.T) {
	allowed := rules(t)
	base := Graph{
		"workload":      {"fmt", "k8s.io/api/core/v1"},
		"internal/cli":  {"analyzer", "render", "github.com/urfave/cli/v2"},
		"render":        {"manifest", "helm.sh/helm/v3/pkg/strvals"},
		"render/engine": {"render", "helm.sh/helm/v3/pkg/engine"},
		"timeline":      {"workload", "strings"},
		"internal/lsp":  {"fix", "github.com/sourcegraph/jsonrpc2"},
		"manifest":      {"workload", "os"},
		"internal/deps": {"fmt"},
		// The want tests' harness, which tests alone import.
		"rules/rulestest":   {"analyzer", "internal/observe", "regexp", "os"},
		"internal/settings": {"analyzer", "render", "policy", "go.yaml.in/yaml/v3"},
	}
	if v := Check(base, allowed); len(v) != 0 {
		t.Fatalf("the base graph breaks the rules: %v", v)
	}
	for _, tc := range []struct {
		from, to, why string
	}{
		{"timeline", "manifest", "not allowed by deps.Rules"},     // the model learns YAML
		{"render", "analyzer", "not allowed by deps.Rules"},       // the render child links the rules
		{"workload", "internal/cli", "not allowed by deps.Rules"}, // a cycle
		{"timeline", "os", "a pure package"},                      // the model does I/O
		{"internal/cli", "helm.sh/helm/v3/pkg/strvals", "only render, render/engine may import"},
		{"render", "helm.sh/helm/v3/pkg/chart/loader", "only render/engine may import"}, // podlint would link Helm's chart types
		{"render", "sigs.k8s.io/kustomize/api/krusty", "only render/engine may import"}, // podlint would link kustomize's API
		{"render", "k8s.io/client-go/kubernetes", "only internal/observe/kubeconfig may import"},
		{"internal/cli", "internal/observe", "not allowed by deps.Rules"}, // podlint-render would link observe
		{"manifest", "github.com/sourcegraph/jsonrpc2", "only internal/lsp"},
		{"internal/cli", "rules/rulestest", "not allowed by deps.Rules"},                         // a test harness linked into podlint
		{"rules", "rules/rulestest", "not allowed by deps.Rules"},                                // a cycle
		{"internal/settings", "internal/cli", "not allowed by deps.Rules"},                       // settings is the CLI's and the editor's, not a face
		{"internal/settings", "github.com/urfave/cli/v2", "only internal/cli, internal/gendocs"}, // flags are a plain struct
		{"internal/settings", "internal/lsp", "not allowed by deps.Rules"},
	} {
		g := Graph{}
		for k, v := range base {
			g[k] = append([]string(nil), v...)
		}
		g[tc.from] = append(g[tc.from], tc.to)
		v := Check(g, allowed)
		if len(v) != 1 || v[0].From != tc.from || v[0].To != tc.to || !strings.Contains(v[0].Why, tc.why) {
			t.Errorf("with %s → %s added, Check = %v; want one violation saying %q", tc.from, tc.to, v, tc.why)
		}
	}
	// A package nobody placed is reported, not waved through.
	g := Graph{"newpkg": {"fmt"}}
	if v := Check(g, allowed); len(v) != 1 || !strings.Contains(v[0].Why, "not placed") {
		t.Errorf("an unplaced package: Check = %v; want it reported as not placed", v)
	}
}

func TestRulesParse(t *testing.T) {
	for _, bad := range []string{
		"a < b; a < b;",   // placed twice
		"a < b;",          // a used before it is placed
		"NONE < a < NONE", // NONE on the right
		"NONE < ;",        // empty list
	} {
		if _, err := Allowed(bad); err == nil {
			t.Errorf("Allowed(%q) = nil error; want one", bad)
		}
	}
	allowed, err := Allowed("NONE < a; a < b < c, d;")
	if err != nil {
		t.Fatal(err)
	}
	if !allowed["c"]["a"] || !allowed["c"]["b"] || allowed["b"]["c"] || allowed["c"]["d"] || len(allowed["a"]) != 0 {
		t.Errorf("Allowed = %v; want c and d above b above a, transitively", allowed)
	}
}

// TestE2EModules: the harnesses under e2e/ are modules of their own (their
// go.mod keeps podlint's free of their needs); they test podlint as a
// program and import none of its packages.
func TestE2EModules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	mods, err := filepath.Glob("../../e2e/*/go.mod")
	if err != nil || len(mods) == 0 {
		t.Fatalf("no e2e modules found (%v)", err)
	}
	for _, mod := range mods {
		dir := filepath.Dir(mod)
		for pkg, imports := range listGraph(t, dir, "GOFLAGS=-mod=mod") {
			for _, imp := range imports {
				if isOwn(imp) || strings.HasPrefix(imp, Module) {
					t.Errorf("%s: %s imports %s; the e2e harnesses run podlint as a program", dir, pkg, imp)
				}
			}
		}
	}
}

// TestUnlinked: podlint links none of what only rendering needs, on every
// platform, as `go install` builds it.
func TestUnlinked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, env := range [][]string{
		{"CGO_ENABLED=1", "GOOS=linux"},
		{"CGO_ENABLED=0", "GOOS=linux"},
		{"CGO_ENABLED=0", "GOOS=darwin"},
		{"CGO_ENABLED=0", "GOOS=windows"},
	} {
		for cmd := range Unlinked {
			linked := listDeps(t, "../..", cmd, env...)
			if len(linked) < 20 || !slices.Contains(linked, "render") {
				t.Fatalf("%v: go list -deps %s found %d packages without render; the list is too short to check", env, cmd, len(linked))
			}
			for _, v := range CheckUnlinked(cmd, linked) {
				t.Errorf("%v: %s", env, v)
			}
		}
	}
	// And the render executable does link the engine: the check reads
	// what it is meant to.
	if linked := listDeps(t, "../..", "cmd/podlint-render"); len(CheckUnlinked("cmd/podlint", linked)) == 0 {
		t.Errorf("CheckUnlinked finds nothing forbidden in cmd/podlint-render, which links Helm's engine")
	}
}

// TestCheckUnlinkedPrefixes: a prefix names a package and those under it,
// not a package whose name merely starts with it.
func TestCheckUnlinkedPrefixes(t *testing.T) {
	v := CheckUnlinked("cmd/podlint", []string{"render", "render/engine", "render/engineering", "helm.sh/helm/v3/pkg/strvals",
		"helm.sh/helm/v3/pkg/chart/loader", "helm.sh/helm/v3/pkg/chartx", "k8s.io/client-go/kubernetes/scheme", "k8s.io/api/core/v1"})
	var got []string
	for _, x := range v {
		got = append(got, x.To)
	}
	want := []string{"helm.sh/helm/v3/pkg/chart/loader", "k8s.io/client-go/kubernetes/scheme", "render/engine"}
	if !slices.Equal(got, want) {
		t.Errorf("CheckUnlinked = %v; want %v", got, want)
	}
}

// listDeps is `go list -deps` of the package cmd of the module, the
// module's packages relative.
func listDeps(t *testing.T, dir, cmd string, env ...string) []string {
	t.Helper()
	var deps []string
	for _, l := range strings.Fields(string(goList(t, dir, env, "-deps", "./"+cmd))) {
		deps = append(deps, rel(l))
	}
	return deps
}

// goList runs go list with args in dir with the given environment.
func goList(t *testing.T, dir string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s in %s (%v): %v\n%s", strings.Join(args, " "), dir, env, err, stderr.String())
	}
	return out
}
