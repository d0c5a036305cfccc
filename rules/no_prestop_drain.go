package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var NoPreStopDrain = &Rule{
	ID: "PL206", Name: "no-prestop-drain", Title: "serving container has no preStop delay to drain traffic",
	Severity: finding.Info,
	// Off by default: on the real-manifest corpus it fires on 173 of the
	// 185 Deployments that declare a port and a readiness probe, including
	// well-kept upstream manifests; as a default it would be noise.
	DefaultOff: true,
	Doc: `When a Pod is deleted (every rollout, scale-down, eviction and node drain), two things start at the
same moment and do not wait for each other: the kubelet stops the containers, and the endpoint
controllers take the Pod out of its Services. Without a ` + "`preStop`" + ` hook the stop signal goes out
at once, while the removal still has to travel: the EndpointSlice is updated, then kube-proxy on
every node rewrites its rules, and ingress controllers, service meshes and cloud load balancers
follow on their own schedule, often seconds later. Requests that are routed to the Pod in that
window reach a server that is shutting down or gone, and fail with connection refused or resets.
This is the usual cause of a few 502s during every otherwise healthy rolling update.

A short ` + "`preStop`" + ` delay keeps the container serving while the routing catches up; SIGTERM comes
after it. The grace period starts before the hook, so keep ` + "`terminationGracePeriodSeconds`" + `
above the delay plus the application's own shutdown time (see PL201).

podlint reports a regular container of a Deployment that declares a TCP port and has a readiness
probe (so it serves traffic through a Service) and has no ` + "`preStop`" + ` hook. Applications that
already keep serving for a while after SIGTERM (some frameworks have a shutdown delay setting) do
not need the hook; suppress the finding with that reason.

The rule is off by default because most serving Deployments in the wild have no ` + "`preStop`" + ` hook
(about 19 in 20 in podlint's corpus of public manifests): it is advice for teams that want
zero-error rollouts, not a defect in the manifest. Turn it on with ` + "`--enable no-prestop-drain`" + `.

**Fix:**

` + "```yaml" + `
lifecycle:
  preStop:
    sleep: {seconds: 5}    # Kubernetes 1.30 and later; before: exec: {command: ["sleep", "5"]}
` + "```" + `

Five to ten seconds covers kube-proxy; load balancers outside the cluster may need more.`,
	Check: func(p *Pass) {
		if p.Workload.Deployment == nil {
			return
		}
		if r := p.Workload.Deployment.Replicas; r != nil && *r == 0 {
			return
		}
		if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g == 0 {
			return // preStop gets no time: PL203
		}
		for _, c := range p.Containers() {
			if c.Type != Regular || c.C.ReadinessProbe == nil || (c.C.Lifecycle != nil && c.C.Lifecycle.PreStop != nil) {
				continue
			}
			port := int32(0)
			for _, cp := range c.C.Ports {
				if cp.Protocol == "" || cp.Protocol == corev1.ProtocolTCP {
					port = cp.ContainerPort
					break
				}
			}
			if port == 0 {
				continue
			}
			fix := "lifecycle.preStop.sleep.seconds: 5"
			if !p.Version.SleepAction() {
				fix = `lifecycle.preStop.exec.command: ["sleep", "5"] (the sleep action needs Kubernetes 1.30)`
			}
			p.Report(Diagnostic{Path: c.Path, Container: c.C.Name,
				Message: fmt.Sprintf("%q serves traffic on port %d but has no preStop delay to drain it", c.C.Name, port),
				Detail: fmt.Sprintf("On every rollout it gets SIGTERM while kube-proxy and ingress controllers are still learning that the Pod is being removed, so requests routed to it in those seconds fail. Add a short delay, for example %s, and keep terminationGracePeriodSeconds above it plus the shutdown time.",
					fix)})
		}
	},
}
