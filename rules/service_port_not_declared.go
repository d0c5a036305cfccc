package rules

import (
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/release"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var ServicePortNotDeclared = &Rule{
	ID: "PL704", Name: "service-port-not-declared", Title: "a Service targets a port the Pods it selects do not declare",
	Severity: finding.Warning,
	Doc: `A Service port reaches its Pods on ` + "`targetPort`" + ` (default: the same number as ` + "`port`" + `). The endpoints
controller resolves a **named** ` + "`targetPort`" + ` in each selected Pod's container ports (name and protocol,
` + "`podutil.FindPort`" + `); a Pod that declares no port of that name is left out of the Service's endpoints for
that port (see [O-7](../semantics.md#o-7)). When no selected Pod
declares it, the Service has no endpoints: connections are refused or time out although every Pod
is Ready.

A **numeric** ` + "`targetPort`" + ` is used as it is, declared or not (declaring container ports is
informational), and is not judged: on the shared corpus of real manifests, 6 of 7 numeric target ports
that no container declared were ports the process listens on anyway (set by a flag or a config file).

The rule looks at Services whose selector matches workloads of the same namespace in the run
(` + "`matchLabels`" + ` semantics: every selector label must be on the Pod template). A Service without selector
(endpoints managed by hand or by another controller) selects nothing, and Services whose Pods are
not in the run are not judged.

**Fix:** name the container port as the Service's ` + "`targetPort`" + ` says (` + "`ports: [{name: http, containerPort: 8080}]`" + `),
or point ` + "`targetPort`" + ` at a declared port.`,
	Release: func(p *ReleasePass) {
		for _, ns := range p.View.Namespaces() {
			for _, s := range ns.Services {
				selected := ns.SelectedByService(s)
				if len(selected) == 0 {
					continue
				}
				for _, sp := range s.Ports {
					if sp.TargetPort.Type != intstr.String {
						continue // a number is used as it is, declared or not
					}
					reached := false
					for _, w := range selected {
						if len(servingContainers(w, sp)) > 0 {
							reached = true
							break
						}
					}
					if reached {
						continue
					}
					rel := []release.Pos{}
					for i, w := range selected {
						if i == 3 {
							break
						}
						rel = append(rel, related(w.LabelsAt(), "Pods of %s %q", w.Ref.Kind, w.Ref.Name))
					}
					p.Report(ReleaseDiagnostic{At: s.PortAt(&sp), Object: &s.Object, Related: rel,
						Message: sprintf("Service %q port %d targets the port named %q, which no container of the Pods it selects (%s) declares: the endpoints controller finds no port in any Pod, so the Service has no endpoints for this port and connections fail although the Pods are Ready; name the container port %q or target a declared port",
							s.Ref.Name, sp.Port, sp.TargetPort.StrVal, workloadNames(selected), sp.TargetPort.StrVal)})
				}
			}
		}
	},
}
