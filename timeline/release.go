package timeline

import (
	"fmt"
	"math"

	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// DrainRetry is how long kubectl drain waits before it retries an eviction
// the API refused with 429 (a budget allowing no disruption right now).
const DrainRetry = 5.0

// ExclusiveNode says why two Pods of a template cannot run on one node, with
// the path of the field that causes it (relative to the Pod spec); "" when
// they can: a hostPort (or any declared port under hostNetwork), which the
// scheduler's NodePorts filter allows once per node, or a required pod
// anti-affinity on kubernetes.io/hostname whose selector matches the
// template's own labels (same namespace).
func ExclusiveNode(spec *corev1.PodSpec, templateLabels map[string]string) (why, path string) {
	check := func(cs []corev1.Container, field string, only func(*corev1.Container) bool) (string, string) {
		for i := range cs {
			c := &cs[i]
			if only != nil && !only(c) {
				continue
			}
			for j, port := range c.Ports {
				proto := port.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				pp := fmt.Sprintf("%s[%d].ports[%d]", field, i, j)
				name := workload.ContainerName{Name: c.Name, Image: c.Image, Index: i}
				switch {
				case port.HostPort > 0:
					return fmt.Sprintf("container %q uses hostPort %d/%s, so it needs a node with port %d free", name, port.HostPort, proto, port.HostPort), pp + ".hostPort"
				case spec.HostNetwork && port.ContainerPort > 0:
					return fmt.Sprintf("hostNetwork with container %q on port %d/%s, so it needs a node with port %d free", name, port.ContainerPort, proto, port.ContainerPort), pp
				}
			}
		}
		return "", ""
	}
	if why, path = check(spec.InitContainers, "initContainers", workload.IsSidecar); why != "" {
		return
	}
	if why, path = check(spec.Containers, "containers", nil); why != "" {
		return
	}
	if spec.Affinity == nil || spec.Affinity.PodAntiAffinity == nil {
		return "", ""
	}
	own := labels.Set(templateLabels)
	for i, t := range spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if t.TopologyKey != corev1.LabelHostname || len(t.Namespaces) > 0 || t.NamespaceSelector != nil || t.LabelSelector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
		if err != nil || !sel.Matches(own) {
			continue
		}
		return "a required pod anti-affinity on kubernetes.io/hostname matches its own labels, so it needs a node without one",
			fmt.Sprintf("affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[%d]", i)
	}
	return "", ""
}

// Replicas is the replica count a workload runs with: spec.replicas, or the
// range of the HorizontalPodAutoscaler that scales it.
type Replicas struct {
	Min, Max int32
	Source   string // "spec.replicas" or "HorizontalPodAutoscaler NAME"
}

// Rollout is a Deployment's RollingUpdate played out at the ends of its
// replica range.
type Rollout struct {
	Replicas Replicas
	Strategy string
	// Exclusive says why a Pod needs a node of its own ("" when it does
	// not); Nodes is --nodes (0 unknown).
	Exclusive string
	Nodes     int
	Cases     []RolloutCase
	// Assumption states what the estimate assumes where the manifests do
	// not say (the node count).
	Assumption string
}

// RolloutCase is the rollout at one replica count.
type RolloutCase struct {
	Replicas int32
	// MaxSurge and MaxUnavailable as ResolveFenceposts resolves them:
	// surge rounds up, unavailable down, both 0 → unavailable 1.
	MaxSurge, MaxUnavailable int32
	MaxPods                  int32 // replicas + maxSurge
	MinAvailable             int32 // replicas − maxUnavailable
	Waves                    []Wave
	// Duration: until the last new Pod is available; unbounded when the
	// rollout stalls.
	Duration Interval
	Stall    string
}

// Wave is one step of a rollout: the controller removes up to
// maxUnavailable old Pods and creates new ones up to replicas + maxSurge,
// then waits until they are available (Ready + minReadySeconds).
type Wave struct {
	N       int
	Removed int32 // old Pods deleted at the wave's start
	Created int32 // new Pods created at the wave's start
	Start   Interval
	Ready   Interval
}

