package analyzer

import (
	"fmt"
	"slices"
	"testing"

	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// lintPaths lints paths as the CLI does (discovery included) and returns
// each finding as "rule file:line".
func lintPaths(t *testing.T, cfg *Linter, paths ...string) []string {
	t.Helper()
	srcs, _, errs := manifest.Discover(paths, nil, false)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	res, errs := Run(cfg, Options{}, srcs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var out []string
	for _, f := range res.List() {
		out = append(out, fmt.Sprintf("%s %s:%d", f.RuleID, f.File, f.Line))
	}
	return out
}

// TestEnvironmentsNeverMix: dev/ and prod/ define the same objects, so
// they are two environments. Every finding that linting one of them alone
// reports is reported when their parent is linted: dev's web does not
// satisfy prod's Service (PL704), and prod's copy of web is not dropped
// for being a second definition (PL705).
func TestEnvironmentsNeverMix(t *testing.T) {
	t.Parallel()
	cfg := Default(Enable(rules.All...))
	const root = "testdata/environments"
	parent := lintPaths(t, cfg, root)
	for _, env := range []string{root + "/dev", root + "/prod"} {
		alone := lintPaths(t, cfg, env)
		if len(alone) == 0 {
			t.Fatalf("%s alone: no findings; the test proves nothing", env)
		}
		for _, f := range alone {
			if !slices.Contains(parent, f) {
				t.Errorf("%s alone reports %q, linting %s does not", env, f, root)
			}
		}
	}
	for _, want := range []string{
		"PL704 " + root + "/prod/svc.yaml:6",    // targetPort http: prod's web declares only https
		"PL705 " + root + "/dev/app.yaml:12",    // dev's web
		"PL705 " + root + "/prod/app.yaml:13",   // prod's web, a second definition of web
		"PL705 " + root + "/prod/db/db.yaml:13", // selected by prod/db-svc.yaml from the folder above
	} {
		if !slices.Contains(parent, want) {
			t.Errorf("linting %s: no %q in %q", root, want, parent)
		}
	}
}
