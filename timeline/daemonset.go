package timeline

import (
	"errors"
	"fmt"
	"math"

	"github.com/podlint/podlint/workload"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DaemonSet is a DaemonSet's update strategy after defaulting and its
// rolling update played out over Params.Nodes nodes (one Pod per node).
type DaemonSet struct {
	Path     workload.Path
	Strategy string // RollingUpdate | OnDelete
	// MaxSurge and MaxUnavailable as the API server leaves them: an unset
	// maxUnavailable is 1 and an unset maxSurge 0 (SetDefaults_DaemonSet).
	MaxSurge, MaxUnavailable Value
	MinReadySeconds          Value
	// Invalid is why the API server rejects the strategy ("" when it
	// does not): after defaulting exactly one of maxSurge and
	// maxUnavailable must be non-zero (ValidateRollingUpdateDaemonSet).
	Invalid string
	// InvalidPath is the field Invalid is about.
	InvalidPath workload.Path
	// Rollout is the rolling update over the nodes (nil for OnDelete or
	// an invalid strategy).
	Rollout *Rollout
}

// daemonSet: §DaemonSet. With maxUnavailable u (maxSurge 0) the controller
// deletes the old Pods of u nodes and creates each new Pod once its node's
// old Pod is gone; with maxSurge s it creates s new Pods beside the old ones
// and deletes an old Pod once its replacement is available (rollingUpdate in
// pkg/controller/daemon/update.go). Percentages are of the nodes that run
// the DaemonSet, rounded up (UnavailableCount, SurgeCount).
func (k *computer) daemonSet(d *appsv1.DaemonSetSpec, sp workload.Path, podReady, terminated Span) *DaemonSet {
	out := &DaemonSet{Path: sp, Strategy: string(d.UpdateStrategy.Type),
		MinReadySeconds: Value{V: math.Max(float64(d.MinReadySeconds), 0), Path: sp.Join("minReadySeconds"), Set: d.MinReadySeconds != 0}}
	if out.Strategy == "" {
		out.Strategy = string(appsv1.RollingUpdateDaemonSetStrategyType)
	}
	ru := sp.Join("updateStrategy.rollingUpdate")
	out.MaxSurge = Value{Path: ru.Join("maxSurge")}
	out.MaxUnavailable = Value{Path: ru.Join("maxUnavailable")}
	if out.Strategy != string(appsv1.RollingUpdateDaemonSetStrategyType) {
		return out
	}
	unavail := intstr.FromInt32(1)
	surge := intstr.FromInt32(0)
	if r := d.UpdateStrategy.RollingUpdate; r != nil {
		if r.MaxUnavailable != nil {
			unavail, out.MaxUnavailable.Set = *r.MaxUnavailable, true
		}
		if r.MaxSurge != nil {
			surge, out.MaxSurge.Set = *r.MaxSurge, true
		}
	}
	nonZero := func(v intstr.IntOrString) bool {
		n, err := intstr.GetScaledValueFromIntOrPercent(&v, 100, true)
		return err != nil || n != 0
	}
	switch hasU, hasS := nonZero(unavail), nonZero(surge); {
	case hasU && hasS:
		out.Invalid, out.InvalidPath = "maxSurge may not be set when maxUnavailable is non-zero", out.MaxSurge.Path
		if !out.MaxUnavailable.Set {
			out.Invalid += " (maxUnavailable defaults to 1: set it to 0 to surge)"
		}
	case !hasU && !hasS:
		out.Invalid, out.InvalidPath = "maxUnavailable cannot be 0 when maxSurge is 0", out.MaxUnavailable.Path
	}
	nodes := k.p.Nodes
	u, errU := intstr.GetScaledValueFromIntOrPercent(&unavail, nodes, true)
	s, errS := intstr.GetScaledValueFromIntOrPercent(&surge, nodes, true)
	switch {
	case errU != nil || errS != nil:
		out.Invalid, out.InvalidPath = fmt.Sprintf("invalid maxSurge/maxUnavailable (%v)", errors.Join(errU, errS)), ru
	case u < 0:
		out.Invalid, out.InvalidPath = "maxUnavailable must be greater than or equal to 0", out.MaxUnavailable.Path
	case s < 0:
		out.Invalid, out.InvalidPath = "maxSurge must be greater than or equal to 0", out.MaxSurge.Path
	}
	out.MaxUnavailable.V, out.MaxSurge.V = float64(max(u, 0)), float64(max(s, 0))
	if out.Invalid != "" {
		return out
	}
	per := podReady.Interval.Add(AvailableAfterReady(out.MinReadySeconds.V))
	r := &Rollout{Replicas: Replicas{Min: int32(min(nodes, math.MaxInt32)), Max: int32(min(nodes, math.MaxInt32)), Source: "--nodes"}, Strategy: out.Strategy, Nodes: nodes}
	out.Rollout = r
	if nodes <= 0 {
		r.Replicas.Source = "--nodes (unknown)"
		r.Assumption = "node count unknown (--nodes N): one Pod per node, so the number of waves is unknown"
		return out
	}
	n := int32(min(nodes, math.MaxInt32))
	c := RolloutCase{Replicas: n, MaxSurge: int32(min(s, nodes)), MaxUnavailable: int32(min(u, nodes))}
	c.MaxPods, c.MinAvailable = n+c.MaxSurge, max(n-c.MaxUnavailable, 0)
	step := max(c.MaxSurge, c.MaxUnavailable)
	// A surge wave ends when its new Pods are available (the old ones
	// are then deleted and stop counting); an unavailable wave waits for
	// the old Pods to be gone first.
	wave := per
	if c.MaxSurge == 0 {
		wave = terminated.Interval.Add(per)
	}
	start := At(0)
	for w, remaining := 1, n; remaining > 0 && w <= maxWaves; w++ {
		created := min(step, remaining)
		removed := created
		ws := start
		if c.MaxSurge == 0 {
			ws = start.Add(terminated.Interval)
		}
		ready := start.Add(wave)
		c.Waves = append(c.Waves, Wave{N: w, Removed: removed, Created: created, Start: ws, Ready: ready})
		remaining -= created
		start = ready
	}
	c.Duration = wave.Scale(math.Ceil(float64(n) / float64(step)))
	r.Cases = []RolloutCase{c}
	return out
}

// maxWaves bounds the waves listed for one rollout so that a huge --nodes
// cannot allocate without limit; the duration still counts every wave.
const maxWaves = 1000
