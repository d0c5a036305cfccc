package rules

import (
	"fmt"
	"math"

	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

// HookRef is one lifecycle handler (preStop or postStart) of a container.
type HookRef struct {
	Container ContainerRef
	Kind      string // preStop | postStart
	H         *corev1.LifecycleHandler
	Path      workload.Path // full path of lifecycle.preStop / lifecycle.postStart
}

// Field returns the full path of a field of the handler.
func (h HookRef) Field(rel string) workload.Path { return h.Path.Join(rel) }

// Hooks lists the lifecycle handlers of regular containers and sidecars, in
// container order, postStart before preStop. Regular init containers may not
// have hooks at all (PL401 reports them), so they are left out.
func (p *Pass) Hooks() []HookRef {
	var out []HookRef
	for _, c := range p.Containers() {
		if c.Type == Init || c.C.Lifecycle == nil {
			continue
		}
		if h := c.C.Lifecycle.PostStart; h != nil {
			out = append(out, HookRef{Container: c, Kind: "postStart", H: h, Path: c.Field("lifecycle.postStart")})
		}
		if h := c.C.Lifecycle.PreStop; h != nil {
			out = append(out, HookRef{Container: c, Kind: "preStop", H: h, Path: c.Field("lifecycle.preStop")})
		}
	}
	return out
}

// Grace is the Pod's terminationGracePeriodSeconds after defaulting.
type Grace struct {
	Seconds int64 // 30 when unset; a negative value counts as 1
	Set     bool  // written in the manifest
	Path    workload.Path
}

// GracePeriod returns the pod-level grace period as the API server defaults
// it (corev1.DefaultTerminationGracePeriodSeconds = 30) and the kubelet
// reads it (negative values are coerced to 1).
func (p *Pass) GracePeriod() Grace {
	g := Grace{Seconds: corev1.DefaultTerminationGracePeriodSeconds, Path: p.SpecPath("terminationGracePeriodSeconds")}
	if t := p.Spec.TerminationGracePeriodSeconds; t != nil {
		g.Seconds, g.Set = *t, true
		if g.Seconds < 0 {
			g.Seconds = 1
		}
	}
	return g
}

// Related returns the grace period as a related location: the field when it
// is set, else the pod spec that lacks it.
func (g Grace) Related() Related {
	if g.Set {
		return Related{Path: g.Path, Message: fmt.Sprintf("grace period %ds", g.Seconds)}
	}
	return Related{Path: g.Path, Message: fmt.Sprintf("terminationGracePeriodSeconds is not set: %ds by default", g.Seconds)}
}

// Describe is "the grace period of 30s" with a note when it is the default.
func (g Grace) Describe() string {
	if g.Set {
		return fmt.Sprintf("the grace period of %ds", g.Seconds)
	}
	return fmt.Sprintf("the default grace period of %ds", g.Seconds)
}

// minStopGrace is the kubelet's minimumGracePeriodInSeconds: the runtime is
// never given less than 2 s between the stop signal and SIGKILL (T-2, X-7).
const minStopGrace = 2

// afterStop is how long a container has between its stop signal and SIGKILL
// when the signal goes out `stop` seconds into a kill with grace g: the
// kubelet subtracts the whole seconds already spent and never hands the
// runtime less than 2 s (T-2 steps 2–4).
func afterStop(stop float64, g int64) float64 {
	return math.Max(float64(g)-math.Floor(stop), minStopGrace)
}
