package rules

import (
	"fmt"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var ServicePortNotDeclared = &Rule{
	ID: "PL704", Name: "service-port-not-declared", Title: "a Service targets a port the Pods it selects do not declare",
	Severity: finding.Warning,
	CrossObject: func(p *CrossObjectPass) {
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
					rel := []crossobject.Pos{}
					for i, w := range selected {
						if i == 3 {
							break
						}
						rel = append(rel, related(w.LabelsAt(), "Pods of %s %q", w.Ref.Kind, w.Ref.Name))
					}
					p.Report(CrossObjectDiagnostic{At: s.PortAt(&sp), Object: &s.Object, Related: rel,
						Message: fmt.Sprintf("targetPort %q is declared by no container the Service selects", sp.TargetPort.StrVal),
						Detail: detail("Service %q port %d targets the port named %q, which no container of the Pods it selects (%s) declares: the endpoints controller finds no port in any Pod, so the Service has no endpoints for this port and connections fail although the Pods are Ready; name the container port %q or target a declared port",
							s.Ref.Name, sp.Port, sp.TargetPort.StrVal, workloadNames(selected), sp.TargetPort.StrVal)})
				}
			}
		}
	},
}
