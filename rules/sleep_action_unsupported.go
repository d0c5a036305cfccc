package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var SleepActionUnsupported = &Rule{
	ID: "PL207", Name: "sleep-action-unsupported", Title: "sleep hook is not available on this Kubernetes version",
	Severity: finding.Error,
	Doc: `The ` + "`sleep`" + ` lifecycle handler (` + "`preStop: {sleep: {seconds: 5}}`" + `) is newer than most clusters it
meets. It depends on the target version (` + "`--kube-version`" + `):

| version | what happens to ` + "`sleep`" + ` |
|---|---|
| ≤ 1.28 | the API does not have the field: with kubectl's default strict field validation the Pod is rejected (` + "`unknown field`" + `); without it the field is pruned and the hook, left with no handler, is rejected (` + "`must specify a handler type`" + `) |
| 1.29 | feature gate ` + "`PodLifecycleSleepAction`" + ` is alpha and off: the API server **silently drops** the handler and the hook, so the container gets SIGTERM without any delay |
| 1.30 – 1.32 | on (beta); ` + "`seconds`" + ` must be at least 1: ` + "`seconds: 0`" + ` is rejected (` + "`must be greater than 0`" + `) |
| ≥ 1.33 | ` + "`seconds: 0`" + ` is accepted too (` + "`PodLifecycleSleepActionAllowZero`" + `, beta 1.33, GA 1.34) |

The same applies to ` + "`postStart`" + `. The silent case is the dangerous one: the manifest looks like it
drains traffic before SIGTERM, and on a 1.29 cluster it does nothing.

**Fix:** on older clusters use an ` + "`exec`" + ` hook, ` + "`[\"sleep\", \"5\"]`" + ` (the image needs a ` + "`sleep`" + `
binary), or raise ` + "`--kube-version`" + ` if the cluster is newer. Drop a ` + "`seconds: 0`" + ` hook before 1.33: it
does nothing anyway.`,
	Check: func(p *Pass) {
		v := p.Version
		for _, h := range p.Hooks() {
			if h.H.Sleep == nil {
				continue
			}
			name := h.Container.C.Name
			report := func(path, headline, format string, args ...any) {
				p.Report(Diagnostic{Path: path, Container: name, Message: headline, Detail: fmt.Sprintf(format, args...)})
			}
			alt := `Use an exec hook such as ["sleep", "5"] instead`
			if h.Kind == "preStop" && h.H.Sleep.Seconds > 0 {
				alt = fmt.Sprintf(`Use an exec hook such as ["sleep", "%d"] instead`, h.H.Sleep.Seconds)
			}
			switch {
			case !v.AtLeast(29):
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
