package timeline

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a Kubernetes minor version. The zero Version means Latest.
type Version struct{ Major, Minor int }

// Latest is the newest minor the vendored k8s.io/api (v0.37.x) describes.
var Latest = Version{Major: 1, Minor: 37}

// Oldest is the oldest minor whose behaviour podlint models (the version
// table of docs/semantics.md starts there).
var Oldest = Version{Major: 1, Minor: 21}

// ParseVersion accepts "1.33", "v1.33", "1.33.2" and "v1.33.2-eks.1".
func ParseVersion(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.SplitN(t, ".", 3)
	if len(parts) < 2 {
		return Version{}, fmt.Errorf("kubernetes version %q: want MAJOR.MINOR such as 1.33", s)
	}
	major, err := strconv.Atoi(parts[0])
	if err != nil || major < 1 {
		return Version{}, fmt.Errorf("kubernetes version %q: bad major version", s)
	}
	minorText := parts[1]
	// Vendor suffixes such as "1.30+" (GKE) follow the minor directly.
	if i := strings.IndexFunc(minorText, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minorText = minorText[:i]
	}
	minor, err := strconv.Atoi(minorText)
	if err != nil || minor < 0 {
		return Version{}, fmt.Errorf("kubernetes version %q: bad minor version", s)
	}
	return Version{Major: major, Minor: minor}, nil
}

func (v Version) orLatest() Version {
	if v == (Version{}) {
		return Latest
	}
	return v
}

