package manifest

import (
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// CustomKind describes a custom resource that podlint lints through its
// spec.template (docs/custom-resources.md lists the known ones).
type CustomKind struct {
	Group, Kind string
	// Known is set for the kinds of the table below; any other custom
	// resource with a spec.template.spec is linted too, with nothing known
	// about what its controller does.
	Known   bool
	Product string // "Knative Service", "Argo Rollout", …
	// PodsFromTemplate is set when the controller creates Pods (directly
	// or through ReplicaSets) from the template as written, so the API
	// server validates them as it validates any Pod. Otherwise rules that
	// say "the API server rejects the Pod" do not apply: Knative fills in
	// container names and probe ports before any Pod exists.
	PodsFromTemplate bool
	// jobTarget is set for a KEDA ScaledJob, whose Job spec is at
	// spec.jobTargetRef (its Pod template at spec.jobTargetRef.template).
	jobTarget bool
	// defaults applies what the operator's webhook fills in before Pods
	// are made, to the spec the rules read (never to the decoded object).
	defaults func(*corev1.PodSpec)
}

// knownCustomKinds are the custom resources with a Pod template that
// podlint knows, by group and kind.
var knownCustomKinds = map[string]map[string]*CustomKind{
	"serving.knative.dev": {
		"Service":       {Product: "Knative Service", defaults: knativeDefaults},
		"Configuration": {Product: "Knative Configuration", defaults: knativeDefaults},
	},
	"argoproj.io": {
		"Rollout": {Product: "Argo Rollout", PodsFromTemplate: true},
	},
	"keda.sh": {
		"ScaledJob": {Product: "KEDA ScaledJob", PodsFromTemplate: true, jobTarget: true},
	},
	"apps.kruise.io": {
		"CloneSet":    {Product: "OpenKruise CloneSet", PodsFromTemplate: true},
		"StatefulSet": {Product: "OpenKruise Advanced StatefulSet", PodsFromTemplate: true},
		"DaemonSet":   {Product: "OpenKruise Advanced DaemonSet", PodsFromTemplate: true},
	},
}

// customKind returns what podlint knows of a custom resource kind.
func customKind(apiVersion, kind string) *CustomKind {
	group, _, _ := strings.Cut(apiVersion, "/")
	if !strings.Contains(apiVersion, "/") {
		group = ""
	}
	if k := knownCustomKinds[group][kind]; k != nil {
		c := *k
		c.Group, c.Kind, c.Known = group, kind, true
		return &c
	}
	return &CustomKind{Group: group, Kind: kind}
}

// knativeUserPort is the port Knative Serving gives a container that
// declares none (the PORT environment variable).
const knativeUserPort = 8080

// knativeDefaults is what Knative Serving's webhook fills in
// (RevisionSpec.SetDefaults): container names ("user-container", with a
// numeric suffix when there are several), and probe ports, which Knative
// points at the container's port.
func knativeDefaults(spec *corev1.PodSpec) {
	names := map[string]bool{}
	for _, c := range spec.Containers {
		if c.Name != "" {
			names[c.Name] = true
		}
	}
	suffix := 0
	for i := range spec.Containers {
		c := &spec.Containers[i]
		if c.Name == "" {
			name := "user-container"
			if len(spec.Containers) > 1 || names[name] {
				for {
					name = "user-container-" + strconv.Itoa(suffix)
					suffix++
					if !names[name] {
						break
					}
				}
			}
			c.Name = name
		}
		port := int32(knativeUserPort)
		if len(c.Ports) > 0 && c.Ports[0].ContainerPort != 0 {
			port = c.Ports[0].ContainerPort
		}
		for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
			if p == nil {
				continue
			}
			if h := p.HTTPGet; h != nil && h.Port == (intstr.IntOrString{}) {
				h.Port = intstr.FromInt32(port)
			}
			if t := p.TCPSocket; t != nil && t.Port == (intstr.IntOrString{}) {
				t.Port = intstr.FromInt32(port)
			}
		}
	}
}
