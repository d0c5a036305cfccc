package rules

import "github.com/podlint/podlint/finding"

var ActiveDeadlineOnController = &Rule{
	ID: "PL504", Name: "active-deadline-on-controller", Title: "activeDeadlineSeconds in a long-running controller's Pod template",
	Severity: finding.Error,
	Doc: `A Pod's ` + "`activeDeadlineSeconds`" + ` fails the Pod (reason ` + "`DeadlineExceeded`" + `) once it has run that long
([Pod activeDeadlineSeconds](../semantics.md#active-deadline)). That makes sense for a Pod that is meant to end; a Deployment, StatefulSet,
DaemonSet, ReplicaSet or ReplicationController keeps its Pods running, so the API server forbids
the field in their Pod templates ([V-11](../semantics.md#v-11), [R-6](../semantics.md#r-6): ` + "`activeDeadlineSeconds in ReplicaSet is not Supported`" + `;
a Deployment is checked like its ReplicaSet) and rejects the whole object.

**Fix:** remove ` + "`activeDeadlineSeconds`" + ` from the template. To bound an init container that waits for a
dependency, bound its command (` + "`timeout 300 …`" + `, see PL303); to run something for a limited time,
use a Job with ` + "`activeDeadlineSeconds`" + `.`,
	Check: func(p *Pass) {
		w := p.Workload
		if !builtinLongRunning(w) || p.Spec.ActiveDeadlineSeconds == nil {
			return
		}
		p.Reportf(p.SpecPath("activeDeadlineSeconds"), "activeDeadlineSeconds is forbidden in a %s Pod template; the API server rejects the %s (activeDeadlineSeconds … is not Supported), because its Pods are meant to keep running; remove it", w.Kind, w.Kind)
	},
}
