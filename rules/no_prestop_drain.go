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
				Message: fmt.Sprintf("%q serves traffic on port %d but has no preStop delay to drain it", c.Name(), port),
				Detail: fmt.Sprintf("On every rollout it gets SIGTERM while kube-proxy and ingress controllers are still learning that the Pod is being removed, so requests routed to it in those seconds fail. Add a short delay, for example %s, and keep terminationGracePeriodSeconds above it plus the shutdown time.",
					fix)})
		}
	},
}
