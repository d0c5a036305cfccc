package report

import (
	"github.com/podlint/podlint/finding"
)

// CodeClimateIssue is one entry of the codeclimate format, the subset of
// the Code Climate issue spec that GitLab Code Quality reads
// (artifacts:reports:codequality). It is exported so that tests and tools
// embedding podlint can decode the output into the documented shape.
type CodeClimateIssue struct {
	Type           string                `json:"type"` // always "issue"
	CheckName      string                `json:"check_name"`
	Description    string                `json:"description"`
	Categories     []string              `json:"categories"`
	Severity       string                `json:"severity"`
	Fingerprint    string                `json:"fingerprint"`
	Location       CodeClimateLocation   `json:"location"`
	OtherLocations []CodeClimateLocation `json:"other_locations,omitempty"`
	EngineName     string                `json:"engine_name"`
}

// CodeClimateLocation is a path relative to Options.SrcRoot (GitLab wants
// it relative to the repository root) and a line range.
type CodeClimateLocation struct {
	Path  string           `json:"path"`
	Lines CodeClimateLines `json:"lines"`
}

// CodeClimateLines is a 1-based inclusive line range.
type CodeClimateLines struct {
	Begin int `json:"begin"`
	End   int `json:"end"`
}

// codeClimateSeverity maps severities the way GitLab's own ESLint and
// RuboCop integrations do: error → major, warning → minor, info → info.
// "critical" and "blocker" are left for security scanners; a podlint error
// is a pod that will misbehave at runtime, serious but not an exploit. A
// finding below --fail-on is "info" whatever its severity, so that GitLab's
// Code Quality widget ranks as problems exactly what fails the pipeline.
func codeClimateSeverity(f *finding.Finding, opts *Options) string {
	if !opts.fails(f) {
		return "info"
	}
	switch f.Severity {
	case finding.Error:
		return "major"
	case finding.Warning:
		return "minor"
	}
	return "info"
}

// writeCodeClimate prints a JSON array (never null: GitLab rejects a report
// that is not an array). The fingerprint is the MD5 hex GitLab expects,
// computed like the SARIF one (rule, file, object, container, message and
// an occurrence number, not the line) so a merge request that only moves
// lines shows no new or fixed issues.
//
// The issues are encoded one at a time, as they would be in the whole
// array (writeJSONArray).
func writeCodeClimate(w sink, res *finding.Result, opts Options) error {
	fp := newFingerprinter(md5Hash)
	if err := writeJSONArray(w, "[", "  ", res.Len(), func(i int) any {
		v := res.At(i)
		f := &v
		rel := relPath(opts.SrcRoot, f.File)
		line, _ := clampPos(f.Line, 1)
		issue := CodeClimateIssue{
			Type:        "issue",
			CheckName:   f.RuleID + " " + f.RuleName,
			Description: codeClimateDescription(f),
			// Every podlint rule predicts a runtime failure (kills,
			// restarts, stuck rollouts), which is Code Climate's
			// "Bug Risk".
			Categories:  []string{"Bug Risk"},
			Severity:    codeClimateSeverity(f, &opts),
			Fingerprint: fp.of(f, rel),
			Location:    CodeClimateLocation{Path: rel, Lines: CodeClimateLines{line, line}},
			EngineName:  "podlint",
		}
		for _, r := range f.Related {
			rl, _ := clampPos(r.Line, 1)
			issue.OtherLocations = append(issue.OtherLocations,
				CodeClimateLocation{Path: relPath(opts.SrcRoot, r.File), Lines: CodeClimateLines{rl, rl}})
		}
		return &issue
	}); err != nil {
		return err
	}
	_, err := w.WriteString("\n")
	return err
}

// codeClimateDescription is the headline, with the detail after it: GitLab
// shows the description in one line of its widget and in full on hover.
func codeClimateDescription(f *finding.Finding) string {
	if d := f.Explanation(); d != "" {
		return f.Headline() + ". " + d
	}
	return f.Headline()
}
