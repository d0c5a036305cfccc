package rules

import (
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var LivenessWithRestartNever = &Rule{
	ID: "PL110", Name: "liveness-with-restart-never", Title: "liveness probe on a container that is never restarted",
	Severity: finding.Warning,
	Doc: `A liveness probe exists to restart a container that is stuck. Under ` + "`restartPolicy: Never`" + ` (the
Pod's, or a container-level ` + "`restartPolicy: Never`" + ` where the ContainerRestartRules feature is on,
Kubernetes 1.35 and later) the kubelet kills the container on the liveness failure and does not
start it again ([P-19](../semantics.md#p-19), [R-2](../semantics.md#r-2); ` + "`restartPolicyRules`" + ` are not consulted for kills). The first
time the probe fails ` + "`failureThreshold`" + ` times in a row, the container is gone for good; once no
container is left running the Pod ends ` + "`Failed`" + `. A bare Pod then stays failed; a controller
replaces the whole Pod.

Under ` + "`OnFailure`" + ` a liveness kill *is* followed by a restart, even if the container exits 0 on
SIGTERM, so only ` + "`Never`" + ` is reported. Sidecars (init containers with ` + "`restartPolicy: Always`" + `) are always
restarted and not reported. Jobs and CronJobs are not reported either: there a failed Pod is the
Job's retry unit, and killing a hung Pod so the Job starts a new one (counted against
` + "`backoffLimit`" + `) is a legitimate use of a liveness probe.

**Fix:** for a bare Pod, use ` + "`restartPolicy: OnFailure`" + ` or ` + "`Always`" + ` if the container should recover, or
remove the liveness probe if failing is what you want (an ` + "`activeDeadlineSeconds`" + ` bounds a stuck
Pod without a probe). For a container-level ` + "`Never`" + `, remove either the policy or the probe.`,
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
				Message: sprintf("%q is never restarted (%s): the first time its liveness probe fails %d times in a row the kubelet kills it for good and %s; use restartPolicy OnFailure or Always if it should recover, or remove the liveness probe",
					c.C.Name, cause, int(lv.FT), end),
				Related: []Related{{Path: causePath, Message: "restart policy that prevents the restart"}}})
		}
	},
}
