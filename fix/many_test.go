package fix_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/fix"
	"github.com/podlint/podlint/internal/alloctest"
)

// stream is Deployments named names, each with a fixable liveness timeout
// (PL106), no readiness probe, a stated start-up and a Service that
// selects its Pods (PL705, a cross-object finding); with typo, one container has a mis-cased
// ReadinessProbe (PL003), whose fix gives the Pods a readiness probe and so
// changes what the cross-object view sees, and a Deployment whose PL103
// fix fails.
func stream(names []string, typo bool) []byte {
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s}
spec:
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}, annotations: {podlint.dev/expected-startup: api=10s}}
    spec:
      containers:
        - name: api
          image: example/api:3
          ports: [{containerPort: 8080}]
          livenessProbe:
            httpGet: {path: /healthz, port: 8080}
            timeoutSeconds: 30
        - name: web
          image: example/web:1
`, name)
		if typo {
			b.WriteString("          ReadinessProbe:\n            httpGet: {path: /ready, port: 8080}\n")
		}
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Service
metadata: {name: %[1]s}
spec:
  selector: {app: %[1]s}
  ports: [{port: 80, targetPort: 8080}]
`, name)
		if typo {
			// PL103's fix, a startup probe in place of the delay, makes a
			// new Pod slower to be Ready than the progress deadline allows
			// (PL501): a fix that fails.
			fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s-slow}
spec:
  progressDeadlineSeconds: 60
  selector: {matchLabels: {app: %[1]s-slow}}
  template:
    metadata: {labels: {app: %[1]s-slow}}
    spec:
      containers:
        - name: slow
          image: example/slow:1
          livenessProbe:
            tcpSocket: {port: 80}
            initialDelaySeconds: 150
`, name)
		}
	}
	return []byte(b.String())
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("app-%d", i)
	}
	return out
}

// candidates are every fix of every finding of fs.
func candidates(fs []finding.Finding) []fix.Candidate {
	var out []fix.Candidate
	for i := range fs {
		for j := range fs[i].Fixes {
			out = append(out, fix.Candidate{Finding: &fs[i], Fix: &fs[i].Fixes[j]})
		}
	}
	return out
}

// TestVerifyAllIsVerify: verifying the fixes of a stream document by
// document gives, fix for fix, the answer of linting the whole stream once
// per fix, for fixes that change what the cross-object view sees (PL003's
// readinessProbe) and fixes that do not (PL106's timeout), with the
// cross-object rules running.
func TestVerifyAllIsVerify(t *testing.T) {
	cfg := analyzer.Default()
	data := stream(names(6), true)
	before, _ := cfg.File("s.yaml", data, true)
	cands := candidates(before)
	rulesSeen := map[string]int{}
	for _, f := range before {
		rulesSeen[f.RuleID]++
	}
	if rulesSeen["PL106"] == 0 || rulesSeen["PL003"] == 0 || rulesSeen["PL705"] == 0 {
		t.Fatalf("the stream lacks the findings this test needs (PL106, PL003, PL705): %v", rulesSeen)
	}
	errs := fix.VerifyAll(cfg, "s.yaml", data, before, cands)
	passed := 0
	for k, c := range cands {
		_, want := fix.Verify(cfg, "s.yaml", data, before, c.Finding, c.Fix)
		if (errs[k] == nil) != (want == nil) {
			t.Errorf("%s at line %d, fix %q: VerifyAll says %v, Verify says %v", c.Finding.RuleID, c.Finding.Line, c.Fix.Title, errs[k], want)
		}
		if errs[k] == nil {
			passed++
		}
	}
	if passed == 0 || passed == len(cands) {
		t.Errorf("%d of %d fixes verified; the test needs some of each", passed, len(cands))
	}
}

// TestVerifyAllTwins: a stream that holds the same Deployment twice (two
// charts rendered into one stream) has the same finding twice, which the
// whole-file check cannot tell apart ("still there" after the fix of
// either); on its own document, each twin's fix resolves its finding.
func TestVerifyAllTwins(t *testing.T) {
	cfg := analyzer.Default()
	data := stream([]string{"twin", "other", "twin"}, false)
	before, _ := cfg.File("s.yaml", data, true)
	var twins []fix.Candidate
	for _, c := range candidates(before) {
		if c.Finding.RuleID == "PL106" && c.Finding.Object.Name == "twin" {
			twins = append(twins, c)
		}
	}
	if len(twins) < 2 || twins[0].Finding.Line == twins[len(twins)-1].Finding.Line {
		t.Fatalf("want the PL106 fixes of both twins, got %d", len(twins))
	}
	for k, err := range fix.VerifyAll(cfg, "s.yaml", data, before, twins) {
		if err != nil {
			t.Errorf("twin %d (line %d): %v", k, twins[k].Finding.Line, err)
		}
	}
}

// TestVerifyAllLinear: verifying one fix per document of a stream costs
// about the same per fix whatever the stream's length (linting the whole
// stream per fix, as before, allocated four times as much for twice the
// documents).
func TestVerifyAllLinear(t *testing.T) {
	cfg := analyzer.Default()
	cost := func(n int) (uint64, int) {
		data := stream(names(n), false)
		before, _ := cfg.File("s.yaml", data, true)
		cands := candidates(before)
		ok := 0
		b := alloctest.Min(func() {
			ok = 0
			for _, err := range fix.VerifyAll(cfg, "s.yaml", data, before, cands) {
				if err == nil {
					ok++
				}
			}
		})
		return b, ok
	}
	a, okA := cost(40)
	b, okB := cost(80)
	t.Logf("40 Deployments: %d fixes verified, %d bytes; 80: %d fixes, %d bytes (×%.2f)", okA, a, okB, b, float64(b)/float64(a))
	if okA == 0 || okB != 2*okA {
		t.Fatalf("verified %d and %d fixes; want some, and twice as many for twice the documents", okA, okB)
	}
	if alloctest.Exceeds(a, b, 2.5) {
		t.Errorf("twice the documents multiplied the bytes allocated by %.2f; want at most 2.5 (linear)", float64(b)/float64(a))
	}
}

// onFailure is n Deployments whose Pods use restartPolicy OnFailure
// (PL301, whose fix changes what the cross-object view summarizes of the
// workload: it no longer runs to completion); with served, a Service in
// the namespace selects every other one, so that their fixes matter to the
// cross-object rules (PL705: the Service sends traffic to Pods without a
// readiness probe that state a start-up).
func onFailure(n int, served bool) []byte {
	var b strings.Builder
	for i := range n {
		app := fmt.Sprintf("app-%d", i)
		if served && i%2 == 0 {
			app = "served"
		}
		fmt.Fprintf(&b, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d%d}
spec:
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %[2]s}, annotations: {podlint.dev/expected-startup: c=10s}}
    spec:
      restartPolicy: OnFailure
      containers:
        - name: c
          image: example/c:1
`, i, app)
	}
	if served {
		b.WriteString("---\napiVersion: v1\nkind: Service\nmetadata: {name: served}\nspec:\n  selector: {app: served}\n  ports: [{port: 80}]\n")
	}
	return []byte(b.String())
}

