package rules

import (
	"fmt"
	"strings"

	"github.com/podlint/podlint/finding"
	corev1 "k8s.io/api/core/v1"
)

var BestEffortQoS = &Rule{
	ID: "PL601", Name: "best-effort-qos", Title: "long-running Pods get the BestEffort QoS class",
	Severity: finding.Info,
	// Opt-in: on the corpus of docs/precision.md it was 450 of 939 default
	// findings, one per workload of every install manifest and sample that
	// leaves resources to the user, and none of the 8 sampled was one an
	// operator would act on.
	DefaultOff: true,
	Check: func(p *Pass) {
		if !p.IsLongRunning() || len(p.Spec.Containers) == 0 || p.IsFragment() {
			return
		}
		tl := p.Timeline()
		if tl.Pod == nil || tl.Pod.QOSClass != corev1.PodQOSBestEffort {
			return
		}
		inj := injectedContainers(p)
		if inj.requests {
			return // the Pods that run are Burstable
		}
		c := p.Containers()[len(p.Spec.InitContainers)]
		d := Diagnostic{Path: c.Path, Container: c.C.Name,
			Message: fmt.Sprintf("Pods of this %s are BestEffort: no container requests cpu or memory", p.Workload.Kind),
			Detail: fmt.Sprintf("Under node pressure BestEffort Pods are evicted first, their processes are the OOM killer's first choice, and the scheduler reserves nothing for them. Add resources.requests for cpu and memory to %q (and the other containers), unless a LimitRange in the namespace sets defaults.",
				c.Name())}
		if inj.by != "" {
			d.Message = fmt.Sprintf("Pods of this %s may be BestEffort: it depends on what %s injects", p.Workload.Kind, inj.by)
			d.Detail = fmt.Sprintf("No container of the template requests cpu or memory; %s. Under node pressure BestEffort Pods are evicted first, their processes are the OOM killer's first choice, and the scheduler reserves nothing for them. Add resources.requests for cpu and memory to %q (and the other containers) rather than rely on the mesh.",
				inj.why, c.Name())
		}
		p.Report(d)
	},
}

// injection is what podlint knows of the containers an admission webhook
// adds to the Pods of a template.
type injection struct {
	by       string // "Linkerd": who injects, when it is not known whether they request resources
	why      string // what decides whether they do
	requests bool   // the injected containers request cpu or memory by default
}

// injectedContainers says whether the Pods of the template get containers
// that request cpu or memory from an admission webhook podlint can see the
// template ask for:
//
//   - Knative Serving adds queue-proxy to every Revision's Pods, with a
//     cpu request of 25m by default (config-deployment
//     queue-sidecar-cpu-request);
//   - Istio injects istio-proxy, which requests 100m cpu and 128Mi memory
//     by default (global.proxy.resources), into Pods whose label (or, if
//     the label is absent, annotation) sidecar.istio.io/inject is true;
//   - Linkerd injects into Pods annotated linkerd.io/inject: enabled (or
//     ingress): its proxy requests resources when the template's
//     config.linkerd.io/proxy-cpu-request or proxy-memory-request
//     annotation says so; otherwise it depends on the installation
//     (proxy.resources is empty by default, but the linkerd-init container
//     that the installation without the CNI plugin adds requests 100m cpu
//     and 20Mi memory), so the finding says so.
//
// Injection that a namespace label turns on is not visible in the
// template and is not considered.
func injectedContainers(p *Pass) injection {
	if p.Object == nil {
		return injection{}
	}
	if c := p.Object.Custom; c != nil && c.Known && c.Group == "serving.knative.dev" {
		return injection{requests: true}
	}
	meta := p.Object.TemplateMeta
	if meta == nil {
		return injection{}
	}
	istio, labelled := meta.Labels["sidecar.istio.io/inject"]
	if !labelled {
		istio = meta.Annotations["sidecar.istio.io/inject"]
	}
	switch strings.ToLower(istio) {
	case "y", "yes", "true", "on": // istio's injectRequired
		return injection{requests: true}
	}
	switch meta.Annotations["linkerd.io/inject"] {
	case "enabled", "ingress":
		if meta.Annotations["config.linkerd.io/proxy-cpu-request"] != "" || meta.Annotations["config.linkerd.io/proxy-memory-request"] != "" {
			return injection{requests: true}
		}
		return injection{by: "Linkerd", why: "linkerd.io/inject adds linkerd-proxy, which requests resources only when the control plane's proxy.resources sets them (empty by default), and, unless Linkerd runs with its CNI plugin, linkerd-init, whose default requests (100m cpu, 20Mi memory) make the Pod Burstable"}
	}
	return injection{}
}
