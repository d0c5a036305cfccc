package manifest

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/podlint/podlint/workload"
	yaml "go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kindInfo says how to decode one workload kind and where its Pod template is.
type kindInfo struct {
	typ       reflect.Type
	normalize func(o *Object, path workload.Path)
}

// workloadKinds maps group (the part of apiVersion before "/", "" for core)
// and kind to its decoding. Older group versions (extensions/v1beta1,
// apps/v1beta2, batch/v1beta1) decode into the current types, whose Pod
// template is the same.
var workloadKinds = map[string]map[string]*kindInfo{
	"": {
		"Pod":                   {reflect.TypeFor[corev1.Pod](), normalizePod},
		"ReplicationController": {reflect.TypeFor[corev1.ReplicationController](), normalizeRC},
		"PodTemplate":           {reflect.TypeFor[corev1.PodTemplate](), normalizePodTemplate},
	},
	"apps": {
		"Deployment":  {reflect.TypeFor[appsv1.Deployment](), normalizeDeployment},
		"StatefulSet": {reflect.TypeFor[appsv1.StatefulSet](), normalizeStatefulSet},
		"DaemonSet":   {reflect.TypeFor[appsv1.DaemonSet](), normalizeDaemonSet},
		"ReplicaSet":  {reflect.TypeFor[appsv1.ReplicaSet](), normalizeReplicaSet},
	},
	"batch": {
		"Job":     {reflect.TypeFor[batchv1.Job](), normalizeJob},
		"CronJob": {reflect.TypeFor[batchv1.CronJob](), normalizeCronJob},
	},
}

func init() {
	workloadKinds["extensions"] = map[string]*kindInfo{
		"Deployment": workloadKinds["apps"]["Deployment"],
		"DaemonSet":  workloadKinds["apps"]["DaemonSet"],
		"ReplicaSet": workloadKinds["apps"]["ReplicaSet"],
	}
}

// genericTemplate decodes the spec.template of any other kind.
var genericTemplate = kindInfo{reflect.TypeFor[corev1.PodTemplateSpec](), normalizeGeneric}

func lookupKind(apiVersion, kind string) *kindInfo {
	group := ""
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		group = apiVersion[:i]
	}
	return workloadKinds[group][kind]
}

// servedAs returns the apiVersion a built-in workload kind is served as,
// or "" when kind is no built-in workload kind. extensions/v1beta1 is left
// out: it is long gone, and apps/v1 is the current version of its kinds.
func servedAs(kind string) string {
	switch {
	case workloadKinds[""][kind] != nil:
		return "v1"
	case workloadKinds["apps"][kind] != nil:
		return "apps/v1"
	case workloadKinds["batch"][kind] != nil:
		return "batch/v1"
	}
	return ""
}

// kindMismatch explains why the API server serves no kind of that name in
// apiVersion, for a built-in workload kind written with the apiVersion of
// another built-in group (`kind: Pod` in apps/v1, a Deployment in v1), or
// returns "". Kinds of other groups are custom resources, which podlint
// cannot check.
func kindMismatch(apiVersion, kind string) string {
	group, builtin := "", false
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		group = apiVersion[:i]
	}
	_, builtin = workloadKinds[group]
	want := servedAs(kind)
	if !builtin || want == "" || lookupKind(apiVersion, kind) != nil {
		return ""
	}
	return fmt.Sprintf("kind %s is not served by apiVersion %s; kubectl fails with `no matches for kind %q in version %q` and nothing is created. %s is in %s: write apiVersion: %s",
		kind, apiVersion, kind, apiVersion, kind, want, want)
}

// IsWorkloadKind reports whether podlint decodes kind natively.
func IsWorkloadKind(apiVersion, kind string) bool { return lookupKind(apiVersion, kind) != nil }