// TestVerifyAllRestartPolicyIsVerify: a fix that changes a workload's
// summary in the cross-object view (PL301's restartPolicy) is verified on
// its document alone when nothing in the namespace selects the workload,
// and on the whole file when a Service does; either way the answer is the
// whole file's, fix for fix.
func TestVerifyAllRestartPolicyIsVerify(t *testing.T) {
	cfg := analyzer.Default()
	for _, served := range []bool{false, true} {
		data := onFailure(6, served)
		before, _ := cfg.File("s.yaml", data, true)
		cands := candidates(before)
		n := 0
		for k, err := range fix.VerifyAll(cfg, "s.yaml", data, before, cands) {
			c := cands[k]
			if c.Finding.RuleID == "PL301" {
				n++
			}
			_, want := fix.Verify(cfg, "s.yaml", data, before, c.Finding, c.Fix)
			if (err == nil) != (want == nil) {
				t.Errorf("served %v: %s at line %d, fix %q: VerifyAll says %v, Verify says %v", served, c.Finding.RuleID, c.Finding.Line, c.Fix.Title, err, want)
			}
		}
		if n != 6 {
			t.Errorf("served %v: %d PL301 fixes, want 6", served, n)
		}
	}
}

// TestVerifyAllRestartPolicyLinear: verifying the PL301 fix of each of
// many Deployments that nothing selects costs about the same per fix
// whatever their number. Each fix changes the workload's summary, which
// used to send every fix to a lint of the whole file: 400 Deployments
// (106 KB) took 12 s of CPU in check -f json against 0.04 s in text.
func TestVerifyAllRestartPolicyLinear(t *testing.T) {
	cfg := analyzer.Default()
	cost := func(n int) (uint64, int) {
		data := onFailure(n, false)
		before, _ := cfg.File("s.yaml", data, true)
		cands := candidates(before)
		ok := 0
		b := alloctest.Bytes(func() {
			for _, err := range fix.VerifyAll(cfg, "s.yaml", data, before, cands) {
				if err == nil {
					ok++
				}
			}
		})
		return b, ok
	}
	a, okA := cost(50)
	b, okB := cost(100)
	t.Logf("50 Deployments: %d fixes verified, %d bytes; 100: %d fixes, %d bytes (×%.2f)", okA, a, okB, b, float64(b)/float64(a))
	if okA < 50 || okB != 2*okA {
		t.Fatalf("verified %d and %d fixes; want at least one per Deployment, and twice as many for twice the documents", okA, okB)
	}
	if float64(b) > 2.5*float64(a) {
		t.Errorf("twice the documents multiplied the bytes allocated by %.2f; want at most 2.5 (linear)", float64(b)/float64(a))
	}
}

