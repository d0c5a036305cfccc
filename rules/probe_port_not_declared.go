package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var ProbePortNotDeclared = &Rule{
	ID: "PL108", Name: "probe-port-not-declared", Title: "probe or hook uses a port name its container does not declare",
	Severity: finding.Error,
	Check: func(p *Pass) {
		for _, c := range p.Containers() {
			if c.Type == Init {
				continue // probes and hooks are rejected there (PL401)
			}
			for _, k := range []struct {
				kind string
				pr   *corev1.Probe
			}{{"livenessProbe", c.C.LivenessProbe}, {"readinessProbe", c.C.ReadinessProbe}, {"startupProbe", c.C.StartupProbe}} {
				if k.pr == nil {
					continue
				}
				field, port := namedPort(&k.pr.ProbeHandler)
				if port == "" {
					continue
				}
				reportUndeclaredPort(p, c, k.kind+"."+field, port, probeConsequence(k.kind, c.Name()))
			}
			if lc := c.C.Lifecycle; lc != nil {
				if h := lc.PostStart; h != nil && h.HTTPGet != nil && h.HTTPGet.Port.Type == intstr.String {
					outcome := "the hook fails on every start and the kubelet kills the container, which then crash-loops"
					if tc := p.tlContainer(c); tc != nil && !tc.Restarts {
						outcome = "the hook fails and the kubelet kills the container, which is not restarted, so the Pod fails"
					}
					reportUndeclaredPort(p, c, "lifecycle.postStart.httpGet.port", h.HTTPGet.Port.StrVal, outcome)
				}
				if h := lc.PreStop; h != nil && h.HTTPGet != nil && h.HTTPGet.Port.Type == intstr.String {
					reportUndeclaredPort(p, c, "lifecycle.preStop.httpGet.port", h.HTTPGet.Port.StrVal,
						"the preStop hook fails at once on every stop, so its shutdown work never happens and the stop signal comes right away")
				}
			}
		}
	},
}

func probeConsequence(kind string, name containerName) string {
	switch kind {
	case "livenessProbe":
		return "every liveness probe errors and is discarded, so it never restarts " + quote(name) + ", however hung it is"
	case "readinessProbe":
		return "every readiness probe errors and is discarded, so " + quote(name) + " never becomes Ready and gets no traffic"
	}
	return "every startup probe errors and is discarded, so it neither passes nor fails: " + quote(name) + " is never marked started, its liveness and readiness probes never run and it never becomes Ready"
}

func quote(n containerName) string { return fmt.Sprintf("%q", n) }

func reportUndeclaredPort(p *Pass, c ContainerRef, rel, port, outcome string) {
	if portNameProblem(port) != "" || declaresPort(c.C, port) {
		return // malformed names are PL114's
	}
	where := ""
	for _, o := range p.Containers() {
		if o.Path != c.Path && declaresPort(o.C, port) {
			where = fmt.Sprintf(" (%s %q declares it, but names are resolved only in the probing container)", o.Type.Noun(), o.Name())
			break
		}
	}
	p.Report(Diagnostic{Path: c.Field(rel), Container: c.C.Name,
		Message: fmt.Sprintf("port name %q is not declared in the ports of %q", port, c.Name()),
		Detail: fmt.Sprintf("The kubelet cannot resolve it%s: %s. Declare the port (ports: [{name: %s, containerPort: …}]) or use its number.",
			where, outcome, port)})
}
