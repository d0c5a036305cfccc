package rules

import (
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var InvalidRestartPolicy = &Rule{
	ID: "PL301", Name: "invalid-restart-policy", Title: "restartPolicy is not allowed for this controller",
	Severity: finding.Error,
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
