package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/rules"
)

// budgets is deployments Deployments and pdbs PodDisruptionBudgets (with
// maxUnavailable: 1, so that only their overlap is wrong), all over Pods
// labelled app: web.
func budgets(deployments, pdbs int) []byte {
	var b strings.Builder
	for i := range deployments {
		fmt.Fprintf(&b, "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-%d}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: web:1}]\n", i)
	}
	for i := range pdbs {
		fmt.Fprintf(&b, "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb-%d}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: web}}\n", i)
	}
	return []byte(b.String())
}

// TestPDBOverlapOncePerSet: n budgets over the same Pods are one PL703
// finding with the n−1 other budgets and the Pods as related positions,
// whatever n and however many workloads share those Pods; one finding per
// pair made 800 budgets 320 400 warnings (38 MB of report).
func TestPDBOverlapOncePerSet(t *testing.T) {
	cfg := analyzer.Default(analyzer.Only(rules.PDBBlocksDrain))
	for _, c := range []struct{ deployments, pdbs int }{{1, 100}, {1, 200}, {50, 50}, {100, 100}} {
		fs, _ := cfg.File("b.yaml", budgets(c.deployments, c.pdbs), true)
		var overlaps, related int
		for _, f := range fs {
			if f.RuleID != "PL703" {
				t.Fatalf("%d Deployments, %d budgets: unexpected %s: %s", c.deployments, c.pdbs, f.RuleID, f.Message)
			}
			overlaps++
			related += len(f.Related)
		}
		if overlaps != 1 || related != c.pdbs {
			t.Errorf("%d Deployments, %d budgets: %d PL703 findings with %d related positions; want 1 with %d (the other budgets and the Pods)",
				c.deployments, c.pdbs, overlaps, related, c.pdbs)
		}
	}
}
