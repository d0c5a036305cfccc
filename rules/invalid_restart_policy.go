package rules

import (
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var InvalidRestartPolicy = &Rule{
	ID: "PL301", Name: "invalid-restart-policy", Title: "restartPolicy is not allowed for this controller",
	Severity: finding.Error,
	Doc: `Controllers accept only some Pod restart policies, and the API server rejects any other:

| kind | allowed ` + "`restartPolicy`" + ` |
|---|---|
| Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController | ` + "`Always`" + ` (the default) |
| Job, CronJob | ` + "`OnFailure`" + ` or ` + "`Never`" + `; **must be set**, because the default ` + "`Always`" + ` is refused |

A long-running controller restarts failed containers itself and replaces Pods that end; a Job
counts failures and needs Pods that can end.

**Fix:** set ` + "`restartPolicy: Always`" + ` (or remove it) in long-running controllers; set
` + "`restartPolicy: OnFailure`" + ` or ` + "`Never`" + ` in Job templates.`,
	Check: func(p *Pass) {
		rp := p.Spec.RestartPolicy
		path := p.SpecPath("restartPolicy")
		w := p.Workload
		switch {
		case w.Job != nil:
			if rp == corev1.RestartPolicyOnFailure || rp == corev1.RestartPolicyNever {
				return
			}
			if rp == "" {
				if p.IsFragment() {
					return // a kustomize patch: the base sets the policy
				}
				p.Reportf(path, "%s pod template has no restartPolicy; it defaults to Always, which the API server rejects for Jobs; set restartPolicy: OnFailure or Never", w.Kind)
				return
			}
			p.Reportf(path, "%s pods may not use restartPolicy %s; the API server rejects the object; use OnFailure (retry in place) or Never (new Pod per retry)", w.Kind, rp)
		case w.Deployment != nil || w.StatefulSet != nil || w.DaemonSet != nil || w.ReplicaSet != nil || w.ReplicationController != nil:
			if rp == "" || rp == corev1.RestartPolicyAlways {
				return
			}
			p.Reportf(path, "%s pods must use restartPolicy Always, not %s; the API server rejects the object; remove the field or set Always", w.Kind, rp)
		default:
			if rp != "" && rp != corev1.RestartPolicyAlways && rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever {
				p.Reportf(path, "restartPolicy %q is not one of Always, OnFailure, Never; the API server rejects the Pod", rp)
			}
		}
	},
}
