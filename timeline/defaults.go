package timeline

import (
	"math"

	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// API-server defaults the model relies on (docs/semantics.md#constants).
// Kept in one table so that rules and docs quote the same numbers.
const (
	DefaultProbePeriod           = 10
	DefaultProbeTimeout          = 1
	DefaultProbeSuccessThreshold = 1
	DefaultProbeFailureThreshold = 3
	DefaultGracePeriod           = 30  // corev1.DefaultTerminationGracePeriodSeconds
	MinimumStopGrace             = 2   // kuberuntime minimumGracePeriodInSeconds
	DefaultProgressDeadline      = 600 // Deployment
	DefaultBackoffLimit          = 6   // Job
	CrashLoopResetAfter          = 600 // crash-loop back-off entry expiry
	CrashLoopInitial             = 10  // initialCrashLoopBackOff
	CrashLoopMax                 = 300 // MaxContainerBackOff
	ReducedCrashLoopInitial      = 1   // with ReduceDefaultCrashLoopBackOffDecay
	ReducedCrashLoopMax          = 60
	CrashLoopGCPeriod            = 2  // housekeeping period that garbage-collects expired entries
	JobInitialBackoff            = 10 // DefaultJobPodFailureBackOff
	// StartedAtResolution: the status manager keeps startedAt in whole
	// seconds (normalizeStatus), and doProbe measures initialDelaySeconds
	// from that copy (P-11).
	StartedAtResolution = 1
)

// defaultProbe applies SetDefaults_Probe: 0 → default for period, timeout,
// success and failure thresholds; initialDelaySeconds has no default.
func defaultProbe(pr *corev1.Probe, p workload.Path) Probe {
	val := func(v int32, def float64, field string) Value {
		x := Value{V: float64(v), Path: p.Join(field), Set: v != 0}
		if v <= 0 {
			// Negative values are rejected by validation; treat them like
			// omitted ones so the arithmetic stays meaningful.
			x.V = def
			x.Set = false
		}
		return x
	}
	out := Probe{
		Path:             p,
		Handler:          handlerKind(pr.ProbeHandler),
		InitialDelay:     val(pr.InitialDelaySeconds, 0, "initialDelaySeconds"),
		Period:           val(pr.PeriodSeconds, DefaultProbePeriod, "periodSeconds"),
		Timeout:          val(pr.TimeoutSeconds, DefaultProbeTimeout, "timeoutSeconds"),
		SuccessThreshold: val(pr.SuccessThreshold, DefaultProbeSuccessThreshold, "successThreshold"),
		FailureThreshold: val(pr.FailureThreshold, DefaultProbeFailureThreshold, "failureThreshold"),
	}
	out.Spacing = math.Max(out.Period.V, out.Timeout.V)
	return out
}

func handlerKind(h corev1.ProbeHandler) string {
	switch {
	case h.Exec != nil:
		return "exec"
	case h.HTTPGet != nil:
		return "httpGet"
	case h.TCPSocket != nil:
		return "tcpSocket"
	case h.GRPC != nil:
		return "grpc"
	}
	return ""
}

// podGrace is the effective pod TGPS: nil → 30; negative → 1 (Pods coerce
// it, and pods created from templates get 1; the kubelet never goes below 1).
func podGrace(spec *corev1.PodSpec, specPath workload.Path, notes *[]Note) Value {
	v := Value{V: DefaultGracePeriod, Path: specPath.Join("terminationGracePeriodSeconds")}
	if spec.TerminationGracePeriodSeconds != nil {
		v.Set = true
		v.V = float64(*spec.TerminationGracePeriodSeconds)
		if v.V < 0 {
			*notes = append(*notes, Note{Path: v.Path, Text: "negative terminationGracePeriodSeconds is coerced to 1 on the pod"})
			v.V = 1
		}
	}
	return v
}

// restartPolicy applies the pod default Always.
func restartPolicy(spec *corev1.PodSpec) corev1.RestartPolicy {
	if spec.RestartPolicy == "" {
		return corev1.RestartPolicyAlways
	}
	return spec.RestartPolicy
}

// Fenceposts resolves maxSurge / maxUnavailable like ResolveFenceposts:
// surge rounds up, unavailable rounds down, both 0 → unavailable 1.
func Fenceposts(surge, unavail *intstr.IntOrString, replicas int32) (s, u int64, err error) {
	def := intstr.FromString("25%")
	if surge == nil {
		surge = &def
	}
	if unavail == nil {
		unavail = &def
	}
	si, err1 := intstr.GetScaledValueFromIntOrPercent(surge, int(replicas), true)
	ui, err2 := intstr.GetScaledValueFromIntOrPercent(unavail, int(replicas), false)
	if err1 != nil {
		err = err1
		si, _ = intstr.GetScaledValueFromIntOrPercent(&def, int(replicas), true)
	}
	if err2 != nil {
		err = err2
		ui, _ = intstr.GetScaledValueFromIntOrPercent(&def, int(replicas), false)
	}
	if si < 0 {
		si = 0
	}
	if ui < 0 {
		ui = 0
	}
	if si == 0 && ui == 0 {
		ui = 1
	}
	return int64(si), int64(ui), err
}
