package analyzer

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/testcorpus"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// describeFull is describe with everything of a finding that the report
// shows: a scheduler that lost a suppression, a related location, a fix or
// a severity change would differ here.
func describeFull(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		obj := ""
		if f.Object != nil {
			obj = f.Object.Kind + "/" + f.Object.Namespace + "/" + f.Object.Name
		}
		out = append(out, fmt.Sprintf("%s %s %s:%d:%d %s %s | %s | %s | related %v | %d fixes | %q",
			f.RuleID, f.Severity, f.File, f.Line, f.Column, obj, f.Path, f.Message, f.Detail, f.Related, len(f.Fixes), f.SourceLine))
	}
	return out
}

// TestLinterFileIsRun: the split between what runs and how it is scheduled
// holds. A Linter, which has no scheduling knobs, lints one file (File) to
// exactly the findings Run reports for it under every tuning of the
// scheduler: the defaults, one worker, every document a batch of its own
// (SplitBytes and BatchBytes of 1 byte, so the file takes the batch path
// of a large input), and a summary budget of none (the cross-object view
// drops and restores every summary). The file mixes what each part of the
// engine handles: cross-object findings and supersession, used and unused
// comment and annotation suppressions, a loader problem, a
// folder of real manifests.
func TestLinterFileIsRun(t *testing.T) {
	t.Parallel()
	sample, err := testcorpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{webDeployment, webService, twoPods,
		"apiVersion: v1\nkind: Pod\nspec: {containers: [{name: a, image: [x]}]}\n", // PL002
		`apiVersion: v1
kind: Pod
metadata:
  name: hook
  annotations:
    podlint.dev/ignore: PL010 two names on purpose, PL201 nothing to hide
spec:
  containers:
    - {name: a, image: x}
    - {name: a, image: x} # podlint:ignore PL101 no probe here
`}
	paths, err := filepath.Glob(filepath.Join(sample, "GoogleCloudPlatform__microservices-demo", "kubernetes-manifests", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("sample corpus: %v, %d files", err, len(paths))
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	data := []byte(strings.Join(docs, "\n---\n"))

	l := Default(Enable(rules.All...))
	fs, sum := l.File("all.yaml", data, true)
	// File leaves the order to its caller; Run sorts, with the store's order.
	st := finding.NewStore()
	for i := range fs {
		st.Add(&fs[i])
	}
	st.Sort()
	want := describeFull((&finding.Result{Packed: st}).List())
	rulesSeen := map[string]bool{}
	for _, f := range fs {
		rulesSeen[f.RuleID] = true
	}
	// The comparison is worth something only if the file reaches every part.
	for _, r := range []*rules.Rule{rules.ServiceWithoutReadiness, rules.DuplicateContainerName, rules.UnusedSuppression} {
		if !rulesSeen[r.ID] {
			t.Errorf("File reports no %s (%s): the input no longer exercises it; findings %q", r.ID, r.Name, want)
		}
	}
	if rulesSeen[rules.MissingReadinessProbe.ID] {
		t.Errorf("File reports %s, which the Service's finding supersedes", rules.MissingReadinessProbe.ID)
	}

	for _, opt := range []Options{
		{},
		{Workers: 1},
		{SplitBytes: 1, BatchBytes: 1},
		{SplitBytes: 1, BatchBytes: 1, SummaryBudget: -1, Workers: 3},
	} {
		res, errs := Run(l, opt, []manifest.Source{{Path: "all.yaml", Data: data, Explicit: true}})
		if len(errs) > 0 {
			t.Fatalf("Run with %+v: %v", opt, errs)
		}
		if got := describeFull(res.List()); !slices.Equal(got, want) {
			t.Errorf("Run with %+v differs from Linter.File:\n got %q\nwant %q", opt, got, want)
		}
		if res.Summary.Files != 1 || res.Summary.Objects != sum.Objects || res.Summary.Workloads != sum.Workloads {
			t.Errorf("Run with %+v: summary %+v, File's %+v", opt, res.Summary, sum)
		}
	}
}

// TestSchedulerHoldsNoRuleLogic: the scheduler (schedule.go) decides how a
// run is spread, not what it finds, so it names neither the rules nor the
// model they read, and it adds no method to Linter: what runs stays in
// one place for a reader who follows a rule.
func TestSchedulerHoldsNoRuleLogic(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "schedule.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		for _, banned := range []string{"rules", "timeline", "workload", "internal/shellread"} {
			if path == "github.com/podlint/podlint/"+banned {
				t.Errorf("schedule.go imports %s: rule logic belongs to Linter", path)
			}
		}
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil {
			continue
		}
		recv := fd.Recv.List[0].Type
		if star, ok := recv.(*ast.StarExpr); ok {
			recv = star.X
		}
		if id, ok := recv.(*ast.Ident); ok && id.Name == "Linter" {
			t.Errorf("schedule.go declares Linter.%s: what runs belongs with the Linter, not the scheduler", fd.Name.Name)
		}
	}
}
