package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var InitContainerLifecycleFields = &Rule{
	ID: "PL401", Name: "init-container-lifecycle-fields", Title: "init container sets probes or lifecycle hooks",
	Severity: finding.Error,
	Check: func(p *Pass) {
		for _, c := range p.Containers() {
			if c.Type != Init {
				continue
			}
			check := func(set bool, field string) {
				if set {
					p.Report(Diagnostic{Path: c.Field(field), Container: c.C.Name,
						Message: fmt.Sprintf("init container %q sets %s, which the API server rejects", c.Name(), field),
						Detail:  fmt.Sprintf("Init containers without restartPolicy: Always may not set %s. Remove it, or make the container a sidecar with restartPolicy: Always.", field)})
				}
			}
			check(c.C.LivenessProbe != nil, "livenessProbe")
			check(c.C.ReadinessProbe != nil, "readinessProbe")
			check(c.C.StartupProbe != nil, "startupProbe")
			check(c.C.Lifecycle != nil, "lifecycle")
		}
	},
}
