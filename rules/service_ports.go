package rules

import (
	"fmt"

	"github.com/podlint/podlint/crossobject"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// servingContainers returns the containers of w that a Service port
// reaches: those declaring its targetPort by name, or by number and
// protocol as the endpoints controller resolves it (podutil.FindPort).
func servingContainers(w *crossobject.Workload, sp crossobject.ServicePort) []*crossobject.Container {
	var out []*crossobject.Container
	for i := range w.Containers {
		if c := &w.Containers[i]; targetContainerPort(c, sp) != nil {
			out = append(out, c)
		}
	}
	return out
}

// targetContainerPort is the port of c that a Service port targets, or nil.
func targetContainerPort(c *crossobject.Container, sp crossobject.ServicePort) *corev1.ContainerPort {
	for i := range c.Ports {
		cp := &c.Ports[i]
		proto := cp.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		if proto != sp.Protocol {
			continue
		}
		if sp.TargetPort.Type == intstr.String && cp.Name == sp.TargetPort.StrVal ||
			sp.TargetPort.Type == intstr.Int && cp.ContainerPort == sp.TargetPort.IntVal {
			return cp
		}
	}
	return nil
}

func workloadNames(ws []*crossobject.Workload) string {
	s := ""
	for i, w := range ws {
		if i == 3 {
			return s + fmt.Sprintf(" and %d more", len(ws)-3)
		}
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %q", w.Ref.Kind, w.Ref.Name)
	}
	return s
}
