package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
)

var ObservedProbeKills = &Rule{
	ID: "PL115", Name: "observed-probe-kills", Title: "the cluster saw a probe kill the container before it was ever Ready",
	Severity: finding.Error,
	Check: func(p *Pass) {
		if p.Params.Observed == nil {
			return
		}
		for _, c := range p.Containers() {
			if c.Type == Init {
				continue
			}
			o, ok := p.Params.Observed.Container(p.Workload, c.C.Name)
			if !ok || o.KillsBeforeReady == 0 {
				continue
			}
			reportObservedKills(p, c, o)
		}
	},
}

func reportObservedKills(p *Pass, c ContainerRef, o timeline.ObservedContainer) {
	probe, field := "liveness", "livenessProbe"
	switch {
	case c.C.StartupProbe != nil && (o.StartupProbeKills > 0 || c.C.LivenessProbe == nil):
		probe, field = "startup", "startupProbe"
	case c.C.LivenessProbe == nil:
		field = "" // the manifest no longer has the probe that killed
	}
	path := c.Path
	if field != "" {
		path = c.Field(field)
	}
	times := "once"
	if o.KillsBeforeReady > 1 {
		times = fmt.Sprintf("%d times", o.KillsBeforeReady)
	}
	seen := ""
	if o.NotReadyAfter > 0 {
		seen = fmt.Sprintf(", the killed runs not Ready after up to %s", dur(o.NotReadyAfter))
	}
	got := "No start in the profile got through."
	need := "a start-up longer than the longest killed run"
	if o.Starts > 0 {
		got = fmt.Sprintf("The starts that got through took up to %s.", dur(o.StartupMax))
		need = fmt.Sprintf("a start-up of at least %s", dur(o.StartupMax))
	}
	if o.NotReadyAfter > 0 && o.NotReadyAfter >= o.StartupMax {
		// The killed runs were still starting when they were killed: the
		// start-up the probe must allow is longer than those runs, however
		// fast the starts that got through were.
		need = fmt.Sprintf("a start-up of more than %s (the killed runs were still starting then)", dur(o.NotReadyAfter))
	}
	window := ""
	if tc := p.tlContainer(c); tc != nil && field == "livenessProbe" && tc.Liveness != nil {
		window = fmt.Sprintf(" The liveness probe kills it %s after start when it is not answering yet.", interval(tc.Liveness.KillDecision.Interval))
	}
	fix := fmt.Sprintf("Allow %s: add a startupProbe whose failureThreshold × periodSeconds covers it, or make the start faster.", need)
	if probe == "startup" {
		fix = fmt.Sprintf("Allow %s: raise the startup probe's failureThreshold × periodSeconds above it, or make the start faster.", need)
	}
	if field == "" {
		fix = "The probe that killed it is no longer in the manifest; if the new probes allow " + need + ", nothing is left to do."
	}
	p.Report(Diagnostic{Path: path, Container: c.C.Name,
		Message: fmt.Sprintf("the %s probe killed %q before it was ever Ready (%s in the cluster)", probe, c.Name(), kills(o.KillsBeforeReady)),
		Detail: fmt.Sprintf("podlint observe saw the kubelet kill %q %s before its Pod was Ready%s (%s): those starts were lost and restarted with back-off. %s%s %s",
			c.Name(), times, seen, p.Params.Observed.Source, got, window, fix)})
}

func kills(n int) string {
	if n == 1 {
		return "1 kill"
	}
	return fmt.Sprintf("%d kills", n)
}
