package render

import (
	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
)

// Lint renders one root and lints it as podlint check does: the loader
// (analyzer.Linter.Root) with o.Open as its render stage. The tests of this
// package read findings through it; render itself imports neither analyzer
// nor rules (TestImports).
func (o *Options) Lint(cfg *analyzer.Linter, src manifest.Source) ([]finding.Finding, finding.Summary, error) {
	c := *cfg
	c.Open = o.Open
	return c.Root(src)
}
