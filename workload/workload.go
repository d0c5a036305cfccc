// Package workload is the loader's view of one workload object: its Pod
// spec, the controller settings around it and the field paths of each, which
// the timeline model and the rules read. It also holds Path, the one field
// path type of podlint. It imports nothing of podlint, so manifest (which
// fills a Workload) and timeline (which models one) both depend on it and
// not on each other.
//
// It makes no API promise: it is podlint's own, serving its commands, and
// may change in any commit. Use the podlint command, not this package.
package workload

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Workload is what the model needs to know of one object. The loader fills
// it; exactly one of the controller fields is set for controller kinds.
type Workload struct {
	// Kind is the object's kind (Pod, Deployment, …, or a custom resource
	// kind whose spec.template.spec is a Pod spec).
	Kind string
	// SpecPath is the field path of Spec inside the object, such as
	// "spec", "spec.template.spec" or "spec.jobTemplate.spec.template.spec",
	// prefixed with "items[i]." inside a List. Spans the model records use
	// full paths built from it.
	SpecPath Path
	Spec     *corev1.PodSpec
	// Annotations are the object's annotations overlaid with the pod
	// template's (the template wins); podlint.dev/expected-startup and
	// podlint.dev/expected-shutdown are read from here.
	Annotations map[string]string
	// AnnotationPaths gives, for each key of Annotations, the field path of
	// the annotation itself (under the template's metadata or the
	// object's), so that findings about an annotation point at it.
	AnnotationPaths map[string]Path

	// Path is the field path of the object itself ("" or "items[i]").
	Path Path
	// Name and Namespace are the object's (Namespace "" when the manifest
	// states none), which match it to what podlint observe saw.
	Name, Namespace string

	Deployment            *appsv1.DeploymentSpec
	StatefulSet           *appsv1.StatefulSetSpec
	DaemonSet             *appsv1.DaemonSetSpec
	ReplicaSet            *appsv1.ReplicaSetSpec
	ReplicationController *corev1.ReplicationControllerSpec
	// Job is set for a Job and for a CronJob's job template; JobPath is its
	// field path ("spec" or "spec.jobTemplate.spec", List-prefixed).
	Job     *batchv1.JobSpec
	JobPath Path
	// CronJob is set for a CronJob; CronJobPath is its spec's field path.
	CronJob     *batchv1.CronJobSpec
	CronJobPath Path
}

// IsSidecar reports whether an init container is a restartable sidecar
// (restartPolicy: Always, Kubernetes 1.29+). Every package asks this one.
func IsSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}
