package analyzer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/testcorpus"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

func describe(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s:%d:%d %s", f.RuleID, f.File, f.Line, f.Column, f.Message))
	}
	return out
}

// TestWorkspaceLintIsRun: Workspace.Lint reports for a file exactly what
// Run reports for it among the same files (cross-object findings and
// suppressions of cross-object rules included), on the environments of
// testdata and a folder of the sample corpus, and again after an edit.
func TestWorkspaceLintIsRun(t *testing.T) {
	t.Parallel()
	cfg := Default(Enable(rules.All...))
	sample, err := testcorpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{"testdata/environments", filepath.Join(sample, "GoogleCloudPlatform__microservices-demo")} {
		srcs, _, errs := manifest.Discover([]string{root}, nil, false)
		if len(errs) > 0 || len(srcs) < 2 {
			t.Fatalf("%s: %d sources, %v", root, len(srcs), errs)
		}
		res, _ := Run(cfg, Options{}, srcs)
		ws := NewWorkspace(cfg, srcs)
		cross := 0
		for _, src := range srcs {
			var want []finding.Finding
			for _, f := range res.List() {
				if f.File == src.Path {
					want = append(want, f)
					if r := cfg.Rules.Lookup(f.RuleID); r != nil && r.CrossObject != nil {
						cross++
					}
				}
			}
			data, err := os.ReadFile(src.Path)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // twice: nothing of the first call stays
				if got := describe(ws.Lint(cfg, src.Path, data)); !slices.Equal(got, describe(want)) {
					t.Errorf("%s:\n got %q\nwant %q", src.Path, got, describe(want))
				}
			}
		}
		if cross == 0 && root == "testdata/environments" {
			t.Errorf("%s: no cross-object finding to compare", root)
		}
	}
	// An edit: the buffer replaces the file's copy in the workspace.
	srcs, _, _ := manifest.Discover([]string{"testdata/environments/prod"}, nil, false)
	ws := NewWorkspace(cfg, srcs)
	app := "testdata/environments/prod/app.yaml"
	edited := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	var changed []manifest.Source
	for _, s := range srcs {
		if s.Path == app {
			s.Data = edited
		}
		changed = append(changed, s)
	}
	res, _ := Run(cfg, Options{}, changed)
	for _, s := range changed {
		var want []finding.Finding
		for _, f := range res.List() {
			if f.File == s.Path {
				want = append(want, f)
			}
		}
		data := s.Data
		if data == nil {
			data, _ = os.ReadFile(s.Path)
		}
		if s.Path != app {
			continue // the workspace still holds app.yaml as saved
		}
		if got := describe(ws.Lint(cfg, s.Path, data)); !slices.Equal(got, describe(want)) {
			t.Errorf("edited %s:\n got %q\nwant %q", s.Path, got, describe(want))
		}
	}
}
