package rules

import (
	"slices"
	"strconv"
	"strings"

	"github.com/podlint/podlint/crossobject"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// scrapeOnly reports whether a Service port carries only what Prometheus
// (or an engineer with pprof) reads, never requests a readiness probe
// should hold back: the port, its target or the container port it reaches
// is named as a metrics or profiling port, the Service is named as a
// metrics Service, or the containers it reaches are all exporters. Names
// are what the authors wrote about the port's purpose; the weaker signals,
// the prometheus.io/port annotation of the Service or the Pod template and
// ServiceMonitors of the run scraping every port of the Service, count
// only for a Service that is not the workload's only one: an application
// often serves /metrics on the port its clients use, and its only Service
// is how they reach it. cs are the containers the port reaches; others is
// how many other Services select the workload.
func scrapeOnly(v *crossobject.View, w *crossobject.Workload, s *crossobject.Service, sp crossobject.ServicePort, cs []*crossobject.Container, others int) bool {
	target := sp.TargetPort.String()
	if IsMetricsPortName(sp.Name) || isProfilingPortName(sp.Name) || metricsServiceName(s.Ref.Name) ||
		sp.TargetPort.Type == intstr.String && (IsMetricsPortName(target) || isProfilingPortName(target)) {
		return true
	}
	exporters := len(cs) > 0
	for _, c := range cs {
		if cp := targetContainerPort(c, sp); IsMetricsPortName(cp.Name) || isProfilingPortName(cp.Name) {
			return true
		}
		exporters = exporters && isExporter(c.Name)
	}
	if exporters {
		return true
	}
	if others == 0 {
		return false
	}
	for _, ann := range []string{strings.TrimSpace(s.Annotations["prometheus.io/port"]), w.ScrapePort} {
		if ann != "" && (ann == target || ann == strconv.Itoa(int(sp.Port))) {
			return true
		}
	}
	scraped := v.ServiceScrapedPorts(s)
	if len(scraped) == 0 {
		return false
	}
	for _, p := range s.Ports {
		if !slices.Contains(scraped, p.Name) && !slices.Contains(scraped, p.TargetPort.String()) {
			return false
		}
	}
	return true
}

// metricsServiceName reports whether a Service's name says it exists to
// be scraped: its last word (split at - and _) is "metrics", or "metrics"
// then "service" or "svc", as in controller-manager-metrics-service or
// frr-k8s-metrics-service; not metrics-server or
// custom-metrics-stackdriver-adapter, which serve the metrics APIs.
func metricsServiceName(name string) bool {
	words := portNameWords(name)
	if n := len(words); n > 1 && (words[n-1] == "service" || words[n-1] == "svc") {
		words = words[:n-1]
	}
	return len(words) > 0 && words[len(words)-1] == "metrics"
}

// isExporter reports whether a container's name says that it is a
// Prometheus exporter (redis-exporter, postgres_exporter, exporter).
func isExporter(name string) bool {
	for _, w := range portNameWords(name) {
		if strings.HasSuffix(w, "exporter") {
			return true
		}
	}
	return false
}

// meshProxyPort reports whether a Service port that no declared container
// serves targets the inbound or admin port of the mesh proxy injected into
// w's Pods: the injected proxy serves it and has its own readiness probe.
func meshProxyPort(w *crossobject.Workload, sp crossobject.ServicePort) bool {
	var ports []string
	switch w.Mesh {
	case "linkerd":
		ports = []string{"4143", "4191", "linkerd-proxy", "linkerd-admin"}
	case "istio":
		ports = []string{"15001", "15006", "15008", "15020", "15021", "15090", "http-envoy-prom"}
	}
	return slices.Contains(ports, sp.TargetPort.String())
}

// isMeshProxy reports whether a container is a service mesh's proxy,
// injected or declared: linkerd-proxy, istio-proxy, or an Envoy image.
// Every inbound connection of the Pod goes through it, so its readiness
// rightly gates the Pod's.
func isMeshProxy(name, image string) bool {
	if name == "linkerd-proxy" || name == "istio-proxy" {
		return true
	}
	repo, _, _ := strings.Cut(image, "@")
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	return strings.HasSuffix(repo, "/linkerd2-proxy") || strings.HasSuffix(repo, "/proxyv2") || strings.HasSuffix(repo, "envoyproxy/envoy")
}
