package rules

import "github.com/podlint/podlint/finding"

var MissingReadinessProbe = &Rule{
	ID: "PL111", Name: "missing-readiness-probe", Title: "serving container of a long-running workload has no readiness probe",
	Severity: finding.Info,
	Doc: `A container without a readiness probe counts as Ready as soon as it is running ([P-3](../semantics.md#p-3)), or as
soon as its startup probe passes. Services and load balancers then send it traffic while the
application is still starting, at every start, restart and rolling update, and keep sending it
traffic when it can no longer serve. Rolling updates also use readiness to pace themselves: without
it a Deployment moves on as soon as the new containers run.

podlint reports this only where it matters and is hard to dispute:

* only for workloads whose Pods are meant to keep running: Deployment, StatefulSet, DaemonSet,
  ReplicaSet, ReplicationController and custom resources with a Pod template;
* only for regular containers that declare ` + "`ports`" + ` (a container that serves nothing has no traffic
  to hold back).

Jobs, CronJobs, bare Pods, init containers and sidecars are never reported, nor are templates that
look like patch fragments (a container without an ` + "`image`" + `, as in a kustomize patch), whose probes
are usually in the base.

**Fix:** add a ` + "`readinessProbe`" + ` that checks what the container needs to serve requests (an HTTP endpoint
or a TCP check on the port it serves).`,
	Check: func(p *Pass) {
		if !p.IsLongRunning() || p.IsFragment() {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Regular || len(c.C.Ports) == 0 || c.C.ReadinessProbe != nil {
				continue
			}
			when := "as soon as it runs"
			if c.C.StartupProbe != nil {
				when = "as soon as its startup probe passes"
			}
			p.Report(Diagnostic{Path: c.Path, Container: c.C.Name,
				Message: sprintf("container %q declares port %d but has no readinessProbe: it counts as Ready %s, so Services send it traffic before it can answer at every start and rollout, and keep doing so when it stops serving; add a readinessProbe on the port it serves",
					c.C.Name, c.C.Ports[0].ContainerPort, when)})
		}
	},
}
