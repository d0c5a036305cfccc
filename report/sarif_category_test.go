package report

import "testing"

// TestSARIFCategory: --category becomes runs[0].automationDetails.id with
// the trailing slash that makes it a category (SARIF §3.17.4); without a
// category the run has no automationDetails.
func TestSARIFCategory(t *testing.T) {
	for category, want := range map[string]string{
		"":               "",
		"podlint":        "podlint/",
		"podlint-prod/":  "podlint-prod/",
		" podlint/eu-1 ": "podlint/eu-1/",
		"k8s/staging/":   "k8s/staging/",
	} {
		opts := testOptions(t)
		opts.Category = category
		run := decodeSARIF(t, render(t, "sarif", fixtureResult(), opts)).Runs[0]
		switch {
		case want == "" && run.AutomationDetails != nil:
			t.Errorf("category %q: automationDetails %+v, want none", category, run.AutomationDetails)
		case want != "" && (run.AutomationDetails == nil || run.AutomationDetails.ID == nil):
			t.Errorf("category %q: no automationDetails.id", category)
		case want != "" && *run.AutomationDetails.ID != want:
			t.Errorf("category %q: automationDetails.id %q, want %q", category, *run.AutomationDetails.ID, want)
		}
	}
}
