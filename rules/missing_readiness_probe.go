package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var MissingReadinessProbe = &Rule{
	ID: "PL111", Name: "missing-readiness-probe", Title: "serving container that needs time to start has no readiness probe",
	Severity: finding.Info,
	Check:    func(p *Pass) { missingReadiness(p, true) },
	// PL111 guesses from declared ports whether a container serves
	// traffic, which the Services of its namespace answer (PL705 reports a
	// Service sending traffic to a container without readiness probe), and
	// which a PodMonitor answers when it scrapes every port PL111 took for a
	// serving one.
	SupersededBy: &Supersession{Rule: ServiceWithoutReadiness, When: readinessSuperseded},
}

// MissingReadinessProbeAll is PL111's opt-in complement: the serving
// containers without readiness probe that show no sign of a slow start.
var MissingReadinessProbeAll = &Rule{
	ID: "PL116", Name: "missing-readiness-probe-all", Title: "serving container has no readiness probe, though nothing says it starts slowly",
	Severity: finding.Info, DefaultOff: true,
	Check:        func(p *Pass) { missingReadiness(p, false) },
	SupersededBy: &Supersession{Rule: ServiceWithoutReadinessAll, When: readinessSuperseded},
}

func readinessSuperseded(v *crossobject.View, w *crossobject.Workload, ns *crossobject.Namespace, container string) bool {
	return len(ns.Services) > 0 || w != nil && onlyScraped(v, w, container)
}

// missingReadiness reports the main container of a long-running workload
// that declares a serving port and has no readiness probe: with slow, one
// whose readinessSignal says that it needs time to start (PL111), else
// one that shows no such sign (PL116).
func missingReadiness(p *Pass, slow bool) {
	if !p.IsLongRunning() || p.IsFragment() {
		return
	}
	c := p.Containers()[len(p.Spec.InitContainers)+MainContainer(p.Spec, p.templateAnnotations())]
	if c.C.ReadinessProbe != nil || isExporter(c.C.Name) {
		return // an exporter's ports are metrics only, whatever their names
	}
	serving := ServingPorts(c.C.Ports, crossobject.ScrapedPort(p.templateAnnotations(), p.objectAnnotations()))
	if len(serving) == 0 {
		return
	}
	var delay int32
	if c.C.LivenessProbe != nil {
		delay = c.C.LivenessProbe.InitialDelaySeconds
	}
	signal := readinessSignal(p.Workload, p.Params, c.C.Name, delay, c.C.StartupProbe != nil, crossobject.Accelerator(c.C))
	switch {
	case slow && signal != "":
		p.Report(Diagnostic{Path: c.Path, Container: c.C.Name,
			Message: fmt.Sprintf("container %q needs time to start but has no readinessProbe", c.Name()),
			Detail: fmt.Sprintf("Container %q declares port %d, and %s. Without a readinessProbe it counts as Ready as soon as it runs, so Services send it requests from the moment it starts, on every new Pod, restart and rollout step, and a rollout replaces the old Pods before it answers. Add a readinessProbe on the port it serves.",
				c.Name(), serving[0].ContainerPort, signal)})
	case !slow && signal == "":
		when := "as soon as it runs"
		if c.C.StartupProbe != nil {
			when = "as soon as its startup probe passes"
		}
		p.Report(Diagnostic{Path: c.Path, Container: c.C.Name,
			Message: fmt.Sprintf("container %q declares port %d but has no readinessProbe", c.Name(), serving[0].ContainerPort),
			Detail: fmt.Sprintf("It counts as Ready %s, so Services send it traffic before it can answer at every start and rollout, and keep doing so when it stops serving. Add a readinessProbe on the port it serves.",
				when)})
	}
}

// MainContainer is the index in spec.containers of the container that
// PL111 judges: the one the kubectl.kubernetes.io/default-container
// annotation of the Pod template names, else the first. The others are
// taken for helpers (a mesh proxy, a log shipper, a config reloader, a
// metrics exporter): whether a Service sends them traffic is what the
// Services of the run answer (PL705), not their declared ports.
func MainContainer(spec *corev1.PodSpec, templateAnnotations map[string]string) int {
	if name := templateAnnotations["kubectl.kubernetes.io/default-container"]; name != "" {
		for i := range spec.Containers {
			if spec.Containers[i].Name == name {
				return i
			}
		}
	}
	return 0
}

// ServingPorts are the ports of a container that may serve Service
// traffic: TCP and SCTP ports that are neither metrics, profiling, health
// nor debugger ports. A metrics port is named like one (a word of its name,
// split at - and _, contains "metrics" or starts with "prom", as
// http-metrics, metrics, prometheus or http-envoy-prom do), or is the port
// scraped names (a number, or a port name); a profiling port is named like
// one (a word is pprof or profiling), read by an engineer with go tool
// pprof, never by a client; a health port (a word starts with "health", or
// is liveness, readiness or probe) is what the kubelet or a load balancer
// probes, not where clients connect; a debugger port (a word is debug,
// debugger, dlv, delve, jdwp or inspector) is an engineer's. UDP ports are
// left out: podlint does not judge UDP services.
func ServingPorts(ports []corev1.ContainerPort, scraped string) []corev1.ContainerPort {
	var out []corev1.ContainerPort
	for _, port := range ports {
		if port.Protocol == corev1.ProtocolUDP || IsMetricsPortName(port.Name) || isProfilingPortName(port.Name) || isHealthOrDebugPortName(port.Name) ||
			scraped != "" && (scraped == port.Name || scraped == strconv.Itoa(int(port.ContainerPort))) {
			continue
		}
		out = append(out, port)
	}
	return out
}

// IsMetricsPortName reports whether a port's name says that it serves
// metrics (see ServingPorts).
func IsMetricsPortName(name string) bool {
	for _, w := range portNameWords(name) {
		if strings.Contains(w, "metrics") || strings.HasPrefix(w, "prom") {
			return true
		}
	}
	return false
}

// isProfilingPortName reports whether a port's name says that it serves
// pprof profiles (see ServingPorts).
func isProfilingPortName(name string) bool {
	for _, w := range portNameWords(name) {
		if w == "pprof" || w == "profiling" {
			return true
		}
	}
	return false
}

// isHealthOrDebugPortName reports whether a port's name says that it
// answers health checks or a debugger (see ServingPorts).
func isHealthOrDebugPortName(name string) bool {
	for _, w := range portNameWords(name) {
		switch {
		case strings.HasPrefix(w, "health"), w == "liveness", w == "readiness", w == "probe",
			w == "debug", w == "debugger", w == "dlv", w == "delve", w == "jdwp", w == "inspector":
			return true
		}
	}
	return false
}

// portNameWords splits a port name at - and _, lower-cased.
func portNameWords(name string) []string {
	return strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' })
}

// templateAnnotations are the annotations of the Pod template.
func (p *Pass) templateAnnotations() map[string]string {
	if p.Object == nil || p.Object.TemplateMeta == nil {
		return nil
	}
	return p.Object.TemplateMeta.Annotations
}

// objectAnnotations are the annotations of the workload object itself.
func (p *Pass) objectAnnotations() map[string]string {
	if p.Object == nil || p.Object.Meta == nil {
		return nil
	}
	return p.Object.Meta.Annotations
}
