package crossobject

import (
	"slices"
	"strconv"
	"strings"

	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Kept reports whether the view keeps objects of this kind besides
// workloads.
func Kept(apiVersion, kind string) bool {
	group, _, _ := strings.Cut(apiVersion, "/")
	if !strings.Contains(apiVersion, "/") {
		group = ""
	}
	switch kind {
	case "Service", "PersistentVolumeClaim":
		return group == ""
	case "PodDisruptionBudget":
		return group == "policy"
	case "HorizontalPodAutoscaler":
		return group == "autoscaling"
	case "StorageClass":
		return group == "storage.k8s.io"
	case "PodMonitor", "ServiceMonitor":
		return group == "monitoring.coreos.com"
	case "PriorityClass":
		return group == "scheduling.k8s.io"
	}
	return false
}

func base(o *manifest.Object, ann map[string]string) Object {
	return Object{Ref: o.Ref, File: o.Doc.File.Path, Doc: o.Doc.Index, Path: o.Path, Source: o.Doc.Source, Annotations: ann}
}

// Add records o in the part when it is a workload or a kind the view keeps,
// and returns its entry (nil otherwise). Objects that do not decode are
// left out: the loader reports workloads that do not decode, and the
// others are only context.
func (p *Part) Add(o *manifest.Object, lim manifest.Limits) *Object {
	if o.Ref.Name != "" && (o.Workload != nil || Kept(o.Ref.APIVersion, o.Ref.Kind)) {
		p.IDs = append(p.IDs, identity(o.Ref))
	}
	if o.Workload != nil {
		w := summarize(o)
		p.Workloads = append(p.Workloads, w)
		return &w.Object
	}
	if !Kept(o.Ref.APIVersion, o.Ref.Kind) {
		return nil
	}
	switch o.Ref.Kind {
	case "Service":
		return p.addService(o, lim)
	case "PodDisruptionBudget":
		// policy/v1beta1 has the same fields; only its empty selector
		// differs.
		var b policyv1.PodDisruptionBudget
		if !o.Decode(&b, lim) {
			return nil
		}
		out := &PDB{Object: base(o, b.Annotations), Selector: PDBSelector(b.Spec.Selector, strings.HasSuffix(o.Ref.APIVersion, "v1beta1")),
			MinAvailable: b.Spec.MinAvailable, MaxUnavailable: b.Spec.MaxUnavailable}
		p.PDBs = append(p.PDBs, out)
		return &out.Object
	case "HorizontalPodAutoscaler":
		// scaleTargetRef, minReplicas and maxReplicas are the same in
		// every autoscaling version.
		var h autoscalingv2.HorizontalPodAutoscaler
		if !o.Decode(&h, lim) {
			return nil
		}
		out := &HPA{Object: base(o, h.Annotations), TargetKind: h.Spec.ScaleTargetRef.Kind, TargetName: h.Spec.ScaleTargetRef.Name,
			MinReplicas: 1, MaxReplicas: h.Spec.MaxReplicas}
		if h.Spec.MinReplicas != nil {
			out.MinReplicas = *h.Spec.MinReplicas
		}
		p.HPAs = append(p.HPAs, out)
		return &out.Object
	case "PersistentVolumeClaim":
		var c corev1.PersistentVolumeClaim
		if !o.Decode(&c, lim) {
			return nil
		}
		out := &PVC{Object: base(o, c.Annotations), AccessModes: c.Spec.AccessModes}
		if c.Spec.StorageClassName != nil {
			out.StorageClassName = *c.Spec.StorageClassName
		}
		p.PVCs = append(p.PVCs, out)
		return &out.Object
	case "PodMonitor":
		return p.addPodMonitor(o, lim)
	case "ServiceMonitor":
		return p.addServiceMonitor(o, lim)
	case "StorageClass":
		var sc storagev1.StorageClass
		if !o.Decode(&sc, lim) {
			return nil
		}
		if p.StorageClasses == nil {
			p.StorageClasses = map[string]string{}
		}
		mode := string(storagev1.VolumeBindingImmediate)
		if sc.VolumeBindingMode != nil {
			mode = string(*sc.VolumeBindingMode)
		}
		p.StorageClasses[o.Ref.Name] = mode
	case "PriorityClass":
		var pc schedulingv1.PriorityClass
		if !o.Decode(&pc, lim) {
			return nil
		}
		if p.PriorityClasses == nil {
			p.PriorityClasses = map[string]int32{}
		}
		p.PriorityClasses[o.Ref.Name] = pc.Value
	}
	return nil
}

// addService adds a Service; nil when it does not decode.
func (p *Part) addService(o *manifest.Object, lim manifest.Limits) *Object {
	var s corev1.Service
	if !o.Decode(&s, lim) {
		return nil
	}
	out := &Service{Object: base(o, s.Annotations), Type: s.Spec.Type, Selector: s.Spec.Selector, Labels: s.Labels, PublishNotReady: s.Spec.PublishNotReadyAddresses}
	if out.Type == corev1.ServiceTypeExternalName {
		out.Selector = nil // the API ignores it
	}
	for i, sp := range s.Spec.Ports {
		tp, set := sp.TargetPort, true
		if tp.Type == 0 && tp.IntVal == 0 {
			tp.IntVal, set = sp.Port, false
		}
		proto := sp.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP
		}
		out.Ports = append(out.Ports, ServicePort{Name: sp.Name, Port: sp.Port, Protocol: proto, TargetPort: tp, Index: i, TargetSet: set})
	}
	p.Services = append(p.Services, out)
	return &out.Object
}

