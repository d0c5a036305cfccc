package timeline

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// qosClass computes the pod's QoS class as the kubelet does
// (pkg/apis/core/v1/helper/qos ComputePodQOS), on the pod as the API server
// stores it: a container limit without a request gets the request = limit
// default first (SetDefaults_Pod). Only cpu and memory count. With pod-level
// resources (≥ 1.34) those decide.
func qosClass(spec *corev1.PodSpec, v Version) corev1.PodQOSClass {
	type rl struct{ req, lim corev1.ResourceList }
	var sets []rl
	guaranteed := true
	if v.PodLevelResources() && spec.Resources != nil {
		sets = append(sets, rl{withDefaultRequests(spec.Resources.Requests, spec.Resources.Limits), spec.Resources.Limits})
	} else {
		for _, list := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
			for i := range list {
				r := list[i].Resources
				sets = append(sets, rl{withDefaultRequests(r.Requests, r.Limits), r.Limits})
			}
		}
	}
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	zero := resource.Quantity{}
	for _, s := range sets {
		for name, q := range s.req {
			if !qosResource(name) || q.Cmp(zero) <= 0 {
				continue
			}
			sum := q.DeepCopy()
			if prev, ok := requests[name]; ok {
				sum.Add(prev)
			}
			requests[name] = sum
		}
		found := map[corev1.ResourceName]bool{}
		for name, q := range s.lim {
			if !qosResource(name) || q.Cmp(zero) <= 0 {
				continue
			}
			found[name] = true
			sum := q.DeepCopy()
			if prev, ok := limits[name]; ok {
				sum.Add(prev)
			}
			limits[name] = sum
		}
		if !found[corev1.ResourceCPU] || !found[corev1.ResourceMemory] {
			guaranteed = false
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

func qosResource(n corev1.ResourceName) bool {
	return n == corev1.ResourceCPU || n == corev1.ResourceMemory
}

func withDefaultRequests(req, lim corev1.ResourceList) corev1.ResourceList {
	if len(lim) == 0 {
		return req
	}
	out := corev1.ResourceList{}
	for n, q := range req {
		out[n] = q
	}
	for n, q := range lim {
		if _, ok := out[n]; !ok {
			out[n] = q
		}
	}
	return out
}
