package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

const (
	beginMark = "<!-- e2e-cluster results: begin -->"
	endMark   = "<!-- e2e-cluster results: end -->"
)

// renderTable writes the controller section: a row per check with the
// runs side by side, the predicted interval and its width, and a verdict
// over every run.
func renderTable(c config, rows []row, scs []*scenario, took []time.Duration) string {
	var b strings.Builder
	n := counts(rows)
	fmt.Fprintf(&b, "Kubernetes %s (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kubelet built from source; one node; containerd 1.6, runc, cgroup v1, cgroupfs), %s, %d scenarios × %d run(s), %s, %d checks: **%d inside the predicted interval**, %d outside, %d not checked (podlint gives no upper bound), %d not observed. The runs took %s. Tolerance: ±%s s unless the row says otherwise.\n\n",
		c.kubeVersion, runtime.GOARCH, len(scs), len(took), atOnce(c.batch, len(scs)), len(rows), n[inside], n[outside], n[notChecked], n[notSeen], durations(took), num(defaultTolerance))
	b.WriteString("| Scenario | Quantity | podlint JSON | Predicted (s) | Width (s) | Observed per run (s) | Verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		pred, width := r.pred.String(), r.pred.width()
		if r.predErr != nil {
			pred, width = "— ("+r.predErr.Error()+")", "—"
		}
		v0 := r.verdict()
		v := v0
		if r.tol != defaultTolerance {
			v += fmt.Sprintf(" (±%s)", num(r.tol))
		}
		if r.note != "" {
			v += "; " + r.note
		}
		if r.ifOutside != "" && v0 == outside {
			v += "; " + r.ifOutside
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s | %s | %s |\n", r.scenario, cell(r.quantity), r.field, pred, width, cell(r.observed()), cell(v))
	}
	b.WriteString("\nWhat each scenario expects, read from the controllers' source before podlint's prediction was looked at:\n\n")
	for _, sc := range scs {
		fmt.Fprintf(&b, "- **%s**: %s\n", sc.name, cell(sc.expect))
	}
	return b.String()
}

// atOnce says how many scenarios shared the node at a time: what the
// node-side terms of the observed values depend on.
func atOnce(batch, scenarios int) string {
	if batch <= 0 || batch >= scenarios {
		return "all scenarios of a run at once"
	}
	return fmt.Sprintf("at most %d scenarios at once (in %d groups one after another)", batch, (scenarios+batch-1)/batch)
}

// cell keeps a table cell one cell: no pipe, no line break.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// writeDoc replaces the text between the markers of the Markdown file,
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
