package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
)

var SidecarReadinessGatesPod = &Rule{
	ID: "PL403", Name: "sidecar-readiness-gates-pod", Title: "readiness probe on a sidecar gates the whole Pod's readiness",
	Severity: finding.Info,
	Check: func(p *Pass) {
		if !p.Version.Sidecars() || p.Workload.Job != nil {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Sidecar || c.C.ReadinessProbe == nil || isMeshProxy(c.C.Name, c.C.Image) {
				continue // a mesh proxy's readiness should gate the Pod: every connection passes it
			}
			detect := ""
			if tc := p.tlContainer(c); tc != nil && tc.Readiness != nil {
				rp := tc.Readiness
				detect = fmt.Sprintf(", %s after it stops answering,", hangWindow(rp.FailureThreshold.V, spacingTerm(rp.Period.V, rp.Timeout.V, rp.Spacing), rp.Timeout.V))
			}
			p.Report(Diagnostic{Path: c.Field("readinessProbe"), Container: c.C.Name,
				Message: fmt.Sprintf("readiness probe of sidecar %q takes the whole Pod out of traffic when it fails", c.Name()),
				Detail: fmt.Sprintf("It gates the Pod's readiness like an app container's: when it fails%s the whole Pod turns NotReady and leaves its Services' endpoints, even while %s %s healthy. Keep it if the app cannot serve without %q, otherwise remove it (a startupProbe still orders start-up).",
					detect, appContainers(p), isAre(len(p.Spec.Containers)), c.Name())})
		}
	},
}
