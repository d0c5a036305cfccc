package gendocs

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/rules"
)

// fixBlock is the table of rules with fixes in docs/fix.md, written from
// the rules themselves (Rule.Fix): a table written by hand left out PL104,
// the rule with the most fixes in the corpus.
var fixBlock = regexp.MustCompile("(?s)(<!-- fixes: rules -->\n).*?(<!-- /fixes -->)")

// fixDoc replaces the generated table of doc (docs/fix.md).
func fixDoc(doc []byte, all rules.List) ([]byte, error) {
	if len(fixBlock.FindAllIndex(doc, -1)) != 1 {
		return nil, fmt.Errorf("docs/fix.md: want one <!-- fixes: rules --> … <!-- /fixes --> block")
	}
	table := fixTable(all)
	return fixBlock.ReplaceAllFunc(doc, func(m []byte) []byte {
		sub := fixBlock.FindSubmatch(m)
		return []byte(string(sub[1]) + table + string(sub[2]))
	}), nil
}

// fixTable lists every rule that offers a fix, in the order of the rules.
func fixTable(all rules.List) string {
	var b strings.Builder
	b.WriteString("| rule | fix | default fix |\n|---|---|---|\n")
	for _, r := range all {
		if r.Fix == nil {
			continue
		}
		safety := "safe"
		if r.Fix.Safety != finding.Safe {
			safety = "unsafe"
		}
		fmt.Fprintf(&b, "| [%s](rules/%s.md) %s | %s | %s |\n", r.ID, r.ID, r.Name, strings.ReplaceAll(r.Fix.Text, "|", `\|`), safety)
	}
	return b.String()
}
