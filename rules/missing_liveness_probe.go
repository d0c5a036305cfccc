package rules

import "fmt"

import "github.com/podlint/podlint/finding"

var MissingLivenessProbe = &Rule{
	ID: "PL112", Name: "missing-liveness-probe", Title: "serving container of a long-running workload has no liveness probe",
	Severity: finding.Warning, DefaultOff: true,
	Doc: `Without a liveness probe, a container that deadlocks or hangs without exiting keeps running until
someone deletes the Pod; the kubelet restarts only containers that exit. A liveness probe lets the
kubelet notice the hang and restart the container.

This rule is **off by default**: a liveness probe that checks too much does more harm than none (it
restarts healthy containers when a dependency is slow, see ` + "`liveness-equals-readiness`" + `), and many
applications crash rather than hang. Enable it where your policy requires liveness probes.

Like ` + "`missing-readiness-probe`" + `, it looks only at regular containers that declare ` + "`ports`" + ` in workloads
whose Pods are meant to keep running (Deployment, StatefulSet, DaemonSet, ReplicaSet,
ReplicationController, custom resources with a Pod template); never at Jobs, CronJobs, bare Pods,
init containers, sidecars or patch fragments (a container without an ` + "`image`" + `).

**Fix:** add a ` + "`livenessProbe`" + ` that checks only that the process itself can make progress (no
dependencies), lenient enough not to fire during a load spike; add a startup probe if the
application starts slowly.`,
	Check: func(p *Pass) {
		if !p.IsLongRunning() || p.IsFragment() {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Regular || len(c.C.Ports) == 0 || c.C.LivenessProbe != nil {
				continue
			}
			p.Report(Diagnostic{Path: c.Path, Container: c.C.Name,
				Message: fmt.Sprintf("container %q declares port %d but has no livenessProbe", c.C.Name, c.C.Ports[0].ContainerPort),
				Detail:  "If it hangs without exiting, nothing restarts it. Add a livenessProbe that checks only the process itself (not its dependencies)."})
		}
	},
}
