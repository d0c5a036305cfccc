package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
)

var ActiveDeadlineOnController = &Rule{
	ID: "PL504", Name: "active-deadline-on-controller", Title: "activeDeadlineSeconds in a long-running controller's Pod template",
	Severity: finding.Error,
	Check: func(p *Pass) {
		w := p.Workload
		if !builtinLongRunning(w) || p.Spec.ActiveDeadlineSeconds == nil {
			return
		}
		p.Report(Diagnostic{Path: p.SpecPath("activeDeadlineSeconds"),
			Message: fmt.Sprintf("activeDeadlineSeconds is forbidden in a %s Pod template", w.Kind),
			Detail:  fmt.Sprintf("The API server rejects the %s (activeDeadlineSeconds … is not Supported), because its Pods are meant to keep running. Remove it.", w.Kind)})
	},
}
