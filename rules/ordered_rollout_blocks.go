package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	appsv1 "k8s.io/api/apps/v1"
)

var OrderedRolloutBlocks = &Rule{
	ID: "PL503", Name: "ordered-rollout-blocks", Title: "an unready Pod blocks every later ordinal of an OrderedReady StatefulSet",
	Severity: finding.Info,
	Check: func(p *Pass) {
		ss := p.Workload.StatefulSet
		if ss == nil || ss.PodManagementPolicy == appsv1.ParallelPodManagement || p.IsFragment() {
			return
		}
		t := p.Timeline()
		if t == nil || t.StatefulSet == nil || t.StatefulSet.Replicas.V < 2 {
			return
		}
		for _, c := range p.Containers() {
			if c.Type == Init {
				continue
			}
			tc := p.tlContainer(c)
			if tc == nil {
				continue
			}
			cause, path, ifNot := neverReady(c, tc)
			if cause == "" {
				continue
			}
			name := "<name>"
			if p.Object != nil && p.Object.Ref.Name != "" {
				name = p.Object.Ref.Name
			}
			n := int(t.StatefulSet.Replicas.V)
			later := fmt.Sprintf("%s-1", name)
			if n > 2 {
				later = fmt.Sprintf("%s-1 … %s-%d are", name, name, n-1)
			} else {
				later += " is"
			}
			estimate := ""
			if ifNot != "" && !t.StatefulSet.Creation.HiUnbounded {
				text, plus := interval(t.StatefulSet.Creation.Interval), len(t.StatefulSet.Creation.Plus) > 0
				estimate = fmt.Sprintf(" (%s, creating the %d Pods takes %s", ifNot, n, text)
				if ru := t.StatefulSet.RollingUpdate; ru != nil && !ru.HiUnbounded {
					rtext, rplus := interval(ru.Interval), len(ru.Plus) > 0
					estimate += " and a rolling update " + rtext
					plus = plus || rplus
				}
				if plus {
					estimate += ", plus image pulls"
				}
				estimate += ")"
			}
			p.Report(Diagnostic{Path: path, Container: c.C.Name,
				Message: fmt.Sprintf("%q never becomes Ready, so the ordered rollout of %s stops at its first Pod", c.Name(), name),
				Detail: fmt.Sprintf("%s. With podManagementPolicy OrderedReady (the default) %s-1 is created only once %s-0 is Ready, so %s never created, and a rolling update stops at the first Pod it replaces (%s-%d) until that Pod is deleted by hand%s. Fix the probe.",
					capitalize(cause), name, name, later, name, n-1, estimate)})
			return
		}
	},
}

// neverReady says why the spec keeps a container from ever becoming Ready,
// the field to fix, and, for the heuristic liveness case, the condition
// under which it would become Ready after all ("" for certain causes).
func neverReady(c ContainerRef, tc *timeline.Container) (cause string, path workload.Path, ifNot string) {
	name := c.Name()
	if pr := c.C.ReadinessProbe; pr != nil && probeErrors(c, pr) {
		field, port := namedPort(&pr.ProbeHandler)
		return fmt.Sprintf("the readiness probe of %q uses port %q, which %q does not declare in its ports, so every probe errors and is discarded and %q never becomes Ready", name, port, name, name),
			c.Field("readinessProbe." + field), ""
	}
	exp := tc.ExpectedStartup
	if sp := tc.Startup; sp != nil {
		if !exp.OK {
			return "", "", ""
		}
		if _, must := sp.Outcome(exp.Seconds); must {
			return fmt.Sprintf("the startup probe of %q gives up at %s at the latest, before its expected start-up of %s (%s), so it is killed on every start and never becomes Ready",
				name, dur(sp.KillDecision.Hi), expectedText(exp), describeExpected(exp)), c.Field("startupProbe"), ""
		}
		return "", "", ""
	}
	lp := tc.Liveness
	if lp == nil || !tc.Restarts {
		return "", "", ""
	}
	if probeErrors(c, c.C.LivenessProbe) {
		return "", "", "" // the liveness probe never counts a failure
	}
	kill := interval(lp.KillDecision.Interval)
	switch {
	case exp.OK:
		if _, must := lp.Outcome(exp.Seconds); must {
			return fmt.Sprintf("the liveness probe of %q kills it %s after start, before its expected start-up of %s (%s), so it restarts forever (CrashLoopBackOff) and never becomes Ready",
				name, kill, expectedText(exp), describeExpected(exp)), c.Field("livenessProbe"), ""
		}
	case c.C.ReadinessProbe != nil && c.C.ReadinessProbe.InitialDelaySeconds > 0:
		d := float64(c.C.ReadinessProbe.InitialDelaySeconds)
		if _, must := lp.Outcome(d); must {
			return fmt.Sprintf("the liveness probe of %q kills it %s after start if it is not answering yet, before its readiness probe can first run at %s; then it restarts forever (CrashLoopBackOff) and never becomes Ready",
				name, kill, secs(d)), c.Field("livenessProbe"), fmt.Sprintf("if %q does answer its liveness probe in time", name)
		}
	}
	return "", "", ""
}
