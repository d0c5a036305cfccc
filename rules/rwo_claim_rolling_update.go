package rules

import (
	"fmt"

	"github.com/podlint/podlint/crossobject"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	corev1 "k8s.io/api/core/v1"
)

var RWOClaimRollingUpdate = &Rule{
	ID: "PL702", Name: "rwo-claim-rolling-update", Title: "rolling update of a Deployment whose Pods share a single-node claim",
	Severity: finding.Warning,
	CrossObject: func(p *CrossObjectPass) {
		for _, ns := range p.View.Namespaces() {
			for _, w := range ns.Workloads {
				if !w.Deployment || w.Strategy != "RollingUpdate" || len(w.Claims) == 0 {
					continue
				}
				lo, hi, hpa := ns.ReplicaRange(w)
				if hi < 1 {
					continue
				}
				replicas := max(lo, 1)
				_, unavail, err := timeline.Fenceposts(w.MaxSurge, w.MaxUnavailable, replicas)
				if err != nil || unavail >= int64(replicas) {
					continue
				}
				for _, c := range w.Claims {
					pvc := ns.PVCs[c.Name]
					if pvc == nil {
						continue
					}
					rwop, rwo, shared := false, false, false
					for _, m := range pvc.AccessModes {
						switch m {
						case corev1.ReadWriteOncePod:
							rwop = true
						case corev1.ReadWriteOnce:
							rwo = true
						case corev1.ReadWriteMany, corev1.ReadOnlyMany:
							shared = true
						}
					}
					if shared || (!rwop && !rwo) {
						continue
					}
					count := fmt.Sprintf("%d replicas", replicas)
					if hpa != nil {
						count = fmt.Sprintf("%d replicas (minReplicas of HorizontalPodAutoscaler %q)", replicas, hpa.Ref.Name)
					}
					fence := fmt.Sprintf("maxUnavailable %s resolves to %d of %s, so old Pods keep the claim until the new Pod is available", fencepostText(w.MaxUnavailable), unavail, count)
					var msg, head string
					if rwop {
						head = fmt.Sprintf("claim %q is ReadWriteOncePod, so the rolling update always stalls", c.Name)
						msg = detail("claim %q is ReadWriteOncePod and this RollingUpdate Deployment starts a new Pod while an old one holds it: %s, and the new Pod stays Pending until the old one is gone: the rollout always stalls; use strategy: Recreate or a StatefulSet with volumeClaimTemplates", c.Name, fence)
					} else {
						head = fmt.Sprintf("claim %q is ReadWriteOnce, so the rolling update can stall on Multi-Attach", c.Name)
						msg = detail("claim %q is ReadWriteOnce and this RollingUpdate Deployment starts a new Pod while old ones use it: %s; when the new Pod lands on another node its volume cannot attach (Multi-Attach error) and the rollout stalls; use strategy: Recreate or a StatefulSet with volumeClaimTemplates", c.Name, fence)
					}
					p.Report(CrossObjectDiagnostic{At: w.ClaimAt(&c), Object: &w.Object, Message: head, Detail: msg,
						Related: []crossobject.Pos{related(pvc.AccessModesAt(), "accessModes of PersistentVolumeClaim %q", c.Name), related(w.StrategyAt(), "the Deployment's strategy")}})
				}
			}
		}
	},
}
