package fix_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/internal/alloctest"
	"github.com/podlint/podlint/internal/testcorpus"
	"github.com/podlint/podlint/manifest"
)

// deployment is the first Deployment of stream: its liveness probe times
// out after 30s (PL106, fixable), and with typo its second container's
// readiness probe is misspelt.
func deployment(name string, typo bool) string {
	s := string(stream([]string{name}, typo))
	return s[len("---\n"):strings.Index(s, "---\napiVersion: v1\nkind: Service")]
}

// verifyCases are files whose fixes take every way through InRun: decided
// in the document, failing there (PL103's fix adds PL501), left to the
// whole file (PL301's fix changes what a Service selects; a suppression;
// a directive), JSON, a byte order mark.
func verifyCases() map[string]string {
	var served strings.Builder
	served.WriteString("apiVersion: v1\nkind: Service\nmetadata: {name: served}\nspec:\n  selector: {app: served}\n  ports: [{port: 80}]\n")
	for i := range 3 {
		fmt.Fprintf(&served, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d}\nspec:\n  selector: {matchLabels: {app: served}}\n  template:\n    metadata: {labels: {app: served}}\n    spec:\n      restartPolicy: OnFailure\n      containers: [{name: c, image: example/c:1}]\n", i)
	}
	return map[string]string{
		"stream.yaml":     string(stream(names(3), true)),
		"served.yaml":     served.String(),
		"alone.yaml":      string(onFailure(4, false)),
		"suppressed.yaml": "---\n" + deployment("a", false) + "---\n# podlint:ignore PL101 not this one\n" + deployment("b", true),
		"annotated.yaml":  strings.Replace(deployment("c", true), "metadata: {name: c}", "metadata:\n  name: c\n  annotations: {ignore-check.podlint.dev/PL104: \"no\"}", 1),
		"directive.yaml":  deployment("d", false) + "...\n%YAML 1.2\n---\n" + deployment("e", true),
		"bom.yaml":        "\uFEFF" + deployment("f", true) + "---\n" + deployment("g", false),
		"object.json":     `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "j"}, "spec": {"selector": {"matchLabels": {"app": "j"}}, "template": {"metadata": {"labels": {"app": "j"}}, "spec": {"containers": [{"name": "c", "image": "x:1", "livenessProbe": {"httpGet": {"path": "/", "port": 80}, "timeoutSeconds": 30}}]}}}}` + "\n",
	}
}

