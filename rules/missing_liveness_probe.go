package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var MissingLivenessProbe = &Rule{
	ID: "PL112", Name: "missing-liveness-probe", Title: "serving container of a long-running workload has no liveness probe",
	Severity: finding.Warning, DefaultOff: true,
	Check: func(p *Pass) {
		if !p.IsLongRunning() || p.IsFragment() {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Regular || len(c.C.Ports) == 0 || c.C.LivenessProbe != nil {
				continue
			}
			p.Report(Diagnostic{Path: c.Path, Container: c.C.Name,
				Message: fmt.Sprintf("container %q declares port %d but has no livenessProbe", c.Name(), c.C.Ports[0].ContainerPort),
				Detail:  "If it hangs without exiting, nothing restarts it. Add a livenessProbe that checks only the process itself (not its dependencies)."})
		}
	},
}