// ComputeRollout plays out a RollingUpdate (or Recreate) for the replica
// counts at both ends of r. podReady is creation → available of one new Pod
// (Deployment.PodReady + minReadySeconds); terminated is delete → gone.
func ComputeRollout(d *Deployment, r Replicas, maxSurge, maxUnavailable *intstr.IntOrString, exclusive string, nodes int) *Rollout {
	out := &Rollout{Replicas: r, Strategy: d.Strategy, Exclusive: exclusive, Nodes: nodes}
	per := d.PodReady.Interval.Add(AvailableAfterReady(d.MinReadySeconds.V))
	counts := []int32{r.Min}
	if r.Max != r.Min {
		counts = append(counts, r.Max)
	}
	for _, n := range counts {
		c := RolloutCase{Replicas: n}
		if d.Strategy != "RollingUpdate" {
			// Recreate scales the old Pods to 0 and creates the new ones
			// only once none of them is running (oldPodsRunning in
			// recreate.go), that is after their shutdown.
			c.MinAvailable = 0
			c.MaxPods = n
			start := d.OldPodsGone.Interval
			c.Duration = start.Add(per)
			if n > 0 {
				c.Waves = []Wave{{N: 1, Removed: n, Created: n, Start: start, Ready: c.Duration}}
			}
			out.Cases = append(out.Cases, c)
			continue
		}
		s, u, _ := Fenceposts(maxSurge, maxUnavailable, n)
		c.MaxSurge, c.MaxUnavailable = int32(s), int32(u)
		c.MaxPods, c.MinAvailable = n+c.MaxSurge, max(n-c.MaxUnavailable, 0)
		if exclusive != "" && c.MaxUnavailable == 0 && n > 0 {
			switch {
			case nodes == 0:
				c.Stall = "needs a node running no Pod of this Deployment (" + exclusive + "); stalls when every eligible node runs one"
			case int(n) >= nodes:
				c.Stall = fmt.Sprintf("stalls: %d replicas on %d nodes leave no node free for the surge Pod (%s)", n, nodes, exclusive)
			}
		}
		remaining := n
		start := At(0)
		for w := 1; remaining > 0; w++ {
			created := min(c.MaxSurge+c.MaxUnavailable, remaining)
			removed := min(c.MaxUnavailable, remaining)
			ready := start.Add(per)
			c.Waves = append(c.Waves, Wave{N: w, Removed: removed, Created: created, Start: start, Ready: ready})
			remaining -= created
			start = ready
			if c.Stall != "" {
				break
			}
		}
		c.Duration = start
		if c.Stall != "" {
			c.Duration = From(0)
			last := &c.Waves[len(c.Waves)-1]
			last.Ready = From(last.Start.Lo)
		}
		out.Cases = append(out.Cases, c)
	}
	if exclusive != "" && nodes == 0 {
		out.Assumption = "node count unknown (--nodes N): a surge Pod " + exclusive
	}
	return out
}

// Budget is the PodDisruptionBudget that covers a workload's Pods.
type Budget struct {
	Name                         string
	MinAvailable, MaxUnavailable *intstr.IntOrString
	// Pods is the number of Pods it selects (the replicas of every
	// workload it covers).
	Pods int32
	// Others names other budgets that select the same Pods.
	Others []string
}

// Drain is one node drain (kubectl drain) that evicts the Pods of one
// workload running on that node.
type Drain struct {
	Budget             string // "" when no budget covers the Pods
	ExpectedPods       int32
	DesiredHealthy     int32
	DisruptionsAllowed int32 // with every Pod healthy
	PodsOnNode         int32
	Assumption         string
	// Blocked is why no eviction can succeed ("" when they can).
	Blocked   string
	Evictions []Eviction
	// HoldsNode: drain start → the last evicted Pod is gone (the node is
	// free); Recovered: → the last replacement is Ready. Both unbounded
	// when blocked.
	HoldsNode Interval
	Recovered Interval
}

