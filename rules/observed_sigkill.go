package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
)

var ObservedSIGKILL = &Rule{
	ID: "PL208", Name: "observed-sigkill-shutdown", Title: "the cluster saw deletions of the container end in SIGKILL",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		if p.Params.Observed == nil {
			return
		}
		g := p.GracePeriod()
		for _, c := range p.Containers() {
			if c.Type == Init {
				continue
			}
			o, ok := p.Params.Observed.Container(p.Workload, c.C.Name)
			if !ok || o.SIGKILLs == 0 {
				continue
			}
			path := g.Path
			if !g.Set {
				path = c.Path
			}
			of := fmt.Sprintf("%d of %d", o.SIGKILLs, o.Shutdowns)
			p.Report(Diagnostic{Path: path, Container: c.C.Name, Related: []Related{g.Related()},
				Message: fmt.Sprintf("%s deletions of %q ended in SIGKILL, in the cluster", of, c.Name()),
				Detail: fmt.Sprintf("podlint observe saw %s deletions of %q end with exit code 137 (%s): the container was still running when %s ran out, and what it was doing was lost. The longest shutdown took %s from the deletion. Make the application exit soon after SIGTERM, or set terminationGracePeriodSeconds above the time it needs.",
					of, c.Name(), p.Params.Observed.Source, g.Describe(), dur(o.ShutdownMax))})
		}
	},
}
