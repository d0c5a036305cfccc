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

// Version-dependent behaviour from docs/semantics.md#versions. Each answers
// "is it on by default in this minor", which is what a manifest meets on a
// stock cluster.

// Sidecars: init containers with restartPolicy Always (SidecarContainers,
// beta on 1.29). Before, the field is dropped or unknown and the container
// runs as a regular init container that never completes.
func (v Version) Sidecars() bool { return v.AtLeast(29) }

// SleepAction: lifecycle sleep hooks (PodLifecycleSleepAction, beta on 1.30).
func (v Version) SleepAction() bool { return v.AtLeast(30) }

// SleepZero: sleep.seconds 0 accepted (beta on 1.33).
func (v Version) SleepZero() bool { return v.AtLeast(33) }

// ProbeGracePeriod: probe-level terminationGracePeriodSeconds honoured
// (ProbeTerminationGracePeriod, beta on 1.25).
func (v Version) ProbeGracePeriod() bool { return v.AtLeast(25) }

// JobBackoffCap is the Job pod-failure back-off cap: 360 s up to 1.27,
// 600 s since 1.28.
func (v Version) JobBackoffCap() float64 {
	if v.AtLeast(28) {
		return 600
	}
	return 360
}

// RequeueAtBackoffExpiry: since 1.35 a refused crash-loop restart is retried
// at the back-off expiry (MinBackoffExpiration) instead of on the 10 s × U[1,
// 1.5] pod-worker cadence.
func (v Version) RequeueAtBackoffExpiry() bool { return v.AtLeast(35) }

// ContainerRestartRules: container-level restartPolicy on regular containers
// (beta on 1.35).
func (v Version) ContainerRestartRules() bool { return v.AtLeast(35) }

// PodLevelResources: spec.resources used for the QoS class (beta on 1.34).
func (v Version) PodLevelResources() bool { return v.AtLeast(34) }

// JobPodFailurePolicy: a Job's podFailurePolicy (JobPodFailurePolicy, beta
// on 1.26, GA 1.31). Before, the field is dropped and every failure counts.
func (v Version) JobPodFailurePolicy() bool { return v.AtLeast(26) }

// FailIndexAction: podFailurePolicy's FailIndex action, which comes with
// JobBackoffLimitPerIndex (alpha 1.28, beta on 1.29, GA 1.33); before, the
// controller skips a FailIndex rule and tries the next one.
func (v Version) FailIndexAction() bool { return v.AtLeast(29) }
