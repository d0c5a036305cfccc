// Package crossobject is the view of all objects of one run (one rendered chart
// or kustomization, or the files given together): the workloads and the
// objects that act on their Pods from outside, grouped by namespace.
// Services, PodDisruptionBudgets, HorizontalPodAutoscalers and
// PersistentVolumeClaims are kept whole but small; workloads are kept as
// summaries (labels, replicas, ports, claims and the positions of those
// fields), so a run never holds a file in memory after it was linted.
//
// Label selection follows the API exactly, through k8s.io/apimachinery's own
// selector functions: matchLabels and matchExpressions, objects of another
// namespace are never selected, a Service without a selector selects
// nothing, a null PodDisruptionBudget selector selects nothing and an empty
// one (policy/v1) every Pod of the namespace. Workloads are indexed by
// template label, so the cost is linear in the objects of a namespace.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package crossobject

import (
	"slices"
	"sort"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pos names a field of an object of the run: its file, the index of its
// YAML document and its field path. Positions are resolved to lines only
// for the findings that need them, after the run (keeping line numbers and
// snippets of every workload would cost every run, also those with nothing
// to compare).
type Pos struct {
	File    string
	Doc     int
	Path    workload.Path
	Message string // what a related position is
}

// Object is what every entry of the view has.
type Object struct {
	Ref  finding.ObjectRef
	File string
	Doc  int           // index of the YAML document in the file
	Path workload.Path // "" or "items[i]" inside a List
	// Source is the chart template the object was rendered from ("" when
	// unknown), for messages.
	Source string
	// Annotations of the object (for suppressions); nil for workloads,
	// whose suppressions the analyzer reads while it lints them.
	Annotations map[string]string
}

// At is the position of a field of the object (rel relative to it; ""
// for the object itself).
func (o *Object) At(rel string) Pos {
	return Pos{File: o.File, Doc: o.Doc, Path: o.Path.Join(rel)}
}

// Key identifies the object in its run.
func (o *Object) Key() Pos { return Pos{File: o.File, Doc: o.Doc, Path: o.Path} }

// Workload is the summary of a workload that cross-object rules need.
type Workload struct {
	Object
	Labels       map[string]string // of the pod template
	TemplatePath workload.Path     // full path of the pod template (the object for a Pod)
	SpecPath     workload.Path     // full path of the Pod spec
	Scaled       bool              // has spec.replicas (Deployment, StatefulSet, ReplicaSet, ReplicationController)
	Replicas     int32             // spec.replicas after defaulting (1)
	// RunsToCompletion: a Job, a CronJob, a Pod whose restartPolicy is not
	// Always, or a Helm hook (a `helm test` Pod): it is not meant to serve
	// the traffic a Service might send it.
	RunsToCompletion bool
	// ScrapePort is the port the prometheus.io/port annotation names
	// (ScrapedPort), or "".
	ScrapePort string
	// Mesh is the service mesh whose proxy the Pod template asks to have
	// injected (MeshInjected): "linkerd", "istio" or "".
	Mesh string
	// Deployment only.
	Deployment     bool
	Strategy       string // RollingUpdate or Recreate after defaulting
	MaxSurge       *intstr.IntOrString
	MaxUnavailable *intstr.IntOrString
	Containers     []Container
	Claims         []Claim
	// Identity is the workload's kind, name, namespace and
	// podlint.dev/expected-startup annotation: what
	// timeline.ExpectedStartup reads, kept without the Pod spec.
	Identity *workload.Workload
}

// LabelsAt is the pod template's labels.
func (w *Workload) LabelsAt() Pos {
	return Pos{File: w.File, Doc: w.Doc, Path: w.TemplatePath.Join("metadata.labels")}
}

// ReplicasAt is spec.replicas.
func (w *Workload) ReplicasAt() Pos { return w.At("spec.replicas") }

// StrategyAt is a Deployment's spec.strategy.
func (w *Workload) StrategyAt() Pos { return w.At("spec.strategy") }

// Container is a regular container (or a sidecar) of a workload.
type Container struct {
	Name      string
	Image     string
	Index     int  // in containers, or initContainers for a sidecar
	Sidecar   bool // an init container with restartPolicy Always
	Ports     []corev1.ContainerPort
	Readiness bool
	// What PL705 reads of its start-up: the liveness probe's
	// initialDelaySeconds (0 without one), whether a startupProbe holds
	// Ready back, and the first accelerator it requests (Accelerator).
	LivenessDelay int32
	StartupProbe  bool
	Accelerator   string
}

// ContainerAt is the container's item.
func (w *Workload) ContainerAt(c *Container) Pos {
	list := "containers"
	if c.Sidecar {
		list = "initContainers"
	}
	return Pos{File: w.File, Doc: w.Doc, Path: w.SpecPath.Field(list).Index(c.Index)}
}

// Claim is a persistentVolumeClaim volume of a workload.
type Claim struct {
	Volume string
	Name   string // claimName
	Index  int    // in volumes
}

// ClaimAt is the volume's claimName.
func (w *Workload) ClaimAt(c *Claim) Pos {
	return Pos{File: w.File, Doc: w.Doc, Path: w.SpecPath.Field("volumes").Index(c.Index).Join("persistentVolumeClaim.claimName")}
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name       string
	Port       int32
	Protocol   corev1.Protocol
	TargetPort intstr.IntOrString // defaulted to Port
	Index      int
	TargetSet  bool // targetPort is written
}

// Service is a Service of the run.
type Service struct {
	Object
	Type     corev1.ServiceType
	Selector map[string]string // nil or empty: selects nothing
	Labels   map[string]string // of the Service, which ServiceMonitors select
	Ports    []ServicePort
	// PublishNotReady: endpoints include Pods that are not Ready.
	PublishNotReady bool
}

// SelectorAt is spec.selector.
func (s *Service) SelectorAt() Pos { return s.At("spec.selector") }

// PortAt is the port's targetPort, or its port when targetPort is unset.
func (s *Service) PortAt(sp *ServicePort) Pos {
	field := "port"
	if sp.TargetSet {
		field = "targetPort"
	}
	return Pos{File: s.File, Doc: s.Doc, Path: s.Path.Join("spec.ports").Index(sp.Index).Field(field)}
}

// PDB is a PodDisruptionBudget of the run.
type PDB struct {
	Object
	// Selector is nil when the spec's selector is null or invalid: it
	// selects nothing.
	Selector       labels.Selector
	MinAvailable   *intstr.IntOrString
	MaxUnavailable *intstr.IntOrString
}

// SelectorAt is spec.selector.
func (b *PDB) SelectorAt() Pos { return b.At("spec.selector") }

// BudgetAt is maxUnavailable or minAvailable, else spec.
func (b *PDB) BudgetAt() Pos {
	switch {
	case b.MaxUnavailable != nil:
		return b.At("spec.maxUnavailable")
	case b.MinAvailable != nil:
		return b.At("spec.minAvailable")
	}
	return b.At("spec")
}

// HPA is a HorizontalPodAutoscaler of the run.
type HPA struct {
	Object
	TargetKind, TargetName string
	MinReplicas            int32 // default 1
	MaxReplicas            int32
}

// MinAt is spec.minReplicas.
func (h *HPA) MinAt() Pos { return h.At("spec.minReplicas") }

// PVC is a PersistentVolumeClaim of the run.
type PVC struct {
	Object
	AccessModes      []corev1.PersistentVolumeAccessMode
	StorageClassName string
}

// AccessModesAt is spec.accessModes.
func (c *PVC) AccessModesAt() Pos { return c.At("spec.accessModes") }

// PodMonitor is a Prometheus operator PodMonitor (monitoring.coreos.com)
// of the run: which Pods it scrapes, and on which ports.
type PodMonitor struct {
	Object
	MonitorScope
	// Ports are the podMetricsEndpoints' port names, portNumbers and
	// targetPorts, as written.
	Ports []string
}

// MonitorScope is which objects a Prometheus operator monitor selects.
type MonitorScope struct {
	// Selector is nil when the spec's selector is invalid: it selects
	// nothing. An empty selector selects every object.
	Selector labels.Selector
	// Namespaces are namespaceSelector.matchNames; empty means the
	// monitor's own namespace, unless AnyNamespace.
	Namespaces   []string
	AnyNamespace bool
}

// selects reports whether a monitor in namespace own selects an object
// with these labels in namespace ns.
func (s *MonitorScope) selects(own, ns string, set labels.Set) bool {
	if s.Selector == nil || !s.Selector.Matches(set) {
		return false
	}
	return s.AnyNamespace || len(s.Namespaces) == 0 && own == ns || slices.Contains(s.Namespaces, ns)
}

// ServiceMonitor is a Prometheus operator ServiceMonitor
// (monitoring.coreos.com) of the run: which Services it scrapes, and on
// which of their ports.
type ServiceMonitor struct {
	Object
	MonitorScope
	// Ports are the endpoints' port (a Service port name) and targetPort
	// values, as written.
	Ports []string
}

// Part is what one file contributes, in document order.
type Part struct {
	// File and the documents [From, To) of it that the part summarizes,
	// for loading them again (Restore).
	File     string
	From, To int
	// Dropped lists the namespaces whose workloads were left out of the
	// part (Drop) and are to be summarized again if the namespace turns
	// out to hold an object the cross-object rules compare them with.
	Dropped         []string
	Workloads       []*Workload
	Services        []*Service
	PDBs            []*PDB
	HPAs            []*HPA
	PVCs            []*PVC
	PodMonitors     []*PodMonitor
	ServiceMonitors []*ServiceMonitor
	// IDs are the identities of the part's named workloads and kept
	// objects, dropped or not, for Partition.
	IDs             []uint64
	StorageClasses  map[string]string // name → volumeBindingMode
	PriorityClasses map[string]int32  // name → value
}

// Drop leaves out the workloads of the namespaces that keep rejects,
// remembering those namespaces. A run that holds many workloads keeps
// memory flat this way: a workload matters to the cross-object rules only
// in a namespace that also holds a Service, a budget, an autoscaler, a
// claim or is scraped by a PodMonitor, and one seen before such an object
// is summarized again at the end (Restore).
func (p *Part) Drop(keep func(namespace string) bool) {
	out := p.Workloads[:0]
	for _, w := range p.Workloads {
		ns := w.Ref.Namespace
		if keep(ns) {
			out = append(out, w)
			continue
		}
		if !slices.Contains(p.Dropped, ns) {
			p.Dropped = append(p.Dropped, ns)
		}
	}
	clear(p.Workloads[len(out):])
	p.Workloads = out
}

// Restore summarizes again the workloads of the part's documents when a
// namespace it dropped is relevant; objs are the objects of documents
// [From, To) loaded again, in order. The part's workloads are then
// exactly those Add recorded, in the same order.
func (p *Part) Restore(objs []*manifest.Object) {
	ws := p.Workloads[:0]
	for _, o := range objs {
		if o.Workload != nil {
			ws = append(ws, summarize(o))
		}
	}
	p.Workloads, p.Dropped = ws, nil
}

// Compact returns a copy of p that holds only what the view needs (the
// part of a batch is a field of a larger struct, and its lists have spare
// capacity), or nil when p holds nothing and dropped nothing.
func (p *Part) Compact() *Part {
	if p.Empty() && len(p.Dropped) == 0 {
		return nil
	}
	c := *p
	c.Workloads = slices.Clone(p.Workloads)
	if len(c.Workloads) == 0 {
		c.Workloads = nil
	}
	c.IDs = slices.Clip(p.IDs)
	return &c
}

// NeedsRestore reports whether a namespace the part dropped is relevant.
func (p *Part) NeedsRestore(r *Relevance) bool {
	for _, ns := range p.Dropped {
		if r.Has(ns) {
			return true
		}
	}
	return false
}

// Relevance is the set of namespaces in which workloads matter to the
// cross-object rules: those holding a Service, a PodDisruptionBudget, a
// HorizontalPodAutoscaler or a PersistentVolumeClaim, and those a
// PodMonitor scrapes.
type Relevance struct {
	namespaces map[string]bool
	all        bool // a PodMonitor scrapes every namespace
}

// Add records the namespaces that the objects of p make relevant.
func (r *Relevance) Add(p *Part) {
	if r.namespaces == nil {
		r.namespaces = map[string]bool{}
	}
	for _, s := range p.Services {
		r.namespaces[s.Ref.Namespace] = true
	}
	for _, b := range p.PDBs {
		r.namespaces[b.Ref.Namespace] = true
	}
	for _, h := range p.HPAs {
		r.namespaces[h.Ref.Namespace] = true
	}
	for _, c := range p.PVCs {
		r.namespaces[c.Ref.Namespace] = true
	}
	for _, m := range p.PodMonitors {
		r.all = r.all || m.AnyNamespace
		if len(m.Namespaces) == 0 {
			r.namespaces[m.Ref.Namespace] = true
		}
		for _, ns := range m.Namespaces {
			r.namespaces[ns] = true
		}
	}
}

// Has reports whether workloads of the namespace matter.
func (r *Relevance) Has(namespace string) bool { return r.all || r.namespaces[namespace] }

// Empty reports whether the part holds nothing.
func (p *Part) Empty() bool {
	return len(p.Workloads)+len(p.Services)+len(p.PDBs)+len(p.HPAs)+len(p.PVCs)+len(p.PodMonitors)+len(p.ServiceMonitors)+len(p.StorageClasses)+len(p.PriorityClasses) == 0 && len(p.IDs) == 0
}

// View is every object of a run, grouped by namespace.
type View struct {
	namespaces      map[string]*Namespace
	names           []string
	StorageClasses  map[string]string
	PriorityClasses map[string]int32
	podMonitors     []*PodMonitor
	serviceMonitors []*ServiceMonitor
	others          int // objects that are not workloads
}

// Namespace holds the objects of one namespace. Objects without a namespace
// form the namespace "": they are applied together (kubectl apply -n, helm
// install) and never match objects that name a namespace.
type Namespace struct {
	Name      string
	Workloads []*Workload
	Services  []*Service
	PDBs      []*PDB
	HPAs      []*HPA
	PVCs      map[string]*PVC
	byLabel   map[labelPair][]int // template label → indexes into Workloads
	// computed on first use, by selecting from each Service and budget
	servicesOf map[*Workload][]*Service
	pdbsOf     map[*Workload][]*PDB
	hpaOf      map[[2]string]*HPA
}

type labelPair struct{ k, v string }

// Build joins the parts of one environment (Partition) in order. An
// object defined twice in one environment can only be defined twice in one
// file (two files that define it are in different environments); it is one
// object in a cluster, and the view keeps its first definition, so that it
// is not matched with itself.
func Build(parts []*Part) *View {
	v := &View{namespaces: map[string]*Namespace{}, StorageClasses: map[string]string{}, PriorityClasses: map[string]int32{}}
	seen := map[finding.ObjectRef]bool{}
	first := func(o *Object) bool {
		k := o.Ref
		k.APIVersion = ""
		if o.Ref.Name == "" {
			return true // generateName or a fragment: cannot be the same object
		}
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	for _, p := range parts {
		if p == nil {
			continue
		}
		for _, w := range p.Workloads {
			if !first(&w.Object) {
				continue
			}
			n := v.ns(w.Ref.Namespace)
			i := len(n.Workloads)
			n.Workloads = append(n.Workloads, w)
			for k, val := range w.Labels {
				lp := labelPair{k, val}
				n.byLabel[lp] = append(n.byLabel[lp], i)
			}
		}
		for _, s := range p.Services {
			if first(&s.Object) {
				v.ns(s.Ref.Namespace).Services = append(v.ns(s.Ref.Namespace).Services, s)
			}
		}
		for _, b := range p.PDBs {
			if first(&b.Object) {
				v.ns(b.Ref.Namespace).PDBs = append(v.ns(b.Ref.Namespace).PDBs, b)
			}
		}
		for _, h := range p.HPAs {
			if first(&h.Object) {
				v.ns(h.Ref.Namespace).HPAs = append(v.ns(h.Ref.Namespace).HPAs, h)
			}
		}
		for _, c := range p.PVCs {
			if first(&c.Object) {
				v.ns(c.Ref.Namespace).PVCs[c.Ref.Name] = c
			}
		}
		for _, m := range p.PodMonitors {
			if first(&m.Object) {
				v.podMonitors = append(v.podMonitors, m)
			}
		}
		for _, m := range p.ServiceMonitors {
			if first(&m.Object) {
				v.serviceMonitors = append(v.serviceMonitors, m)
			}
		}
		for k, m := range p.StorageClasses {
			v.StorageClasses[k] = m
		}
		for k, val := range p.PriorityClasses {
			v.PriorityClasses[k] = val
		}
		v.others += len(p.Services) + len(p.PDBs) + len(p.HPAs) + len(p.PVCs) + len(p.PodMonitors) + len(p.ServiceMonitors) + len(p.StorageClasses) + len(p.PriorityClasses)
	}
	for name := range v.namespaces {
		v.names = append(v.names, name)
	}
	sort.Strings(v.names)
	return v
}

func (v *View) ns(name string) *Namespace {
	n := v.namespaces[name]
	if n == nil {
		n = &Namespace{Name: name, PVCs: map[string]*PVC{}, byLabel: map[labelPair][]int{}}
		v.namespaces[name] = n
	}
	return n
}

// HasOthers reports whether the run holds any object besides workloads;
// without one, no cross-object rule has anything to say.
func (v *View) HasOthers() bool { return v.others > 0 }

// Namespaces lists the namespaces in name order.
func (v *View) Namespaces() []*Namespace {
	out := make([]*Namespace, len(v.names))
	for i, n := range v.names {
		out[i] = v.namespaces[n]
	}
	return out
}

// Namespace returns a namespace of the view, or nil.
func (v *View) Namespace(name string) *Namespace { return v.namespaces[name] }

// ScrapedPorts lists the ports (names or numbers, as the PodMonitors write
// them) that the PodMonitors of the run scrape on the Pods of w.
func (v *View) ScrapedPorts(w *Workload) []string {
	var out []string
	for _, m := range v.podMonitors {
		if m.selects(m.Ref.Namespace, w.Ref.Namespace, w.Labels) {
			out = append(out, m.Ports...)
		}
	}
	return out
}

// ServiceScrapedPorts lists the ports (Service port names or target
// ports, as the ServiceMonitors write them) that the ServiceMonitors of the
// run scrape through the Service s.
func (v *View) ServiceScrapedPorts(s *Service) []string {
	var out []string
	for _, m := range v.serviceMonitors {
		if m.selects(m.Ref.Namespace, s.Ref.Namespace, s.Labels) {
			out = append(out, m.Ports...)
		}
	}
	return out
}

// MeshInjected names the service mesh whose proxy the annotations or
// labels of a Pod template ask the mesh's admission webhook to inject:
// "linkerd" for linkerd.io/inject enabled or ingress, "istio" for
// sidecar.istio.io/inject "true"; "" otherwise. A namespace-wide injection
// label is not in the manifests of a workload, so it is not seen.
func MeshInjected(templateAnnotations, templateLabels map[string]string) string {
	switch strings.TrimSpace(templateAnnotations["linkerd.io/inject"]) {
	case "enabled", "ingress":
		return "linkerd"
	}
	for _, m := range []map[string]string{templateLabels, templateAnnotations} {
		if strings.TrimSpace(m["sidecar.istio.io/inject"]) == "true" {
			return "istio"
		}
	}
	return ""
}

// ScrapedPort is the port the prometheus.io/port annotation of the Pod
// template (else of the workload) names for Prometheus to scrape, or "".
func ScrapedPort(templateAnnotations, objectAnnotations map[string]string) string {
	if v := strings.TrimSpace(templateAnnotations["prometheus.io/port"]); v != "" {
		return v
	}
	return strings.TrimSpace(objectAnnotations["prometheus.io/port"])
}

// candidates returns the indexes of the workloads that can match a
// selector with the given required pairs: those of the rarest pair, or all
// when there is none.
func (n *Namespace) candidates(pairs map[string]string) []int {
	var best []int
	first := true
	for k, val := range pairs {
		c := n.byLabel[labelPair{k, val}]
		if first || len(c) < len(best) {
			best, first = c, false
		}
		if len(best) == 0 {
			return nil
		}
	}
	if first {
		all := make([]int, len(n.Workloads))
		for i := range all {
			all[i] = i
		}
		return all
	}
	return best
}

// SelectedByService returns the workloads whose Pods a Service selects. A
// Service without selector selects none (its endpoints are managed by
// hand).
func (n *Namespace) SelectedByService(s *Service) []*Workload {
	if len(s.Selector) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(s.Selector)
	var out []*Workload
	for _, i := range n.candidates(s.Selector) {
		if w := n.Workloads[i]; sel.Matches(labels.Set(w.Labels)) {
			out = append(out, w)
		}
	}
	return out
}

// SelectedByPDB returns the workloads whose Pods a budget covers.
func (n *Namespace) SelectedByPDB(b *PDB) []*Workload {
	if b.Selector == nil {
		return nil
	}
	var out []*Workload
	for _, i := range n.candidates(exactPairs(b.Selector)) {
		if w := n.Workloads[i]; b.Selector.Matches(labels.Set(w.Labels)) {
			out = append(out, w)
		}
	}
	return out
}

// exactPairs lists the label pairs a selector requires with = or a
// one-value In, which the index can look up.
func exactPairs(sel labels.Selector) map[string]string {
	reqs, _ := sel.Requirements()
	var out map[string]string
	for _, r := range reqs {
		if v, ok := sel.RequiresExactMatch(r.Key()); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[r.Key()] = v
		}
	}
	return out
}

// PDBSelector converts a budget's selector as the disruption controller
// does (metav1.LabelSelectorAsSelector): nil selects nothing, an empty one
// everything in policy/v1. policy/v1beta1 treated an empty selector as
// selecting nothing.
func PDBSelector(s *metav1.LabelSelector, v1beta1 bool) labels.Selector {
	if s == nil || (v1beta1 && len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		return nil
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return nil
	}
	return sel
}

// PDBsCovering returns the budgets that select a workload's Pods, in
// document order.
func (n *Namespace) PDBsCovering(w *Workload) []*PDB {
	if n.pdbsOf == nil {
		n.pdbsOf = map[*Workload][]*PDB{}
		for _, b := range n.PDBs {
			for _, x := range n.SelectedByPDB(b) {
				n.pdbsOf[x] = append(n.pdbsOf[x], b)
			}
		}
	}
	return n.pdbsOf[w]
}

// ServicesSelecting returns the Services that send traffic to a workload's
// Pods, in document order.
func (n *Namespace) ServicesSelecting(w *Workload) []*Service {
	if n.servicesOf == nil {
		n.servicesOf = map[*Workload][]*Service{}
		for _, s := range n.Services {
			for _, x := range n.SelectedByService(s) {
				n.servicesOf[x] = append(n.servicesOf[x], s)
			}
		}
	}
	return n.servicesOf[w]
}

// HPAFor returns the autoscaler whose scaleTargetRef names the workload.
func (n *Namespace) HPAFor(w *Workload) *HPA {
	if n.hpaOf == nil {
		n.hpaOf = map[[2]string]*HPA{}
		for _, h := range n.HPAs {
			k := [2]string{h.TargetKind, h.TargetName}
			if n.hpaOf[k] == nil {
				n.hpaOf[k] = h
			}
		}
	}
	return n.hpaOf[[2]string{w.Ref.Kind, w.Ref.Name}]
}

// ReplicaRange is the number of replicas a workload runs with: spec.replicas,
// or the range of its autoscaler.
func (n *Namespace) ReplicaRange(w *Workload) (lo, hi int32, h *HPA) {
	if h = n.HPAFor(w); h != nil {
		return h.MinReplicas, max(h.MaxReplicas, h.MinReplicas), h
	}
	return w.Replicas, w.Replicas, nil
}

// First is where the first object of the view starts, for findings about
// the run as a whole.
func (v *View) First() (Pos, bool) {
	for _, name := range v.names {
		n := v.namespaces[name]
		switch {
		case len(n.Workloads) > 0:
			return n.Workloads[0].Key(), true
		case len(n.Services) > 0:
			return n.Services[0].Key(), true
		case len(n.PDBs) > 0:
			return n.PDBs[0].Key(), true
		case len(n.HPAs) > 0:
			return n.HPAs[0].Key(), true
		}
	}
	return Pos{}, false
}
