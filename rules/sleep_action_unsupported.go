package rules

import (
	"fmt"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

var SleepActionUnsupported = &Rule{
	ID: "PL207", Name: "sleep-action-unsupported", Title: "sleep hook is not available on this Kubernetes version",
	Severity: finding.Error,
	Check: func(p *Pass) {
		v := p.Version
		for _, h := range p.Hooks() {
			if h.H.Sleep == nil {
				continue
			}
			name := h.Container.Name()
			report := func(path workload.Path, headline, format string, args ...any) {
				p.Report(Diagnostic{Path: path, Container: name.Name, Message: headline, Detail: fmt.Sprintf(format, args...)})
			}
			alt := `Use an exec hook such as ["sleep", "5"] instead`
			if h.Kind == "preStop" && h.H.Sleep.Seconds > 0 {
				alt = fmt.Sprintf(`Use an exec hook such as ["sleep", "%d"] instead`, h.H.Sleep.Seconds)
			}
			switch {
			case v.PodLifecycleSleepAction() == timeline.Absent:
				report(h.Field("sleep"), fmt.Sprintf("%s of %q uses the sleep action, which Kubernetes %s does not know", h.Kind, name, v),
					"The API server rejects the Pod (unknown field, or a hook without a handler once the field is pruned). %s, or raise --kube-version if the cluster runs 1.30 or later.",
					alt)
			case !v.SleepAction():
				what := "SIGTERM comes without the intended delay"
				if h.Kind == "postStart" {
					what = "the container starts without the intended pause"
				}
				report(h.Field("sleep"), fmt.Sprintf("%s of %q uses the sleep action, which Kubernetes %s drops", h.Kind, name, v),
					"The sleep action is alpha and off by default on Kubernetes %s (PodLifecycleSleepAction, on since 1.30): the API server silently drops the hook, so %s. %s, or raise --kube-version if the cluster runs 1.30 or later.",
					v, what, alt)
			case h.H.Sleep.Seconds == 0 && !v.SleepZero():
				report(h.Field("sleep.seconds"), fmt.Sprintf("%s of %q sleeps 0s, which Kubernetes %s rejects", h.Kind, name, v),
					"sleep.seconds must be greater than 0 before PodLifecycleSleepActionAllowZero (on since 1.33). Remove the hook, which would do nothing anyway, or sleep at least 1s.")
			}
		}
	},
}
