package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

const (
	beginMark = "<!-- e2e-kubelet results: begin -->"
	endMark   = "<!-- e2e-kubelet results: end -->"
)

func renderTable(c config, res []result, took []time.Duration) string {
	var b strings.Builder
	pass := 0
	for _, r := range res {
		if r.verdict == "pass" {
			pass++
		}
	}
	scen := map[string]bool{}
	for _, r := range res {
		scen[r.scenario] = true
	}
	fmt.Fprintf(&b, "Kubelet %s (standalone, containerd 1.6, runc, cgroupfs), %s, %d scenario(s) × %d run(s), %d checks: **%d inside the predicted interval**, %d not. The runs took %s (wall clock each, set-up and tear-down excluded). Tolerance: ±%s s unless the row says otherwise.\n\n",
		c.kubeVersion, runtime.GOARCH, len(scen), len(took), len(res), pass, len(res)-pass, durations(took), num(defaultTolerance))
	b.WriteString("| Scenario | Run | Quantity | podlint JSON | Predicted (s) | Observed (s) | Verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range res {
		obs := num(r.obs)
		if r.verdict == "error" {
			obs = "— (" + mdEscape(r.why) + ")"
		}
		verdict := r.verdict
		if r.tol != defaultTolerance && r.verdict != "error" {
			verdict += fmt.Sprintf(" (±%s)", num(r.tol))
		}
		if r.note != "" {
			verdict += "; " + mdEscape(r.note)
		}
		pred := r.pred.String()
		if r.verdict == "error" && r.pred == (interval{}) {
			pred = "—"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | `%s` | %s | %s | %s |\n", r.scenario, r.run, mdEscape(r.quantity), r.field, pred, obs, verdict)
	}
	return b.String()
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// writeDoc replaces the results between the markers of the Markdown file,
// keeping the hand-written explanation around them.
func writeDoc(path, table string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i, j := strings.Index(s, beginMark), strings.Index(s, endMark)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q … %q section to fill", path, beginMark, endMark)
	}
	s = s[:i+len(beginMark)] + "\n" + table + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}

func durations(ds []time.Duration) string {
	var parts []string
	for _, d := range ds {
		parts = append(parts, d.Round(time.Second).String())
	}
	return strings.Join(parts, ", ")
}
