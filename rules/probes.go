package rules

import (
	"math"

	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ProbeRef is one probe of one container.
type ProbeRef struct {
	Container ContainerRef
	Kind      string // livenessProbe, readinessProbe, startupProbe
	P         *corev1.Probe
	Path      workload.Path
}

// Field returns the full path of a field of the probe.
func (pr ProbeRef) Field(rel string) workload.Path { return pr.Path.Join(rel) }

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
	if p.probes == nil {
		p.probes = p.listProbes()
	}
	return p.probes[:len(p.probes):len(p.probes)]
}

func (p *Pass) listProbes() []ProbeRef {
	out := []ProbeRef{}
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

// probeValues are a probe's timing fields after API-server defaulting (P-1):
// 0 (or a rejected negative value) becomes the default for period, timeout
// and both thresholds; initialDelaySeconds has no default.
type probeValues struct {
	D, P, T, ST, FT float64
}

func defaulted(pr *corev1.Probe) probeValues {
	def := func(v int32, d float64) float64 {
		if v <= 0 {
			return d
		}
		return float64(v)
	}
	return probeValues{
		D:  math.Max(float64(pr.InitialDelaySeconds), 0),
		P:  def(pr.PeriodSeconds, timeline.DefaultProbePeriod),
		T:  def(pr.TimeoutSeconds, timeline.DefaultProbeTimeout),
		ST: def(pr.SuccessThreshold, timeline.DefaultProbeSuccessThreshold),
		FT: def(pr.FailureThreshold, timeline.DefaultProbeFailureThreshold),
	}
}

// spacing is Δ = max(P, T): against a hanging target each probe takes T
// and the next one starts when it ends (P-7).
func (v probeValues) spacing() float64 { return math.Max(v.P, v.T) }

// hangDetection is F-7: a target that hangs at h is detected in
// [h + (FT−1)·Δ + T, h + FT·Δ + T).
func (v probeValues) hangDetection() timeline.Interval {
	d := v.spacing()
	return timeline.Between((v.FT-1)*d+v.T, v.FT*d+v.T)
}

// tlContainer is the timeline's view of a container, matched by path (names
// may be duplicated in a broken manifest).
func (p *Pass) tlContainer(c ContainerRef) *timeline.Container {
	for _, tc := range p.Timeline().Containers {
		if tc.Path == c.Path {
			return tc
		}
	}
	return nil
}

// declaresPort reports whether the container declares a port of that name.
func declaresPort(c *corev1.Container, name string) bool {
	for _, port := range c.Ports {
		if port.Name == name {
			return true
		}
	}
	return false
}

// resolvePort returns the port number a probe or hook port resolves to in
// its container (probe.ResolveContainerPort), or -1 when a name is not
// declared.
func resolvePort(c *corev1.Container, port intstr.IntOrString) int32 {
	if port.Type == intstr.Int {
		return port.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == port.StrVal {
			return cp.ContainerPort
		}
	}
	return -1
}

// expectedPath is where a user-stated expectation comes from: the
// annotation (the model resolves it on the pod template or the object), or
// "" for the configuration file.
func (p *Pass) expectedPath(e timeline.Expected) workload.Path {
	if e.Source != timeline.FromAnnotation {
		return ""
	}
	return e.Path
}

// describeExpected names the source of an expectation for messages.
func describeExpected(e timeline.Expected) string {
	switch e.Source {
	case timeline.FromAnnotation:
		return "annotation " + e.Key
	case timeline.FromObserved:
		return e.Key // what podlint observe saw, and when
	}
	return "configured expected-startup (" + e.Key + ")"
}

// namedPort returns the port name a probe handler uses (httpGet or
// tcpSocket with a string port), or "".
func namedPort(h *corev1.ProbeHandler) (field, name string) {
	switch {
	case h.HTTPGet != nil && h.HTTPGet.Port.Type == intstr.String:
		return "httpGet.port", h.HTTPGet.Port.StrVal
	case h.TCPSocket != nil && h.TCPSocket.Port.Type == intstr.String:
		return "tcpSocket.port", h.TCPSocket.Port.StrVal
	}
	return "", ""
}

// probeErrors reports whether every run of the probe errors because it
// names a port its container does not declare (P-18): such a probe never
// counts a success or a failure.
func probeErrors(c ContainerRef, pr *corev1.Probe) bool {
	_, name := namedPort(&pr.ProbeHandler)
	return name != "" && portNameProblem(name) == "" && !declaresPort(c.C, name)
}

// IsFragment reports whether the pod template looks like a patch fragment
// (a kustomize strategic-merge patch, a Helm values excerpt) rather than a
// complete manifest: no regular container, or one without an image, which
// the API server would reject. Rules about something *missing* stay silent
// on fragments, because the missing part is usually in the base.
func (p *Pass) IsFragment() bool {
	if len(p.Spec.Containers) == 0 {
		return true
	}
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Image == "" {
			return true
		}
	}
	return false
}
