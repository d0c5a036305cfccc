package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var SidecarUnsupported = &Rule{
	ID: "PL402", Name: "sidecar-unsupported", Title: "sidecar container on a Kubernetes version without sidecars",
	Severity: finding.Error,
	Check: func(p *Pass) {
		if p.Version.Sidecars() {
			return
		}
		n := len(p.Spec.InitContainers)
		for i, c := range p.Containers() {
			if c.Type != Sidecar {
				continue
			}
			fate := "drops restartPolicy silently"
			if p.Version.SidecarContainers() == timeline.Absent {
				fate = "does not know restartPolicy on init containers (kubectl rejects the unknown field; applied without validation, the server drops it)"
			}
			p.Report(Diagnostic{Path: c.Field("restartPolicy"), Container: c.C.Name,
				Message: fmt.Sprintf("init container %q is a sidecar (restartPolicy: Always), which needs Kubernetes 1.29", c.Name()),
				Detail: fmt.Sprintf("Kubernetes %s %s, so it runs as a regular init container that the next containers wait for: if it keeps running, the Pod stays in Init:%d/%d and %s. Upgrade the cluster, or move it to containers.",
					p.Version, fate, i, n, neverStart(p))})
		}
	},
}
