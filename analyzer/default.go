package analyzer

import (
	"slices"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/rules"
	"github.com/podlint/podlint/timeline"
)

// Default returns the engine as podlint ships it: the catalog rules.All,
// every rule on at its default severity except those off by default
// (Rule.DefaultOff), the newest Kubernetes minor podlint models, the
// model's default parameters and the default limits; no policies, no
// rendering. That is what `podlint check` runs with no flag and no
// configuration file, so a test that starts from it tests what users run
// and changes only what it is about, with opts or by setting a field of
// the Linter it gets (each call returns a Linter of its own).
func Default(opts ...Option) *Linter {
	l := &Linter{Rules: rules.All, Severity: make(map[*rules.Rule]finding.Severity, len(rules.All)),
		Version: timeline.Latest, Params: timeline.DefaultParams(), Limits: manifest.DefaultLimits}
	for _, r := range rules.All {
		if !r.DefaultOff {
			l.Severity[r] = r.Severity
		}
	}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Option changes the Linter that Default returns.
type Option func(*Linter)

// Only runs exactly rs, each at its default severity: a rule's test sees
// its own findings and no other rule's. A rule that is not in the catalog
// (a test's own, such as one that panics) joins it.
func Only(rs ...*rules.Rule) Option {
	return func(l *Linter) {
		clear(l.Severity)
		Enable(rs...)(l)
	}
}

// Enable runs rs as well, each at its default severity: the rules that are
// off by default, or every rule with Enable(rules.All...). A rule that is
// not in the catalog joins it.
func Enable(rs ...*rules.Rule) Option {
	return func(l *Linter) {
		for _, r := range rs {
			if !slices.Contains(l.Rules, r) {
				// Clip: never append into the backing array of rules.All.
				l.Rules = append(slices.Clip(l.Rules), r)
			}
			l.Severity[r] = r.Severity
		}
	}
}