// TestFileLinear: fixing every Deployment of a stream (podlint fix, the
// editor's fix-all) allocates about twice as much for twice the
// Deployments. Each fix used to be verified by linting the whole file
// again: a thousand took 128 s of CPU.
func TestFileLinear(t *testing.T) {
	cfg := analyzer.Default()
	cost := func(n int) uint64 {
		data := onFailure(n, false)
		var res *fix.Result
		b := alloctest.Bytes(func() { res = fix.File(cfg, "s.yaml", data, finding.Safe) })
		if len(res.Applied) != n || len(res.Skipped) != 0 {
			t.Fatalf("%d Deployments: %d fixes applied, %d skipped; want %[1]d and 0", n, len(res.Applied), len(res.Skipped))
		}
		return b
	}
	a, b := cost(50), cost(100)
	t.Logf("50 Deployments: %d bytes; 100: %d bytes (×%.2f)", a, b, float64(b)/float64(a))
	if float64(b) > 2.5*float64(a) {
		t.Errorf("twice the Deployments multiplied the bytes allocated by %.2f; want at most 2.5 (linear)", float64(b)/float64(a))
	}
}

// resultOf is what a run reports for data: its findings with their fixes.
func resultOf(t *testing.T, data []byte) *finding.Result {
	t.Helper()
	fs, _ := analyzer.Default().File("s.yaml", data, true)
	return &finding.Result{Findings: fs}
}

// TestVerifyResultIsVerifyAll: the fixes check -f json keeps
// (VerifyResult, which lints the whole file only for a fix that needs it)
// are those VerifyAll verifies with the whole file's findings in hand.
func TestVerifyResultIsVerifyAll(t *testing.T) {
	cfg := analyzer.Default()
	for _, data := range [][]byte{stream(names(4), true), onFailure(6, true), onFailure(6, false)} {
		res := resultOf(t, data)
		before := res.Findings
		cands := candidates(before)
		want := map[string]bool{}
		for k, err := range fix.VerifyAll(cfg, "s.yaml", data, before, cands) {
			want[fmt.Sprintf("%d %s %s", cands[k].Finding.Line, cands[k].Finding.RuleID, cands[k].Fix.Title)] = err == nil
		}
		res = resultOf(t, data)
		fix.VerifyResult(cfg, res, func(string) ([]byte, error) { return data, nil })
		got := map[string]bool{}
		for _, f := range res.Findings {
			for _, x := range f.Fixes {
				got[fmt.Sprintf("%d %s %s", f.Line, f.RuleID, x.Title)] = true
			}
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: VerifyResult keeps it %v, VerifyAll verifies it %v", k, got[k], v)
			}
		}
	}
}

// TestVerifyResultCostsTheFixedDocument: verifying the fixes of one
// Deployment (a probe's timeout) in a long file costs about the same whatever the file's length: its document is
// linted, not the whole file (which check -f json had just linted).
func TestVerifyResultCostsTheFixedDocument(t *testing.T) {
	cfg := analyzer.Default()
	cost := func(n int) uint64 {
		var b strings.Builder
		b.Write(stream(names(1), false))
		for i := range n {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: {a: b}\n", i)
		}
		data := []byte(b.String())
		res := resultOf(t, data)
		bytes := alloctest.Bytes(func() {
			if n := fix.VerifyResult(cfg, res, func(string) ([]byte, error) { return data, nil }); n != 0 {
				t.Fatalf("%d fixes dropped", n)
			}
		})
		kept := 0
		for _, f := range res.Findings {
			kept += len(f.Fixes)
		}
		if kept == 0 {
			t.Fatal("no fix kept")
		}
		return bytes
	}
	a, b := cost(200), cost(400)
	t.Logf("1 Deployment in 200 documents: %d bytes; in 400: %d bytes (×%.2f)", a, b, float64(b)/float64(a))
	if float64(b) > 1.5*float64(a) {
		t.Errorf("twice the documents multiplied the bytes allocated by %.2f; want at most 1.5 (the fixed document's cost, plus splitting the file)", float64(b)/float64(a))
	}
}
