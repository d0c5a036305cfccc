package rules

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

var sprintf = fmt.Sprintf

// ProbeRef is one probe of one container.
type ProbeRef struct {
	Container ContainerRef
	Kind      string // livenessProbe, readinessProbe, startupProbe
	P         *corev1.Probe
	Path      string
}

// Field returns the full path of a field of the probe.
func (pr ProbeRef) Field(rel string) string { return pr.Container.Field(pr.Kind + "." + rel) }

// Name is "liveness probe", "readiness probe" or "startup probe".
func (pr ProbeRef) Name() string {
	switch pr.Kind {
	case "livenessProbe":
		return "liveness probe"
	case "readinessProbe":
		return "readiness probe"
	}
	return "startup probe"
}

// Probes lists the probes of regular containers and sidecars (regular init
// containers never run probes).
func (p *Pass) Probes() []ProbeRef {
	var out []ProbeRef
	for _, c := range p.Containers() {
		if c.Type == Init {
			continue
		}
		for _, k := range []struct {
			name string
			pr   *corev1.Probe
		}{{"startupProbe", c.C.StartupProbe}, {"livenessProbe", c.C.LivenessProbe}, {"readinessProbe", c.C.ReadinessProbe}} {
			if k.pr != nil {
				out = append(out, ProbeRef{Container: c, Kind: k.name, P: k.pr, Path: c.Field(k.name)})
			}
		}
	}
	return out
}