// report is a result as check's JSON report shows its findings and fixes.
func report(t *testing.T, res *finding.Result) string {
	t.Helper()
	b, err := json.Marshal(res.List())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInRunIsVerifyResult: the fixes check -f json|sarif offers when the
// workers verify them while each document is loaded (InRun) are those
// VerifyResult keeps after the run, for files linted whole and in batches,
// and the workers decided most of them.
func TestInRunIsVerifyResult(t *testing.T) {
	dir := t.TempDir()
	var srcs []manifest.Source
	cases := verifyCases()
	for _, name := range []string{"stream.yaml", "served.yaml", "alone.yaml", "suppressed.yaml", "annotated.yaml", "directive.yaml", "bom.yaml", "object.json"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(cases[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, manifest.Source{Path: p, Explicit: true})
	}
	srcs = append(srcs, manifest.Source{Path: "<stdin>", Data: []byte(cases["stream.yaml"] + "---\n" + cases["served.yaml"])})
	cfg := analyzer.Default()
	for _, opt := range []analyzer.Options{{}, {SplitBytes: 512, BatchBytes: 600}} {
		t.Run(fmt.Sprintf("split=%d", opt.SplitBytes), func(t *testing.T) {
			dropped, decided, left := inRunIsVerifyResult(t, cfg, opt, srcs)
			if dropped == 0 {
				t.Fatal("VerifyResult dropped no fix: the cases test nothing")
			}
			t.Logf("%d fixes decided in the run, %d left to the whole file", decided, left)
			// 30 and 14 until PL705 read the liveness delay and the startup
			// probe: PL103's fix changes both, so the cross-object view may
			// change, and its 6 fixes were left to the whole file (24 and
			// 20) until such a fix waited for the end of the file.
			if decided <= left || left == 0 {
				t.Errorf("%d fixes decided in the run, %d left to the whole file: want most decided, some left", decided, left)
			}
		})
	}
}

// inRunIsVerifyResult runs srcs with opt twice, once with VerifyResult
// after the run and once with InRun, and fails unless both keep the same
// fixes. It returns how many fixes VerifyResult dropped, and how many InRun
// decided in the run and left to the whole file.
func inRunIsVerifyResult(t *testing.T, cfg *analyzer.Linter, opt analyzer.Options, srcs []manifest.Source) (dropped, decided, left int) {
	t.Helper()
	read := func(path string) ([]byte, error) {
		for _, s := range srcs {
			if s.Path == path && s.Data != nil {
				return s.Data, nil
			}
		}
		return os.ReadFile(path)
	}
	res, errs := analyzer.Run(cfg, opt, srcs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	dropped = fix.VerifyResult(cfg, res, read)
	want := report(t, res)

	v := fix.NewInRun()
	opt.VerifyFixes = v.Document
	res, errs = analyzer.Run(cfg, opt, srcs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	v.Finish(cfg, res, read)
	if got := report(t, res); got != want {
		t.Errorf("fixes verified in the run differ from VerifyResult's:\n got %s\nwant %s", got, want)
	}
	decided, left = v.Counts()
	return dropped, decided, left
}

// TestInRunSharedChangeAtFileEnd: PL103's fix (a startupProbe in place of
// the liveness probe's delay) changes the workload's summary in the
// cross-object view. Only a Service, budget, autoscaler, claim or
// PodMonitor in the workload's namespace reads that summary, so the fix is
// decided in the run, once the end of the file shows there is none there,
// and left to the whole file where there is one, also in a file linted in
// batches, whose end no worker sees.
func TestInRunSharedChangeAtFileEnd(t *testing.T) {
	const slow = `apiVersion: apps/v1
kind: Deployment
metadata: {name: slow, namespace: shop}
spec:
  selector: {matchLabels: {app: slow}}
  template:
    metadata: {labels: {app: slow}}
    spec:
      containers:
        - name: app
          image: example/app:1
          livenessProbe:
            httpGet: {path: /healthz, port: 8080}
            initialDelaySeconds: 120
`
	// The same with a readiness probe that waits as long: the startup
	// probe then makes the rollout need more than the progress deadline
	// (PL501 at its failureThreshold), so the fix fails.
	slower := strings.Replace(strings.Replace(slow, "name: slow,", "name: slower,", 1), "            initialDelaySeconds: 120\n",
		"            initialDelaySeconds: 600\n          readinessProbe:\n            httpGet: {path: /ready, port: 8080}\n            initialDelaySeconds: 600\n", 1)
	service := func(ns string) string {
		return "---\napiVersion: v1\nkind: Service\nmetadata: {name: slow, namespace: " + ns + "}\nspec:\n  selector: {app: slow}\n  ports: [{port: 80}]\n"
	}
	cfg := analyzer.Default()
	batches := analyzer.Options{SplitBytes: 100, BatchBytes: 100}
	for _, c := range []struct {
		name, data string
		opt        analyzer.Options
		left       int
	}{
		{"alone", slow, analyzer.Options{}, 0},
		{"service elsewhere", service("other") + "---\n" + slow, analyzer.Options{}, 0},
		{"service in its namespace, after it", slow + service("shop"), analyzer.Options{}, 1},
		// The documents after it add their findings to the file's, which
		// moves them: the failed fix is dropped all the same.
		{"failing, documents after it", slower + "---\n" + strings.Repeat(deployment("x", true)+"---\n", 4) + slow, analyzer.Options{}, 0},
		// A file linted in batches: judged once the run's merge has every
		// batch, and applied by Finish.
		{"in batches", slow + service("other") + "---\n" + slow, batches, 0},
		{"in batches, service in its namespace", slow + "---\n" + deployment("x", true) + service("shop"), batches, 1},
		{"failing, in batches", slower + "---\n" + strings.Repeat(deployment("x", true)+"---\n", 2) + slow, batches, 0},
		// Two findings that Finish cannot tell apart (the same file twice)
		// are left to the whole file.
		{"failing, in batches, twice", slower + "---\n" + slow, batches, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			srcs := []manifest.Source{{Path: "slow.yaml", Data: []byte(c.data)}}
			if strings.HasSuffix(c.name, "twice") {
				srcs = append(srcs, srcs[0])
			}
			dropped, decided, left := inRunIsVerifyResult(t, cfg, c.opt, srcs)
			if strings.HasPrefix(c.name, "failing") && dropped == 0 {
				t.Error("VerifyResult dropped no fix: the case tests nothing")
			}
			if decided+left == 0 {
				t.Fatal("no fix to verify: PL103 found nothing")
			}
			if left != c.left {
				t.Errorf("%d fixes decided in the run, %d left to the whole file; want %d left", decided, left, c.left)
			}
		})
	}
}

// TestInRunIsVerifyResultOnCorpus: InRun keeps the fixes VerifyResult
// keeps on the sample corpus of real manifests and the examples, whole and
// in batches. Most are decided in the run; those left to the whole file
// are PL103's in files whose Service shares the workload's namespace.
func TestInRunIsVerifyResultOnCorpus(t *testing.T) {
	sample, err := testcorpus.Sample()
	if err != nil {
		t.Fatal(err)
	}
	var srcs []manifest.Source
	for _, dir := range []string{sample, filepath.Join("..", "testdata", "examples")} {
		files, err := testcorpus.Files(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			srcs = append(srcs, manifest.Source{Path: f, Explicit: true})
		}
	}
	cfg := analyzer.Default()
	for _, opt := range []analyzer.Options{{}, {SplitBytes: 4096, BatchBytes: 4096}} {
		t.Run(fmt.Sprintf("split=%d", opt.SplitBytes), func(t *testing.T) {
			_, decided, left := inRunIsVerifyResult(t, cfg, opt, srcs)
			t.Logf("%d files: %d fixes decided in the run, %d left to the whole file", len(srcs), decided, left)
			if decided < 20 {
				t.Errorf("%d fixes decided in the run; the corpus and examples have at least 20", decided)
			}
			if decided <= left {
				t.Errorf("%d fixes decided in the run, %d left to the whole file: want most decided", decided, left)
			}
		})
	}
}

// TestInRunCostsTheEditedDocument: verifying the fixes of check -f json
// costs about one lint of each edited document on top of the run. After
// the run (VerifyResult) it cost the file read and split again, the
// document decoded before and after the edit and linted alone before and
// after: more than three times the run's own allocations for a stream in
// which every Deployment has a fix; in the run, the edited document once.
func TestInRunCostsTheEditedDocument(t *testing.T) {
	cfg := analyzer.Default()
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "---\n%s", deployment(fmt.Sprintf("app-%d", i), false))
	}
	srcs := []manifest.Source{{Path: "s.yaml", Data: []byte(b.String())}}
	offered := 0
	plain := alloctest.Min(func() {
		res, _ := analyzer.Run(cfg, analyzer.Options{Workers: 1}, srcs)
		offered = 0
		for i := range res.Len() {
			offered += len(res.At(i).Fixes)
		}
	})
	kept := 0
	verified := alloctest.Min(func() {
		v := fix.NewInRun()
		res, _ := analyzer.Run(cfg, analyzer.Options{Workers: 1, VerifyFixes: v.Document}, srcs)
		v.Finish(cfg, res, func(string) ([]byte, error) { return srcs[0].Data, nil })
		kept = 0
		for i := range res.Len() {
			kept += len(res.At(i).Fixes)
		}
	})
	if kept != offered || kept < 100 {
		t.Fatalf("%d fixes kept of %d, want all, at least one per Deployment", kept, offered)
	}
	t.Logf("run: %d bytes; run and verification: %d bytes (×%.2f)", plain, verified, float64(verified)/float64(plain))
	if alloctest.Exceeds(plain, verified, 4) {
		t.Errorf("verifying the fixes multiplied the bytes the run allocates by %.2f; want at most 4 (one lint of each edited document: two fixes of each Deployment)", float64(verified)/float64(plain))
	}
}
