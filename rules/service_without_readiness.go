package rules

import (
	"fmt"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
)

var ServiceWithoutReadiness = &Rule{
	ID: "PL705", Name: "service-without-readiness", Title: "a Service sends traffic to a container that needs time to start and has no readiness probe",
	Severity:    finding.Warning,
	CrossObject: func(p *CrossObjectPass) { serviceWithoutReadiness(p, true) },
}

// ServiceWithoutReadinessAll is PL705's opt-in complement: the containers
// a Service sends traffic to without readiness probe that show no sign of
// a slow start.
var ServiceWithoutReadinessAll = &Rule{
	ID: "PL708", Name: "service-without-readiness-all", Title: "a Service sends traffic to a container without readiness probe, though nothing says it starts slowly",
	Severity: finding.Warning, DefaultOff: true,
	CrossObject: func(p *CrossObjectPass) { serviceWithoutReadiness(p, false) },
}

// serviceWithoutReadiness reports the containers that a Service sends
// traffic to and that have no readiness probe: with slow, those whose
// readinessSignal says that they need time to start (PL705), else those
// that show no such sign (PL708).
func serviceWithoutReadiness(p *CrossObjectPass, slow bool) {
	for _, ns := range p.View.Namespaces() {
		if len(ns.Services) == 0 {
			continue
		}
		for _, w := range ns.Workloads {
			svcs := ns.ServicesSelecting(w)
			if len(svcs) == 0 || w.RunsToCompletion {
				continue
			}
			type hit struct {
				c   *crossobject.Container
				svc []*crossobject.Service
				sp  crossobject.ServicePort
			}
			var hits []*hit
			byName := map[*crossobject.Container]*hit{}
			for _, s := range svcs {
				if s.PublishNotReady {
					continue // readiness does not gate its endpoints
				}
				for _, sp := range s.Ports {
					cs := servingContainers(w, sp)
					if scrapeOnly(p.View, w, s, sp, cs, len(svcs)-1) {
						continue
					}
					if len(cs) == 0 {
						if meshProxyPort(w, sp) {
							continue
						}
						cs = soleContainer(w)
					}
					for _, c := range cs {
						if c.Readiness {
							continue
						}
						h := byName[c]
						if h == nil {
							h = &hit{c: c, sp: sp}
							byName[c] = h
							hits = append(hits, h)
						}
						if len(h.svc) == 0 || h.svc[len(h.svc)-1] != s {
							h.svc = append(h.svc, s)
						}
					}
				}
			}
			for _, h := range hits {
				signal := readinessSignal(w.Identity, p.Params, h.c.Name, h.c.LivenessDelay, h.c.StartupProbe, h.c.Accelerator)
				if slow != (signal != "") {
					continue
				}
				var rel []crossobject.Pos
				for _, s := range h.svc {
					rel = append(rel, related(s.SelectorAt(), "Service %q selects these Pods", s.Ref.Name))
				}
				d := CrossObjectDiagnostic{At: w.ContainerAt(h.c), Object: &w.Object, Container: h.c.Name, Related: rel,
					Message: fmt.Sprintf("container %q gets Service traffic but has no readinessProbe", crossObjectName(h.c)),
					Detail: detail("Service %q sends traffic to container %q (targetPort %s), which has no readinessProbe: the Pod counts as Ready as soon as the container runs, so connections reach it while it starts and whenever it stops answering; add a readinessProbe on the port it serves",
						h.svc[0].Ref.Name, crossObjectName(h.c), h.sp.TargetPort.String())}
				if slow {
					d.Message = fmt.Sprintf("container %q needs time to start but gets Service traffic without a readinessProbe", crossObjectName(h.c))
					d.Detail = detail("Service %q sends traffic to container %q (targetPort %s), and %s. Without a readinessProbe the Pod counts as Ready as soon as the container runs, so the Service sends it requests from the moment it starts, on every new Pod, restart and rollout step, and a rollout replaces the old Pods before it answers. Add a readinessProbe on the port it serves",
						h.svc[0].Ref.Name, crossObjectName(h.c), h.sp.TargetPort.String(), signal)
				}
				p.Report(d)
			}
		}
	}
}

// soleContainer is the one container of a Pod with a single one, when it
// declares no ports (one that declares others does not serve this one).
func soleContainer(w *crossobject.Workload) []*crossobject.Container {
	if len(w.Containers) == 1 && len(w.Containers[0].Ports) == 0 {
		return []*crossobject.Container{&w.Containers[0]}
	}
	return nil
}
