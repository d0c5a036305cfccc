package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

var InvalidRestartPolicy = &Rule{
	ID: "PL301", Name: "invalid-restart-policy", Title: "restartPolicy is not allowed for this controller",
	Severity: finding.Error,
	Fix: &FixDoc{Safety: finding.Safe, Text: "For a Deployment, StatefulSet, DaemonSet, ReplicaSet or ReplicationController, sets restartPolicy to Always, the only value allowed (safe). " +
		"For a Job, sets OnFailure, or Never as the alternative (unsafe: the two retry differently)."},
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
				p.Report(Diagnostic{Path: path, Message: fmt.Sprintf("%s pod template has no restartPolicy, and the default Always is rejected", w.Kind),
					Detail: "restartPolicy defaults to Always, which the API server rejects for Jobs. Set restartPolicy: OnFailure or Never.",
					Fixes:  jobRestartPolicyFixes(p, path)})
				return
			}
			p.Report(Diagnostic{Path: path, Message: fmt.Sprintf("%s pods may not use restartPolicy %s", w.Kind, rp),
				Detail: "The API server rejects the object. Use OnFailure (retry in place) or Never (new Pod per retry).",
				Fixes:  jobRestartPolicyFixes(p, path)})
		case w.Deployment != nil || w.StatefulSet != nil || w.DaemonSet != nil || w.ReplicaSet != nil || w.ReplicationController != nil:
			if rp == "" || rp == corev1.RestartPolicyAlways {
				return
			}
			p.Report(Diagnostic{Path: path, Message: fmt.Sprintf("%s pods must use restartPolicy Always, not %s", w.Kind, rp),
				Detail: "The API server rejects the object. Remove the field or set Always.",
				Fixes:  []Fix{{Title: "Set restartPolicy to Always", Safety: finding.Safe, Ops: []manifest.Op{setOp(path, "Always")}}}})
		default:
			if rp != "" && rp != corev1.RestartPolicyAlways && rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever {
				p.Report(Diagnostic{Path: path, Message: fmt.Sprintf("restartPolicy %q is not one of Always, OnFailure, Never", rp),
					Detail: "The API server rejects the Pod."})
			}
		}
	},
}

// jobRestartPolicyFixes sets a Job's restartPolicy to OnFailure or, as the
// alternative, Never: both are valid and they retry differently (in place,
// or with a new Pod), so neither is safe.
func jobRestartPolicyFixes(p *Pass, path workload.Path) []Fix {
	var out []Fix
	for _, v := range []string{"OnFailure", "Never"} {
		out = append(out, Fix{Title: "Set restartPolicy to " + v, Safety: finding.Unsafe, Ops: []manifest.Op{p.setOrInsert(path, v)}})
	}
	return out
}