func overlay(a, b map[string]string) map[string]string {
	if len(a) == 0 {
		return b
	}
	if len(b) == 0 {
		return a
	}
	m := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

func setWorkload(o *Object, meta, tmeta *metav1.ObjectMeta, tmplPath, specPath workload.Path, spec *corev1.PodSpec) *workload.Workload {
	o.Meta, o.TemplateMeta, o.TemplatePath = meta, tmeta, tmplPath
	if o.Ref.Name == "" {
		o.Ref.Name = meta.Name
	}
	if o.Ref.Namespace == "" {
		o.Ref.Namespace = meta.Namespace
	}
	o.Workload = &workload.Workload{
		Kind:        o.Ref.Kind,
		Name:        meta.Name,
		Namespace:   meta.Namespace,
		Path:        o.Path,
		SpecPath:    specPath,
		Spec:        spec,
		Annotations: overlay(meta.Annotations, tmeta.Annotations),
	}
	if len(o.Workload.Annotations) > 0 {
		paths := make(map[string]workload.Path, len(o.Workload.Annotations))
		objMeta := o.Path.Field("metadata").Field("annotations")
		tmplMeta := tmplPath.Field("metadata").Field("annotations")
		for k := range meta.Annotations {
			paths[k] = objMeta.Field(k)
		}
		if tmeta != meta {
			for k := range tmeta.Annotations {
				paths[k] = tmplMeta.Field(k) // the template wins, as in Annotations
			}
		}
		o.Workload.AnnotationPaths = paths
	}
	return o.Workload
}

func normalizePod(o *Object, path workload.Path) {
	p := o.Typed.(*corev1.Pod)
	setWorkload(o, &p.ObjectMeta, &p.ObjectMeta, path, path.Field("spec"), &p.Spec)
}

func templateOf(o *Object, path workload.Path, meta *metav1.ObjectMeta, t *corev1.PodTemplateSpec) *workload.Workload {
	tp := path.Field("spec").Field("template")
	return setWorkload(o, meta, &t.ObjectMeta, tp, tp.Field("spec"), &t.Spec)
}

func normalizeRC(o *Object, path workload.Path) {
	rc := o.Typed.(*corev1.ReplicationController)
	if rc.Spec.Template == nil {
		rc.Spec.Template = &corev1.PodTemplateSpec{}
	}
	templateOf(o, path, &rc.ObjectMeta, rc.Spec.Template).ReplicationController = &rc.Spec
}

func normalizePodTemplate(o *Object, path workload.Path) {
	pt := o.Typed.(*corev1.PodTemplate)
	tp := path.Field("template")
	setWorkload(o, &pt.ObjectMeta, &pt.Template.ObjectMeta, tp, tp.Field("spec"), &pt.Template.Spec)
}

func normalizeDeployment(o *Object, path workload.Path) {
	d := o.Typed.(*appsv1.Deployment)
	templateOf(o, path, &d.ObjectMeta, &d.Spec.Template).Deployment = &d.Spec
}

func normalizeStatefulSet(o *Object, path workload.Path) {
	s := o.Typed.(*appsv1.StatefulSet)
	templateOf(o, path, &s.ObjectMeta, &s.Spec.Template).StatefulSet = &s.Spec
}

func normalizeDaemonSet(o *Object, path workload.Path) {
	d := o.Typed.(*appsv1.DaemonSet)
	templateOf(o, path, &d.ObjectMeta, &d.Spec.Template).DaemonSet = &d.Spec
}

func normalizeReplicaSet(o *Object, path workload.Path) {
	r := o.Typed.(*appsv1.ReplicaSet)
	templateOf(o, path, &r.ObjectMeta, &r.Spec.Template).ReplicaSet = &r.Spec
}

func normalizeJob(o *Object, path workload.Path) {
	j := o.Typed.(*batchv1.Job)
	w := templateOf(o, path, &j.ObjectMeta, &j.Spec.Template)
	w.Job, w.JobPath = &j.Spec, path.Field("spec")
}

func normalizeCronJob(o *Object, path workload.Path) {
	c := o.Typed.(*batchv1.CronJob)
	jp := path.Field("spec").Field("jobTemplate")
	tp := jp.Field("spec").Field("template")
	t := &c.Spec.JobTemplate.Spec.Template
	w := setWorkload(o, &c.ObjectMeta, &t.ObjectMeta, tp, tp.Field("spec"), &t.Spec)
	w.Job, w.JobPath = &c.Spec.JobTemplate.Spec, jp.Field("spec")
	w.CronJob, w.CronJobPath = &c.Spec, path.Field("spec")
}

// jobTargetTemplate decodes the Job spec of a KEDA ScaledJob.
var jobTargetTemplate = kindInfo{reflect.TypeFor[batchv1.JobSpec](), normalizeJobTarget}

// normalizeJobTarget handles a KEDA ScaledJob: only its Job spec was
// decoded (path is spec.jobTargetRef), and KEDA runs Jobs made from it.
func normalizeJobTarget(o *Object, path workload.Path) {
	j := o.Typed.(*batchv1.JobSpec)
	o.Custom = customKind(o.Ref.APIVersion, o.Ref.Kind)
	tp := path.Field("template")
	w := setWorkload(o, customMeta(o), &j.Template.ObjectMeta, tp, tp.Field("spec"), &j.Template.Spec)
	w.Job, w.JobPath = j, path
}

// normalizeGeneric handles a custom resource: only its template was decoded
// (path is the template's path), and its own metadata comes from the nodes.
func normalizeGeneric(o *Object, path workload.Path) {
	t := o.Typed.(*corev1.PodTemplateSpec)
	meta := customMeta(o)
	o.Custom = customKind(o.Ref.APIVersion, o.Ref.Kind)
	spec := &t.Spec
	if o.Custom.defaults != nil {
		spec = t.Spec.DeepCopy()
		o.Custom.defaults(spec)
	}
	setWorkload(o, meta, &t.ObjectMeta, path, path.Field("spec"), spec)
}

// customMeta is a custom resource's own metadata, read from the nodes (its
// template is all that is decoded): name, namespace and annotations.
func customMeta(o *Object) *metav1.ObjectMeta {
	meta := &metav1.ObjectMeta{Name: o.Ref.Name, Namespace: o.Ref.Namespace}
	if md := childAt(o.Node, "metadata", o.Doc.maxDepth); md != nil {
		if an := childAt(md, "annotations", o.Doc.maxDepth); an != nil {
			meta.Annotations = map[string]string{}
			for i := 0; i+1 < len(an.Content); i += 2 {
				k, v := deref(an.Content[i]), deref(an.Content[i+1])
				if k != nil && v != nil && v.Kind == yaml.ScalarNode {
					meta.Annotations[k.Value] = v.Value
				}
			}
		}
	}
	return meta
}
