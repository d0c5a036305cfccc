package rules

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var SidecarReadinessGatesPod = &Rule{
	ID: "PL403", Name: "sidecar-readiness-gates-pod", Title: "readiness probe on a sidecar gates the whole Pod's readiness",
	Severity: finding.Info,
	Check: func(p *Pass) {
		if !p.Version.Sidecars() || p.Workload.Job != nil {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Sidecar || c.C.ReadinessProbe == nil {
				continue
			}
			detect := ""
			if tc := p.tlContainer(c); tc != nil && tc.Readiness != nil {
				rp := tc.Readiness
				detect = sprintf(" (%s after it stops answering: failureThreshold %g × periodSeconds %s)",
					intervalText(rp.NotReadyDetection.Interval), rp.FailureThreshold.V, timeline.FormatSeconds(rp.Period.V))
			}
			p.Report(Diagnostic{Path: c.Field("readinessProbe"), Container: c.C.Name,
				Message: sprintf("readiness probe of sidecar %q gates the Pod's readiness like an app container's: when it fails%s the whole Pod turns NotReady and leaves its Services' endpoints, even while %s %s healthy; keep it if the app cannot serve without %q, otherwise remove it (a startupProbe still orders start-up)",
					c.C.Name, detect, appContainers(p), isAre(len(p.Spec.Containers)), c.C.Name)})
		}
	},
}

// intervalText prints an interval as "21s–31s", "2m–2m20s", "30s" or
// "at least 5s".
func intervalText(i timeline.Interval) string {
	switch {
	case i.HiUnbounded:
		return "at least " + durText(i.Lo)
	case i.Exact():
		return durText(i.Lo)
	case i.Hi < 120:
		return timeline.FormatSeconds(i.Lo) + "–" + timeline.FormatSeconds(i.Hi)
	}
	return minutesText(i.Lo) + "–" + minutesText(i.Hi)
}

// spanText prints a span and says whether unknown terms come on top.
func spanText(s timeline.Span) (text string, plus bool) {
	return intervalText(s.Interval), len(s.Plus) > 0
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
