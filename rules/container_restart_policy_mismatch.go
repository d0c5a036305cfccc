package rules

import (
	"fmt"
	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	corev1 "k8s.io/api/core/v1"
)

var ContainerRestartPolicyMismatch = &Rule{
	ID: "PL305", Name: "container-restart-policy-mismatch", Title: "container-level restartPolicy contradicts the workload or is dropped on this version",
	Severity: finding.Error,
	Check: func(p *Pass) {
		v := p.Version
		for _, c := range p.Containers() {
			if c.Type != Sidecar && c.C.RestartPolicy != nil {
				cp := *c.C.RestartPolicy
				if !v.ContainerRestartRules() {
					// A dropped policy equal to the Pod's changes nothing, but
					// its restartPolicyRules are dropped too: they are
					// reported below either way.
					fate, effect := restartFieldFate(v, c.Type, "restartPolicy")
					if effect != fieldDropped || string(cp) != string(p.RestartPolicy()) {
						tail := map[fieldEffect]string{fieldDropped: fmt.Sprintf(", so the Pod's restartPolicy %s applies", p.RestartPolicy()), fieldUnknown: ", so it never takes effect"}[effect]
						p.Report(Diagnostic{Path: c.Field("restartPolicy"), Container: c.C.Name,
							Message: fmt.Sprintf("%s %q sets restartPolicy: %s, which needs Kubernetes 1.35", c.Type.Noun(), c.Name(), cp),
							Detail: fmt.Sprintf("Container restart policies come with ContainerRestartRules in 1.35; on %s %s%s. Remove it, or upgrade the cluster.",
								v, fate, tail)})
					}
				} else if c.Type == Regular {
					checkRestartPolicyFits(p, c, cp)
				}
			}
			if len(c.C.RestartPolicyRules) == 0 {
				continue
			}
			switch {
			case !v.ContainerRestartRules():
				fate, _ := restartFieldFate(v, c.Type, "restartPolicyRules")
				p.Report(Diagnostic{Path: c.Field("restartPolicyRules"), Container: c.C.Name,
					Message: fmt.Sprintf("%s %q sets restartPolicyRules, which need Kubernetes 1.35", c.Type.Noun(), c.Name()),
					Detail: fmt.Sprintf("Restart rules come with ContainerRestartRules in 1.35; on %s %s, so exit codes do not change whether it restarts. Remove them, or upgrade the cluster.",
						v, fate)})
			case !v.RestartAllContainers():
				for i, r := range c.C.RestartPolicyRules {
					if r.Action == corev1.ContainerRestartRuleActionRestartAllContainers {
						p.Report(Diagnostic{Path: c.Field(fmt.Sprintf("restartPolicyRules[%d].action", i)), Container: c.C.Name,
							Message: fmt.Sprintf("restart rule action RestartAllContainers of %s %q needs Kubernetes 1.36", c.Type.Noun(), c.Name()),
							Detail: fmt.Sprintf("RestartAllContainersOnContainerExits is alpha and off in 1.35; on %s the API server rejects the Pod. Use action Restart, or upgrade the cluster.",
								v)})
					}
				}
			}
		}
	},
}

type fieldEffect int

const (
	fieldDropped  fieldEffect = iota // the API server removes the field
	fieldRejected                    // the API server rejects the Pod
	fieldUnknown                     // the field is not in the API yet
)

// restartFieldFate says what a cluster of version v does with a container
// restart field it does not support (v < 1.35).
func restartFieldFate(v timeline.Version, t timeline.ContainerType, field string) (string, fieldEffect) {
	switch {
	case v.ContainerRestartFields() == timeline.Off:
		return "the API server drops it silently (the gate is off by default)", fieldDropped
	case field == "restartPolicyRules" || v.SidecarContainers() == timeline.Absent:
		return "the field does not exist yet: kubectl rejects it as an unknown field, or the API server drops it", fieldUnknown
	case t == Regular:
		return "the API server rejects the Pod (restartPolicy may not be set for non-init containers)", fieldRejected
	}
	return "the API server rejects the Pod (init containers accept only restartPolicy: Always)", fieldRejected
}

// checkRestartPolicyFits reports a regular container's own policy that
// contradicts its controller.
func checkRestartPolicyFits(p *Pass, c ContainerRef, cp corev1.ContainerRestartPolicy) {
	w := p.Workload
	path := c.Field("restartPolicy")
	switch {
	case w.Job != nil && cp == corev1.ContainerRestartPolicyAlways:
		p.Report(Diagnostic{Path: path, Container: c.C.Name, Related: []Related{{Path: p.SpecPath("restartPolicy"), Message: "the Pod's restartPolicy"}},
			Message: fmt.Sprintf("container %q has restartPolicy: Always, so the %s never completes", c.Name(), w.Kind),
			Detail:  "It is restarted even after it exits 0, so the Pod never completes and the Job never succeeds (it runs until activeDeadlineSeconds, if set). Remove it, or use OnFailure or Never."})
	case builtinLongRunning(w) && cp != corev1.ContainerRestartPolicyAlways:
		when := "exits"
		if cp == corev1.ContainerRestartPolicyOnFailure {
			when = "exits with 0"
		}
		p.Report(Diagnostic{Path: path, Container: c.C.Name,
			Message: fmt.Sprintf("container %q has restartPolicy: %s in a %s, whose Pods must keep running", c.Name(), cp, w.Kind),
			Detail: fmt.Sprintf("When it %s it is not restarted and stays terminated and not ready, so the Pod is NotReady and out of its Services until it is deleted. Remove it (the Pod's Always applies).",
				when)})
	}
}

// builtinLongRunning reports the controllers that require restartPolicy
// Always and forbid activeDeadlineSeconds (R-6, V-11).
func builtinLongRunning(w *workload.Workload) bool {
	return w.Deployment != nil || w.StatefulSet != nil || w.DaemonSet != nil || w.ReplicaSet != nil || w.ReplicationController != nil
}