// addPodMonitor adds a Prometheus operator PodMonitor and the ports it
// scrapes.
func (p *Part) addPodMonitor(o *manifest.Object, lim manifest.Limits) *Object {
	var m podMonitor
	if !o.Decode(&m, lim) {
		return nil
	}
	out := &PodMonitor{Object: base(o, m.Annotations), MonitorScope: m.Spec.scope()}
	for _, e := range m.Spec.PodMetricsEndpoints {
		switch {
		case e.Port != nil && *e.Port != "":
			out.Ports = append(out.Ports, *e.Port)
		case e.PortNumber != nil:
			out.Ports = append(out.Ports, strconv.Itoa(int(*e.PortNumber)))
		case e.TargetPort != nil:
			out.Ports = append(out.Ports, e.TargetPort.String())
		}
	}
	p.PodMonitors = append(p.PodMonitors, out)
	return &out.Object
}

// addServiceMonitor adds a Prometheus operator ServiceMonitor and the
// ports it scrapes.
func (p *Part) addServiceMonitor(o *manifest.Object, lim manifest.Limits) *Object {
	var m serviceMonitor
	if !o.Decode(&m, lim) {
		return nil
	}
	out := &ServiceMonitor{Object: base(o, m.Annotations), MonitorScope: m.Spec.scope()}
	for _, e := range m.Spec.Endpoints {
		switch {
		case e.Port != "":
			out.Ports = append(out.Ports, e.Port)
		case e.TargetPort != nil:
			out.Ports = append(out.Ports, e.TargetPort.String())
		}
	}
	p.ServiceMonitors = append(p.ServiceMonitors, out)
	return &out.Object
}

// podMonitor is the part of a monitoring.coreos.com/v1 PodMonitor that
// the view keeps.
type podMonitor struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		monitorSpec
		PodMetricsEndpoints []struct {
			Port       *string             `json:"port"`
			PortNumber *int32              `json:"portNumber"`
			TargetPort *intstr.IntOrString `json:"targetPort"`
		} `json:"podMetricsEndpoints"`
	} `json:"spec"`
}

// monitorSpec is what PodMonitors and ServiceMonitors select with.
type monitorSpec struct {
	Selector          metav1.LabelSelector `json:"selector"`
	NamespaceSelector struct {
		Any        bool     `json:"any"`
		MatchNames []string `json:"matchNames"`
	} `json:"namespaceSelector"`
}

func (s *monitorSpec) scope() MonitorScope {
	out := MonitorScope{Namespaces: s.NamespaceSelector.MatchNames, AnyNamespace: s.NamespaceSelector.Any}
	if sel, err := metav1.LabelSelectorAsSelector(&s.Selector); err == nil {
		out.Selector = sel
	}
	return out
}

