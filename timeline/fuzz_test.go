package timeline

import (
	"testing"

	"github.com/podlint/podlint/workload"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

var batchJob = batchv1.JobSpec{}

// FuzzCompute builds a workload from fuzzed integers and checks the model's
// invariants; it must never panic (run: go test -fuzz=FuzzCompute ./timeline).
func FuzzCompute(f *testing.F) {
	f.Add(int32(5), int32(10), int32(1), int32(1), int32(3), int64(30), int64(0), uint8(1), uint8(0), int32(6), int32(3), "90s")
	f.Add(int32(0), int32(0), int32(0), int32(0), int32(0), int64(-1), int64(40), uint8(255), uint8(7), int32(0), int32(0), "app=1m30s,side-*=5")
	f.Add(int32(2147483647), int32(2147483647), int32(2147483647), int32(2147483647), int32(2147483647), int64(9223372036854775807), int64(2147483647), uint8(0x55), uint8(3), int32(2147483647), int32(2147483647), "bogus")
	f.Add(int32(-5), int32(-1), int32(-1), int32(-1), int32(-1), int64(-9223372036854775808), int64(-3), uint8(0xff), uint8(0xff), int32(-1), int32(-1), "")
	f.Fuzz(func(t *testing.T, d, p, to, st, ft int32, grace, sleep int64, shape, kind uint8, limit, replicas int32, ann string) {
		pr := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{}},
			InitialDelaySeconds: d, PeriodSeconds: p, TimeoutSeconds: to, SuccessThreshold: st, FailureThreshold: ft,
			TerminationGracePeriodSeconds: &grace}
		ctr := corev1.Container{Name: "app"}
		if shape&1 != 0 {
			ctr.StartupProbe = pr
		}
		if shape&2 != 0 {
			ctr.LivenessProbe = pr
		}
		if shape&4 != 0 {
			ctr.ReadinessProbe = pr
		}
		if shape&8 != 0 {
			ctr.Lifecycle = &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: sleep}},
				PostStart: &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: sleep}}}
		}
		var spec *corev1.PodSpec
		if shape&16 == 0 {
			spec = &corev1.PodSpec{TerminationGracePeriodSeconds: &grace, ActiveDeadlineSeconds: &sleep}
			if shape&32 != 0 {
				spec.Containers = []corev1.Container{ctr}
			}
			if shape&64 != 0 {
				always := corev1.ContainerRestartPolicyAlways
				side := ctr
				side.Name = "side-a"
				side.RestartPolicy = &always
				spec.InitContainers = []corev1.Container{{Name: "init"}, side, side}
			}
			if shape&128 != 0 {
				spec.RestartPolicy = corev1.RestartPolicyOnFailure
			}
		}
		w := &workload.Workload{Kind: "Pod", SpecPath: "spec", Spec: spec, Annotations: map[string]string{AnnotationExpectedStartup: ann, AnnotationExpectedShutdown: ann}}
		params := DefaultParams()
		switch kind % 4 {
		case 0:
			if ft%2 != 0 {
				surge, unavail := intstr.FromInt32(to), intstr.FromInt32(st)
				if d%2 != 0 {
					surge = intstr.FromString(ann)
				}
				w.DaemonSet = &appsv1.DaemonSetSpec{MinReadySeconds: d,
					UpdateStrategy: appsv1.DaemonSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxSurge: &surge, MaxUnavailable: &unavail}}}
				params.Nodes = int(replicas)
			}
		case 1:
			w.Deployment = &appsv1.DeploymentSpec{Replicas: &replicas, ProgressDeadlineSeconds: &limit, MinReadySeconds: d}
			if shape&1 != 0 {
				w.Deployment.Strategy.Type = appsv1.RecreateDeploymentStrategyType
			}
		case 2:
			mu := intstr.FromInt32(to)
			w.StatefulSet = &appsv1.StatefulSetSpec{Replicas: &replicas, MinReadySeconds: d,
				UpdateStrategy: appsv1.StatefulSetUpdateStrategy{RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{MaxUnavailable: &mu}}}
			if shape&1 != 0 {
				w.StatefulSet.PodManagementPolicy = appsv1.ParallelPodManagement
			}
		case 3:
			w.Job = &batchv1.JobSpec{BackoffLimit: &limit, ActiveDeadlineSeconds: &sleep, Parallelism: &replicas, Completions: &d}
			if shape&2 != 0 {
				indexed := batchv1.IndexedCompletion
				w.Job.CompletionMode, w.Job.BackoffLimitPerIndex, w.Job.MaxFailedIndexes = &indexed, &to, &st
			}
			if shape&4 != 0 {
				policies := []batchv1.ConcurrencyPolicy{"", batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent}
				w.CronJob = &batchv1.CronJobSpec{Schedule: ann, ConcurrencyPolicy: policies[int(ft&3)%3], StartingDeadlineSeconds: &grace}
			}
		}
		if kind&4 != 0 {
			params.JobRun = Seconds(float64(st))
			params.CrashRun = Seconds(float64(ft))
		}
		tl := Compute(w, Version{Major: 1, Minor: int(kind>>3) + 25}, params)
		checkInvariants(t, tl)
	})
}
