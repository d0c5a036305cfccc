package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var MissingReadinessProbe = &Rule{
	ID: "PL111", Name: "missing-readiness-probe", Title: "serving container of a long-running workload has no readiness probe",
	Severity: finding.Info,
	Check: func(p *Pass) {
		if !p.IsLongRunning() || p.IsFragment() {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Regular || len(c.C.Ports) == 0 || c.C.ReadinessProbe != nil {
				continue
			}
			when := "as soon as it runs"
			if c.C.StartupProbe != nil {
				when = "as soon as its startup probe passes"
			}
			p.Report(Diagnostic{Path: c.Path, Container: c.C.Name,
				Message: fmt.Sprintf("container %q declares port %d but has no readinessProbe", c.Name(), c.C.Ports[0].ContainerPort),
				Detail: fmt.Sprintf("It counts as Ready %s, so Services send it traffic before it can answer at every start and rollout, and keep doing so when it stops serving. Add a readinessProbe on the port it serves.",
					when)})
		}
	},
}
