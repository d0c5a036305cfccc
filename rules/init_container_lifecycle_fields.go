package rules

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
						Message: sprintf("init container %q sets %s, which the API server rejects for init containers without restartPolicy: Always; remove it, or make the container a sidecar with restartPolicy: Always", c.C.Name, field)})
				}
			}
			check(c.C.LivenessProbe != nil, "livenessProbe")
			check(c.C.ReadinessProbe != nil, "readinessProbe")
			check(c.C.StartupProbe != nil, "startupProbe")
			check(c.C.Lifecycle != nil, "lifecycle")
		}
	},
}
