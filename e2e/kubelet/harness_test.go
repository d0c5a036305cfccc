package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func predictionOf(t *testing.T, js string) *prediction {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(js), &obj); err != nil {
		t.Fatal(err)
	}
	return &prediction{obj: obj}
}

// TestEvaluate: a check passes inside its interval widened by the
// tolerance, fails outside it, and is an error when the quantity was not
// observed or podlint has no such field.
func TestEvaluate(t *testing.T) {
	sc := &scenario{name: "s", checks: []check{
		{quantity: "first probe", field: "containers.app.livenessProbe.firstProbe",
			observe: func(p *pod) (float64, error) { return since(obs(p, "app", "lprobe", 0), startOf(p, "app", 0)) }},
		{quantity: "kill decision", field: "containers.app.livenessProbe.killDecision",
			observe: func(p *pod) (float64, error) {
				return since(probe(p, "app", "Liveness", "failed", 2), startOf(p, "app", 0))
			}},
		{quantity: "second start", field: "containers.app.livenessProbe.nextStart",
			observe: func(p *pod) (float64, error) { return since(startOf(p, "app", 1), startOf(p, "app", 0)) }},
		{quantity: "no such field", field: "containers.app.nothing",
			observe: func(p *pod) (float64, error) { return 0, nil }},
	}}
	p := &pod{sc: sc, run: 1, pred: predictionOf(t, `{"containers": [{"name": "app", "livenessProbe":
		{"firstProbe": [1, 4], "killDecision": [5, 8], "nextStart": [5, null]}}]}`),
		obs: []obsLine{{at(0), "app", "start"}, {at(4.1), "app", "lprobe"}},
		kubelet: []kubeletLine{
			{at(5), "ns/p", "app", "probe-failed", "Liveness", "", ""},
			{at(6), "ns/p", "app", "probe-succeeded", "Readiness", "", ""},
			{at(7), "ns/p", "app", "probe-failed", "Liveness", "", ""},
			{at(8.3), "ns/p", "app", "probe-failed", "Liveness", "", ""},
		}}
	res := evaluate([]*pod{p})
	want := []struct{ verdict, why string }{
		{"pass", ""},                    // 4.1 within 4 + 0.15
		{"fail", ""},                    // 8.3 beyond 8 + 0.15
		{"error", "did not log"},        // no second start
		{"error", "podlint's JSON has"}, // no field
	}
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d", len(res), len(want))
	}
	for i, w := range want {
		if res[i].verdict != w.verdict || !strings.Contains(res[i].why, w.why) {
			t.Errorf("%s: verdict %s (%s), want %s (%s)", res[i].quantity, res[i].verdict, res[i].why, w.verdict, w.why)
		}
	}
	if res[0].obs < 4.09 || res[0].obs > 4.11 || res[1].pred != (interval{5, 8}) {
		t.Errorf("observed %v, predicted %v", res[0].obs, res[1].pred)
	}
}

