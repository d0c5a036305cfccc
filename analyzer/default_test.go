package analyzer

import (
	"slices"
	"testing"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/rules"
)

// TestDefault: Default runs every rule that is not off by default at its
// own severity, and the options change only what they say.
func TestDefault(t *testing.T) {
	t.Parallel()
	l := Default()
	offByDefault := 0
	for _, r := range rules.All {
		want := r.Severity
		if r.DefaultOff {
			want = finding.Off
			offByDefault++
		}
		if got := l.Severity[r]; got != want {
			t.Errorf("Default: %s at %v, want %v", r.ID, got, want)
		}
	}
	if offByDefault == 0 || len(l.Severity) != len(rules.All)-offByDefault {
		t.Errorf("Default enables %d rules of %d, %d off by default", len(l.Severity), len(rules.All), offByDefault)
	}
	other := Default()
	other.Severity[rules.BestEffortQoS] = finding.Error
	if l.Severity[rules.BestEffortQoS] == finding.Error {
		t.Error("two Default linters share their severities")
	}

	every := Default(Enable(rules.All...))
	for _, r := range rules.All {
		if every.Severity[r] != r.Severity {
			t.Errorf("Enable(rules.All...): %s at %v, want %v", r.ID, every.Severity[r], r.Severity)
		}
	}

	own := &rules.Rule{ID: "PL998", Name: "test-rule", Severity: finding.Info, Check: func(*rules.Pass) {}}
	only := Default(Only(rules.BestEffortQoS, own))
	if len(only.Severity) != 2 || only.Severity[rules.BestEffortQoS] != finding.Info || only.Severity[own] != finding.Info {
		t.Errorf("Only(PL601, own rule): severities %v", only.Severity)
	}
	if only.Rules.Lookup("PL998") != own || rules.Lookup("PL998") != nil || len(only.Rules) != len(rules.All)+1 {
		t.Errorf("Only(own rule): the catalog has %d rules, want rules.All and the rule (rules.All untouched)", len(only.Rules))
	}
	if !slices.Equal(Default().Rules, rules.All) {
		t.Error("Default's catalog is not rules.All")
	}
}
