package analyzer

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
)

// TestDroppedSummariesComeBack: past the summary budget the merge drops
// the workloads of namespaces without a Service, budget, autoscaler, claim
// or PodMonitor so far, and loads them again at the end when one comes
// later. With a budget of 0 (everything dropped that can be) the findings
// on the sample corpus, as files and as one stream cut into batches (with
// the Service in a file after it), are
// exactly those of a run that keeps every summary.
func TestDroppedSummariesComeBack(t *testing.T) {
	t.Parallel()
	// A Deployment in a namespace whose Service is the last document of
	// the run: its summary is dropped, and PL705 on it needs it back.
	late := strings.Replace(webDeployment, "name: web\n", "name: web\n  namespace: late\n", 1)
	lateSvc := strings.Replace(webService, "name: web\n", "name: web\n  namespace: late\n", 1)
	srcs := []manifest.Source{{Path: "late-deploy.yaml", Data: []byte(late)}}
	var stream bytes.Buffer
	stream.WriteString(late + "---\n")
	err := filepath.WalkDir("../testdata/corpus", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		data, tooBig, err := manifest.ReadSource(p, 1<<24)
		if err != nil || tooBig {
			t.Fatalf("%s: %v", p, err)
		}
		srcs = append(srcs, manifest.Source{Path: p})
		stream.Write(data)
		stream.WriteString("\n---\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	svc := manifest.Source{Path: "late-svc.yaml", Data: []byte(lateSvc)}
	srcs = append(srcs, svc)
	run := func(budget int, srcs []manifest.Source) []finding.Finding {
		t.Helper()
		res, errs := Run(Default(Enable(rules.All...)), Options{SummaryBudget: budget, SplitBytes: 64 << 10, BatchBytes: 16 << 10}, srcs)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		return res.List()
	}
	for name, in := range map[string][]manifest.Source{
		"files":  srcs,
		"stream": {{Path: "<stdin>", Data: stream.Bytes()}, svc},
	} {
		want, got := run(1<<30, in), run(-1, in)
		cross := 0
		for _, f := range want {
			if r := rules.All.Lookup(f.RuleID); r != nil && r.CrossObject != nil {
				cross++
			}
		}
		if !slices.ContainsFunc(want, func(f finding.Finding) bool {
			return f.RuleID == rules.ServiceWithoutReadiness.ID && f.Object != nil && f.Object.Namespace == "late"
		}) {
			t.Fatalf("%s: no %s finding on the Deployment of namespace late", name, rules.ServiceWithoutReadiness.ID)
		}
		if cross < 10 {
			t.Fatalf("%s: %d findings of cross-object rules; the test needs some", name, cross)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d findings with every summary dropped that can be, %d with all kept", name, len(got), len(want))
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("first difference at %d:\n got %+v\nwant %+v", i, got[i], want[i])
					break
				}
			}
		}
	}
}
