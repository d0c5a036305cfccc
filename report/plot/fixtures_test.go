package plot

import (
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func i32(v int32) *int32 { return &v }
func i64(v int64) *int64 { return &v }

func httpProbe(d, p, ft int32) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
		InitialDelaySeconds: d, PeriodSeconds: p, FailureThreshold: ft}
}

// fixtures are the hand-made workloads of the golden files: a Deployment
// with startup, liveness, readiness and preStop; a StatefulSet with a
// sidecar; a Job.
func fixtures() []Item {
	p := timeline.DefaultParams()
	always := corev1.ContainerRestartPolicyAlways

	deploy := &workload.Workload{Kind: "Deployment", SpecPath: "spec.template.spec",
		Annotations: map[string]string{timeline.AnnotationExpectedStartup: "web=45s"},
		Deployment:  &appsv1.DeploymentSpec{Replicas: i32(4), MinReadySeconds: 10},
		Spec: &corev1.PodSpec{
			TerminationGracePeriodSeconds: i64(40),
			Containers: []corev1.Container{{
				Name:           "web",
				StartupProbe:   httpProbe(0, 5, 24),
				LivenessProbe:  httpProbe(0, 10, 3),
				ReadinessProbe: httpProbe(0, 5, 1),
				Lifecycle:      &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 15}}},
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}},
			}},
		}}

	sts := &workload.Workload{Kind: "StatefulSet", SpecPath: "spec.template.spec",
		StatefulSet: &appsv1.StatefulSetSpec{Replicas: i32(3), MinReadySeconds: 5},
		Spec: &corev1.PodSpec{
			InitContainers: []corev1.Container{
				{Name: "init-perms"},
				{Name: "mesh-proxy", RestartPolicy: &always, StartupProbe: httpProbe(0, 2, 15),
					Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/sh", "-c", "sleep 5"}}}}},
			},
			Containers: []corev1.Container{{Name: "db", ReadinessProbe: httpProbe(10, 10, 3), LivenessProbe: httpProbe(30, 10, 6),
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}}},
		}}
	stsParams := p
	stsParams.ImagePull, stsParams.InitRun = timeline.Seconds(3), timeline.Seconds(2)

	job := &workload.Workload{Kind: "Job", SpecPath: "spec.template.spec", JobPath: "spec",
		Job: &batchv1.JobSpec{BackoffLimit: i32(4), ActiveDeadlineSeconds: i64(600)},
		Spec: &corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "report", Image: "busybox"}}}}
	jobParams := p
	jobParams.JobRun = timeline.Seconds(60)

	return []Item{
		{File: "deploy.yaml", Line: 1, APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Timeline: timeline.Compute(deploy, timeline.Latest, p)},
		{File: "db.yaml", Line: 3, APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", Timeline: timeline.Compute(sts, timeline.Latest, stsParams)},
		{File: "job.yaml", Line: 1, APIVersion: "batch/v1", Kind: "Job", Name: "nightly-report", Timeline: timeline.Compute(job, timeline.Version{Major: 1, Minor: 27}, jobParams)},
	}
}
