package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var LivenessWithRestartNever = &Rule{
	ID: "PL110", Name: "liveness-with-restart-never", Title: "liveness probe on a container that is never restarted",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		if p.Workload.Job != nil {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Regular || c.C.LivenessProbe == nil || probeErrors(c, c.C.LivenessProbe) {
				continue // an erroring probe never kills (PL108)
			}
			tc := p.tlContainer(c)
			if tc == nil || tc.Restarts {
				continue
			}
			cause, causePath := "the Pod's restartPolicy Never", p.SpecPath("restartPolicy")
			if c.C.RestartPolicy != nil && *c.C.RestartPolicy == corev1.ContainerRestartPolicyNever && p.Version.ContainerRestartRules() {
				cause, causePath = "its container-level restartPolicy Never", c.Field("restartPolicy")
			}
			end := "the Pod ends Failed and stays so"
			if p.IsLongRunning() {
				end = "once no container is left running the Pod fails and its controller replaces the whole Pod"
			} else if len(p.Spec.Containers) > 1 {
				end = "once the other containers end too, the Pod is Failed"
			}
			lv := defaulted(c.C.LivenessProbe)
			p.Report(Diagnostic{Path: c.Field("livenessProbe"), Container: c.C.Name,
				Message: fmt.Sprintf("liveness probe kills %q for good: it is never restarted", c.Name()),
				Detail: fmt.Sprintf("Because of %s, the first time its liveness probe fails %d times in a row the kubelet kills it and %s. Use restartPolicy OnFailure or Always if it should recover, or remove the liveness probe.",
					cause, int(lv.FT), end),
				Related: []Related{{Path: causePath, Message: "restart policy that prevents the restart"}}})
		}
	},
}