func TestRenderTableAndWriteDoc(t *testing.T) {
	res := []result{
		{scenario: "a", run: 1, quantity: "x | y", field: "f", pred: interval{1, 2}, obs: 1.5, tol: defaultTolerance, verdict: "pass"},
		{scenario: "a", run: 1, quantity: "z", field: "g", pred: interval{0, 60}, obs: 61.5, tol: 1, verdict: "fail", note: "n"},
		{scenario: "b", run: 2, quantity: "w", field: "h", verdict: "error", why: "not seen", tol: defaultTolerance},
	}
	c := config{kubeVersion: "v1.37.2"}
	table := renderTable(c, res, []time.Duration{150 * time.Second, 151400 * time.Millisecond})
	for _, want := range []string{
		"2 scenario(s) × 2 run(s), 3 checks: **1 inside the predicted interval**, 2 not",
		"The runs took 2m30s, 2m31s",
		`| a | 1 | x \| y | ` + "`f`" + ` | [1, 2] | 1.5 | pass |`,
		"| [0, 60] | 61.5 | fail (±1); n |",
		"| b | 2 | w | `h` | — | — (not seen) | error |",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}

	doc := filepath.Join(t.TempDir(), "validation.md")
	if err := os.WriteFile(doc, []byte("intro\n"+beginMark+"\nold table\n"+endMark+"\nafter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(doc, "new table\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(doc)
	if got, want := string(b), "intro\n"+beginMark+"\nnew table\n"+endMark+"\nafter\n"; got != want {
		t.Errorf("doc:\n%s\nwant:\n%s", got, want)
	}
	if err := os.WriteFile(doc, []byte("no markers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeDoc(doc, "t"); err == nil {
		t.Error("writeDoc filled a file without markers")
	}
}

// TestRunsApart: two invocations on one kept stack name their Pods,
// manifests and observation folders apart, so neither reads the other's
// observation lines, kubelet log lines or events.
func TestRunsApart(t *testing.T) {
	sc := scenarios()[0]
	a, b := newPod("/st", sc, 1, "aaaaaa"), newPod("/st", sc, 1, "bbbbbb")
	if a.name == b.name || a.file == b.file || a.obsDir == b.obsDir || strings.HasPrefix(b.obsDir, a.obsDir+"/") {
		t.Fatalf("runs share names: %q %q, %q %q, %q %q", a.name, b.name, a.file, b.file, a.obsDir, b.obsDir)
	}
	if !strings.Contains(string(a.manifest), "hostPath: {path: "+a.obsDir+"}") || !strings.Contains(string(a.manifest), "name: "+sc.name+"-r1-aaaaaa\n") {
		t.Errorf("manifest does not use the run's names:\n%s", a.manifest)
	}
	lines := []kubeletLine{{t: at(1), pod: namespace + "/" + a.name, kind: "probe-failed"}, {t: at(2), pod: namespace + "/" + b.name, kind: "kill"}}
	if got := linesOf(lines, b); len(got) != 1 || got[0].kind != "kill" {
		t.Errorf("run b got kubelet lines %+v", got)
	}
}

func TestProbeQuietWait(t *testing.T) {
	sc := func(m string) *scenario { return &scenario{manifest: m} }
	for _, c := range []struct {
		scs  []*scenario
		want time.Duration
	}{
		{[]*scenario{sc("terminationGracePeriodSeconds: 30\n")}, 0},
		{[]*scenario{sc("livenessProbe: {exec: {}, periodSeconds: 3}\nterminationGracePeriodSeconds: 30")}, 10 * time.Second},
		{[]*scenario{sc("readinessProbe: {periodSeconds: 2}"), sc("startupProbe: {periodSeconds: 30}")}, 30 * time.Second},
	} {
		if got := maxProbePeriod(c.scs); got != c.want {
			t.Errorf("maxProbePeriod = %v, want %v", got, c.want)
		}
	}
	scs := []*scenario{sc("readinessProbe: {periodSeconds: 10}")}
	if got := probeQuietWait(time.Time{}, scs, t0); got != 0 {
		t.Errorf("no health time: wait %v", got)
	}
	if got := probeQuietWait(t0, scs, t0.Add(2*time.Second)); got != 9*time.Second {
		t.Errorf("2 s after healthz: wait %v, want 9s", got)
	}
	if got := probeQuietWait(t0, scs, t0.Add(time.Minute)); got > 0 {
		t.Errorf("a minute after healthz: wait %v", got)
	}
	if got := maxProbePeriod(scenarios()); got < 10*time.Second {
		t.Errorf("the scenarios' longest probe period is %v, want at least the default 10s", got)
	}
}

// TestLifetime: a Pod lives until the latest start podlint allows for a
// restart its scenario checks, when that is past its deleteAfter.
func TestLifetime(t *testing.T) {
	sc := &scenario{deleteAfter: 135, checks: restartChecks("app", "containers.app.livenessProbe.restarts", 2, false, "")}
	pred := predictionOf(t, `{"containers": [{"name": "app", "livenessProbe": {"restarts": [
		{"delay": [0, 0], "start": [5, 13.5]}, {"delay": [0, 60], "start": [65, 157]}, {"delay": [0, 60], "start": [150, 280]}]}}]}`)
	if got := lifetime(sc, pred); got != 160 {
		t.Errorf("lifetime %v, want 160 (restart 2 may start at 157)", got)
	}
	sc.checks = sc.checks[:1]
	if got := lifetime(sc, pred); got != 135 {
		t.Errorf("lifetime %v, want deleteAfter's 135", got)
	}
	unbounded := predictionOf(t, `{"containers": [{"name": "app", "livenessProbe": {"restarts": [{"delay": [0, 0], "start": [5, null]}]}}]}`)
	if got := lifetime(sc, unbounded); got != 135 {
		t.Errorf("lifetime %v with no upper edge, want deleteAfter's 135", got)
	}
}