// serviceMonitor is the part of a monitoring.coreos.com/v1 ServiceMonitor
// that the view keeps.
type serviceMonitor struct {
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		monitorSpec
		Endpoints []struct {
			Port       string              `json:"port"`
			TargetPort *intstr.IntOrString `json:"targetPort"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// summarize summarizes a loaded workload. Positions are resolved now, while
// the file is in memory.
func summarize(o *manifest.Object) *Workload {
	w := o.Workload
	out := &Workload{Object: base(o, nil), TemplatePath: o.TemplatePath, SpecPath: w.SpecPath,
		Identity: &workload.Workload{Kind: w.Kind, Name: w.Name, Namespace: w.Namespace, Path: w.Path}}
	if v, ok := w.Annotations[timeline.AnnotationExpectedStartup]; ok {
		out.Identity.Annotations = map[string]string{timeline.AnnotationExpectedStartup: v}
		if at, ok := w.AnnotationPaths[timeline.AnnotationExpectedStartup]; ok {
			out.Identity.AnnotationPaths = map[string]workload.Path{timeline.AnnotationExpectedStartup: at}
		}
	}
	if o.TemplateMeta != nil {
		out.Labels = o.TemplateMeta.Labels
	}
	out.RunsToCompletion = w.Job != nil || (w.Spec != nil && w.Spec.RestartPolicy != "" && w.Spec.RestartPolicy != "Always")
	var objAnn, tmplAnn map[string]string
	if o.Meta != nil {
		objAnn = o.Meta.Annotations
		if _, hook := o.Meta.Annotations["helm.sh/hook"]; hook {
			out.RunsToCompletion = true
		}
	}
	if o.TemplateMeta != nil {
		tmplAnn = o.TemplateMeta.Annotations
	}
	out.ScrapePort = ScrapedPort(tmplAnn, objAnn)
	out.Mesh = MeshInjected(tmplAnn, out.Labels)
	var replicas *int32
	switch {
	case w.Deployment != nil:
		out.Scaled, replicas = true, w.Deployment.Replicas
		out.Deployment = true
		out.Strategy = string(w.Deployment.Strategy.Type)
		if out.Strategy == "" {
			out.Strategy = "RollingUpdate"
		}
		if ru := w.Deployment.Strategy.RollingUpdate; ru != nil {
			out.MaxSurge, out.MaxUnavailable = ru.MaxSurge, ru.MaxUnavailable
		}
	case w.StatefulSet != nil:
		out.Scaled, replicas = true, w.StatefulSet.Replicas
	case w.ReplicaSet != nil:
		out.Scaled, replicas = true, w.ReplicaSet.Replicas
	case w.ReplicationController != nil:
		out.Scaled, replicas = true, w.ReplicationController.Replicas
	}
	if out.Scaled {
		out.Replicas = 1
		if replicas != nil {
			out.Replicas = max(*replicas, 0)
		}
	}
	s := w.Spec
	n := len(s.Containers)
	for i := range s.InitContainers {
		if workload.IsSidecar(&s.InitContainers[i]) {
			n++
		}
	}
	out.Containers = make([]Container, 0, n)
	for i := range s.InitContainers {
		if c := &s.InitContainers[i]; workload.IsSidecar(c) {
			out.Containers = append(out.Containers, summarizeContainer(c, i, true))
		}
	}
	for i := range s.Containers {
		out.Containers = append(out.Containers, summarizeContainer(&s.Containers[i], i, false))
	}
	for i, v := range s.Volumes {
		if v.PersistentVolumeClaim != nil {
			out.Claims = append(out.Claims, Claim{Volume: v.Name, Name: v.PersistentVolumeClaim.ClaimName, Index: i})
		}
	}
	return out
}

func summarizeContainer(c *corev1.Container, i int, sidecar bool) Container {
	out := Container{Name: c.Name, Image: c.Image, Index: i, Sidecar: sidecar, Ports: c.Ports, Readiness: c.ReadinessProbe != nil,
		StartupProbe: c.StartupProbe != nil, Accelerator: Accelerator(c)}
	if c.LivenessProbe != nil {
		out.LivenessDelay = c.LivenessProbe.InitialDelaySeconds
	}
	return out
}

// Accelerator is the first (by name) accelerator a container requests or
// limits to a positive quantity: a GPU (nvidia.com/gpu and NVIDIA's MIG
// and shared variants, amd.com/gpu, gpu.intel.com/*), a TPU
// (google.com/tpu), Gaudi (habana.ai/*) or Neuron (aws.amazon.com/neuron*)
// device, or "". The device plugins name these resources; a container
// that asks for one is a model server or trainer that loads weights or
// compiles kernels before it answers.
func Accelerator(c *corev1.Container) string {
	var names []string
	for _, list := range []corev1.ResourceList{c.Resources.Limits, c.Resources.Requests} {
		for name, q := range list {
			if q.Sign() > 0 && isAccelerator(string(name)) {
				names = append(names, string(name))
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return slices.Min(names)
}

func isAccelerator(name string) bool {
	switch {
	case strings.HasPrefix(name, "nvidia.com/"), strings.HasPrefix(name, "gpu.intel.com/"), strings.HasPrefix(name, "habana.ai/"),
		strings.HasPrefix(name, "aws.amazon.com/neuron"):
		return true
	}
	return name == "amd.com/gpu" || name == "google.com/tpu"
}