// Eviction is one evicted Pod.
type Eviction struct {
	Pod              int
	Evicted          Interval // the API accepts the eviction
	Terminated       Interval // it is gone from the API: its containers stopped (preStop, grace period), then removed by the kubelet (ε)
	ReplacementReady Interval // its replacement (created at once) is Ready
}

// ComputeDrain plays out a drain of a node holding the workload's Pods under
// its budget (nil: none), as the eviction API and the disruption controller
// do: disruptions allowed = healthy − desired healthy; an evicted Pod stops
// counting as healthy at once and its replacement counts when Ready, so
// evictions go in batches of the allowed disruptions, each after the
// previous batch's replacements are Ready (and kubectl's 5 s retry).
func ComputeDrain(t *Timeline, replicas int32, b *Budget, nodes int) *Drain {
	out := &Drain{ExpectedPods: replicas, PodsOnNode: 1}
	if nodes > 0 {
		out.PodsOnNode = int32(math.Ceil(float64(replicas) / float64(nodes)))
	} else {
		out.Assumption = "node count unknown (--nodes N): one Pod of the workload on the drained node"
	}
	out.PodsOnNode = min(out.PodsOnNode, replicas)
	var ready, gone Interval = From(0), At(0)
	if t.Pod != nil {
		if t.Pod.Ready != nil {
			ready = t.Pod.Ready.Interval
		}
		// kubectl drain waits for the Pod's removal (waitForDelete), which
		// the kubelet brings about up to ε after the last container is
		// gone: the terminal phase, then the final delete.
		gone = t.Pod.Terminated.Interval.Add(Between(0, t.Params.Epsilon))
	}
	out.DisruptionsAllowed = replicas
	if b != nil {
		out.Budget = b.Name
		out.ExpectedPods = max(b.Pods, replicas)
		exp := out.ExpectedPods
		switch {
		case b.MaxUnavailable != nil:
			mu, err := intstr.GetScaledValueFromIntOrPercent(b.MaxUnavailable, int(exp), true)
			if err == nil {
				out.DesiredHealthy = max(exp-int32(mu), 0)
			}
		case b.MinAvailable != nil && b.MinAvailable.Type == intstr.Int:
			out.DesiredHealthy = b.MinAvailable.IntVal
		case b.MinAvailable != nil:
			ma, err := intstr.GetScaledValueFromIntOrPercent(b.MinAvailable, int(exp), true)
			if err == nil {
				out.DesiredHealthy = int32(ma)
			}
		}
		out.DisruptionsAllowed = max(exp-out.DesiredHealthy, 0)
		switch {
		case len(b.Others) > 0:
			out.Blocked = fmt.Sprintf("Pods are selected by more budgets (%s): the eviction API refuses them with 500", b.Others[0])
		case out.DisruptionsAllowed == 0:
			out.Blocked = fmt.Sprintf("budget %q allows no disruption with every Pod healthy (%d Pods, %d must stay healthy): kubectl drain retries every %gs until its timeout", b.Name, exp, out.DesiredHealthy, DrainRetry)
		}
	}
	if out.Blocked != "" || out.PodsOnNode == 0 {
		if out.Blocked != "" {
			out.HoldsNode, out.Recovered = From(0), From(0)
		}
		return out
	}
	batch := max(out.DisruptionsAllowed, 1)
	for i := int32(0); i < out.PodsOnNode; i++ {
		k := float64(i / batch)
		ev := At(0)
		if k > 0 {
			ev = Interval{Lo: k * ready.Lo, Hi: k * (ready.Hi + DrainRetry), HiUnbounded: ready.HiUnbounded}
		}
		e := Eviction{Pod: int(i) + 1, Evicted: ev, Terminated: ev.Add(gone), ReplacementReady: ev.Add(ready)}
		out.Evictions = append(out.Evictions, e)
		out.HoldsNode = Later(out.HoldsNode, e.Terminated)
		out.Recovered = Later(out.Recovered, e.ReplacementReady)
	}
	return out
}
