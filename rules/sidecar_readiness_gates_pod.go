package rules

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var SidecarReadinessGatesPod = &Rule{
	ID: "PL403", Name: "sidecar-readiness-gates-pod", Title: "readiness probe on a sidecar gates the whole Pod's readiness",
	Severity: finding.Info,
	Doc: `A Pod is Ready when every regular container **and every sidecar** is ready ([PH-2](../semantics.md#ph-2), [P-20](../semantics.md#p-20)).
A readiness probe on a sidecar therefore counts like one on the app: when the sidecar fails it
` + "`failureThreshold`" + ` times in a row, the whole Pod turns NotReady and is removed from the endpoints of
its Services, even though the app itself is healthy. For a proxy in front of the app that is
what you want; for a log shipper, a metrics exporter or a config reloader it turns a side
problem into an outage.

The time from a hanging sidecar to the Pod leaving its Services is the readiness detection
([F-7](../semantics.md#f-7)): ` + "`[(FT−1)·Δ + T, FT·Δ + T)`" + ` with Δ = max(` + "`periodSeconds`" + `, ` + "`timeoutSeconds`" + `), 21–31 s with the
defaults.

Jobs are not reported: their Pods are rarely behind a Service. This rule is informational: it
points out a coupling that is easy to miss, not an error.

**Fix:** keep the probe if the app cannot serve without the sidecar; otherwise remove it. To order
start-up (the app starts only after the sidecar is up), use a ` + "`startupProbe`" + ` on the sidecar: it
holds back the containers declared after it and does not affect readiness later.`,
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
