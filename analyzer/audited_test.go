package analyzer

import (
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/rules"
)

// TestAuditedSuppressions: a finding of an audited rule (an organisation
// policy) is hidden only by a suppression that gives a reason, and each one
// hidden is kept, with the reason, for the summary; the rule's check comes
// from Linter.Checks, and a diagnostic's own severity wins over the rule's.
func TestAuditedSuppressions(t *testing.T) {
	t.Parallel()
	audited := &rules.Rule{ID: "PL990", Name: "audited", Title: "an audited rule", Severity: finding.Error, Audited: true}
	cfg := Default(Only(audited, rules.SuppressionMissingReason, rules.UnusedSuppression))
	cfg.Checks = map[*rules.Rule]func(*rules.Pass){audited: func(p *rules.Pass) {
		p.Report(rules.Diagnostic{Path: p.SpecPath("containers").Index(0).Field("image"), Message: "reported", Severity: finding.Warning})
	}}
	const file = `apiVersion: v1
kind: Pod
metadata:
  name: annotated
  annotations:
    ignore-check.podlint.dev/audited: "exempt until the migration"
spec:
  containers:
    - name: app
      image: example/app:1
---
apiVersion: v1
kind: Pod
metadata: {name: commented}
spec:
  containers:
    - name: app
      image: example/app:1 # podlint:ignore PL990 measured: starts in 2s
---
apiVersion: v1
kind: Pod
metadata: {name: no-reason}
spec:
  containers:
    - name: app
      image: example/app:1 # podlint:ignore PL990
`
	fs, sum := cfg.File("pods.yaml", []byte(file), true)
	var got []string
	for _, f := range fs {
		got = append(got, f.RuleID+" "+f.Severity.String()+" "+f.Message)
	}
	want := []string{
		"PL990 warning reported",
		"PL011 warning suppression of PL990 (audited) gives no reason",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var hidden []string
	for _, s := range sum.Suppressed {
		hidden = append(hidden, s.Object.Name+" "+s.RuleID+" "+s.Reason)
	}
	wantHidden := []string{"annotated PL990 exempt until the migration", "commented PL990 measured: starts in 2s"}
	if strings.Join(hidden, "\n") != strings.Join(wantHidden, "\n") {
		t.Errorf("summary.Suppressed:\n%s\nwant\n%s", strings.Join(hidden, "\n"), strings.Join(wantHidden, "\n"))
	}
	for _, f := range fs {
		if f.RuleID == rules.SuppressionMissingReason.ID && !strings.Contains(f.Detail, "suppresses nothing") {
			t.Errorf("PL011 does not say that the suppression of an audited rule suppresses nothing: %s", f.Detail)
		}
	}
}