// String is "1.33".
func (v Version) String() string {
	v = v.orLatest()
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// AtLeast reports whether v is 1.minor or newer (any 2.x counts as newer).
func (v Version) AtLeast(minor int) bool {
	v = v.orLatest()
	return v.Major > 1 || v.Minor >= minor
}

// Version-dependent behaviour: docs/semantics.md#version-gates lists every
// method below with its gate, its stages and its default in each minor, and
// a test (internal/integration TestVersionGates) holds the table and these
// methods to the same answers. Each answers "what does a stock cluster of
// this minor do", which is what a manifest meets; none of them can be
// switched on per cluster.

// Stage is what a stock cluster of one minor does with a feature that
// brings its own API field.
type Stage uint8

const (
	// Absent: the field is not in this minor's API. kubectl's field
	// validation rejects it; applied without validation, the API server
	// prunes it as unknown.
	Absent Stage = iota
	// Off: the field exists behind a feature gate that is off by default
	// (alpha, or a beta that is off); the API server drops it silently.
	Off
	// On: on by default.
	On
)

func (s Stage) String() string {
	switch s {
	case Absent:
		return "absent"
	case Off:
		return "off"
	}
	return "on"
}

// stage is Absent before minor field, Off before minor on, then On.
func (v Version) stage(field, on int) Stage {
	switch {
	case v.AtLeast(on):
		return On
	case v.AtLeast(field):
		return Off
	}
	return Absent
}

// SidecarContainers: init containers with restartPolicy Always (alpha
// 1.28, beta on 1.29, GA 1.33). Off or absent, the container runs as a
// regular init container that never completes.
func (v Version) SidecarContainers() Stage { return v.stage(28, 29) }

// Sidecars is SidecarContainers() == On.
func (v Version) Sidecars() bool { return v.SidecarContainers() == On }

// PodLifecycleSleepAction: lifecycle sleep hooks (alpha 1.29, beta on
// 1.30, GA 1.34).
func (v Version) PodLifecycleSleepAction() Stage { return v.stage(29, 30) }

// SleepAction is PodLifecycleSleepAction() == On.
func (v Version) SleepAction() bool { return v.PodLifecycleSleepAction() == On }

// SleepZero: sleep.seconds 0 accepted (PodLifecycleSleepActionAllowZero,
// alpha 1.32, beta on 1.33, GA 1.34).
func (v Version) SleepZero() bool { return v.AtLeast(33) }

// ProbeGracePeriod: probe-level terminationGracePeriodSeconds honoured
// (ProbeTerminationGracePeriod: alpha 1.21, beta but off 1.22–1.24, on
// 1.25, GA 1.28).
func (v Version) ProbeGracePeriod() bool { return v.AtLeast(25) }

// PreStopInGrace: on a Pod delete the preStop hook's time counts inside the
// grace period, so SIGKILL comes at most max(G, preStop + 2) after the
// request (T-2). 1.22 to 1.27 (the pod worker rewrite, kubernetes#102344,
// until kubernetes#115835) passed the grace period to killContainer as an
// override that replaced the remaining grace after the hook: SIGKILL at
// preStop + G, up to twice the grace period.
func (v Version) PreStopInGrace() bool { return !v.AtLeast(22) || v.AtLeast(28) }

// ProbeTickerReset: an extra readiness probe on a pod sync restarts the
// probe worker's ticker (1.32), so without other syncs the first
// readiness probe comes a whole number of periods after the sync that saw
// the container start. Before, the ticker kept its unknowable phase.
func (v Version) ProbeTickerReset() bool { return v.AtLeast(32) }

// RelistAfterRuntimeAction: SyncPod asks PLEG for a relist after any
// runtime action (1.37, kubernetes#137362), so the sync that sees a new
// container running comes milliseconds after its start rather than at
// the next 1 s relist, and with it the first readiness probe (F-2).
func (v Version) RelistAfterRuntimeAction() bool { return v.AtLeast(37) }

// JobBackoffCap is the Job pod-failure back-off cap: 360 s up to 1.27,
// 600 s since 1.28.
func (v Version) JobBackoffCap() float64 {
	if v.AtLeast(28) {
		return 600
	}
	return 360
}

// JobBackoffLimitPerIndex: spec.backoffLimitPerIndex (alpha 1.28, beta on
// 1.29, GA 1.33). Off (1.28), the API server first defaults backoffLimit to
// 2147483647 because the field is set, then drops the field: the Job retries
// failed Pods practically forever. Absent, backoffLimit defaults to 6.
func (v Version) JobBackoffLimitPerIndex() Stage { return v.stage(28, 29) }

// StatefulSetMinReadySeconds: spec.minReadySeconds of a StatefulSet (alpha
// 1.22, beta on 1.23, GA 1.25). Off or absent, the field is dropped and a
// Pod counts as available as soon as it is Ready.
func (v Version) StatefulSetMinReadySeconds() Stage { return v.stage(22, 23) }

// MaxUnavailableStatefulSet: a StatefulSet's
// updateStrategy.rollingUpdate.maxUnavailable (alpha 1.24; beta in 1.35 but
// off by default from 1.35.4 and in 1.36, kubernetes#137904; on by default
// from 1.37, kubernetes#139466). Off or absent, the field is dropped and a
// rolling update replaces one Pod at a time.
func (v Version) MaxUnavailableStatefulSet() Stage { return v.stage(24, 37) }

// KubeletCrashLoopBackOffMax: the kubelet reads
// crashLoopBackOff.maxContainerRestartPeriod (Params.CrashLoopMax) only
// with this gate (alpha 1.32, beta on 1.35); before, the maximum is 300 s
// whatever the node's configuration says.
func (v Version) KubeletCrashLoopBackOffMax() bool { return v.AtLeast(35) }

// ReducedCrashLoopBackOff: ReduceDefaultCrashLoopBackOffDecay (alpha 1.33)
// lowers the crash-loop back-off to 1 s doubling to 60 s. Off by default in
// every minor up to Latest.
func (v Version) ReducedCrashLoopBackOff() bool { return false }

// RequeueAtBackoffExpiry: since 1.35 a refused crash-loop restart is retried
// at the back-off expiry (MinBackoffExpiration) instead of on the 10 s × U[1,
// 1.5] pod-worker cadence.
func (v Version) RequeueAtBackoffExpiry() bool { return v.AtLeast(35) }

// ContainerRestartFields: restartPolicy on regular containers and
// restartPolicyRules (ContainerRestartRules: the fields and the alpha gate
// 1.34, beta on 1.35). Before 1.34 restartPolicy exists only on init
// containers (since 1.28, SidecarContainers).
func (v Version) ContainerRestartFields() Stage { return v.stage(34, 35) }

// ContainerRestartRules is ContainerRestartFields() == On.
func (v Version) ContainerRestartRules() bool { return v.ContainerRestartFields() == On }

// RestartAllContainers: the RestartAllContainers action of a container
// restart rule (RestartAllContainersOnContainerExits, alpha 1.35, beta on
// 1.36).
func (v Version) RestartAllContainers() bool { return v.AtLeast(36) }

// PodLevelResources: spec.resources used for the QoS class (beta on 1.34).
func (v Version) PodLevelResources() bool { return v.AtLeast(34) }

// JobPodFailurePolicy: a Job's podFailurePolicy (JobPodFailurePolicy, beta
// on 1.26, GA 1.31). Before, the field is dropped and every failure counts.
func (v Version) JobPodFailurePolicy() bool { return v.AtLeast(26) }

// FailIndexAction: podFailurePolicy's FailIndex action, which comes with
// JobBackoffLimitPerIndex (alpha 1.28, beta on 1.29, GA 1.33); before, the
// controller skips a FailIndex rule and tries the next one.
func (v Version) FailIndexAction() bool { return v.JobBackoffLimitPerIndex() == On }

// JobFinishedAfterPods: the Job controller writes Failed (or Complete)
// only once none of its Pods is terminating, after an interim
// FailureTarget (SuccessCriteriaMet) condition (enactJobFinished,
// delayTerminalCondition: JobPodReplacementPolicy or JobManagedBy on;
// first in 1.31, where JobPodReplacementPolicy was beta and on, and
// unconditional since it went GA in 1.34).
func (v Version) JobFinishedAfterPods() bool { return v.AtLeast(31) }
