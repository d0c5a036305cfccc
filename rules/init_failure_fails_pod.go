package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

var InitFailureFailsPod = &Rule{
	ID: "PL302", Name: "init-failure-fails-pod", Title: "a transient init container failure fails the Pod for good under restartPolicy Never",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		if p.IsLongRunning() || p.RestartPolicy() != corev1.RestartPolicyNever {
			return
		}
		for _, c := range p.Containers() {
			if c.Type != Init || ownRestartPolicy(p, c) {
				continue
			}
			call, at := transientCall(c)
			if call == "" {
				continue
			}
			related := []Related{{Path: p.SpecPath("restartPolicy"), Message: "restartPolicy: Never: a failed init container is not restarted"}}
			headline := "fails the Pod for good"
			outcome := "fails the Pod for good: the init container is not retried and " + neverStart(p)
			fix := "use restartPolicy: OnFailure so that the kubelet retries it: " + initRetries(p, c)
			if js := p.Workload.Job; js != nil {
				fix = "raise backoffLimit"
				field, limit, _ := timeline.JobRetryLimit(js, p.Version)
				// The Job controller matches init containers' exit codes too
				// (matchOnExitCodes), so a rule decides for this failure.
				f := timeline.JobFailureRule(js, p.Workload.JobPath, c.C.Name, p.Version)
				switch f.Action {
				case batchv1.PodFailurePolicyActionIgnore:
					continue // the Job replaces the Pod without counting the failure
				case batchv1.PodFailurePolicyActionFailJob:
					related = append(related, Related{Path: f.Path, Message: "podFailurePolicy rule: FailJob on any other exit code"})
					headline = "fails the whole Job"
					outcome = fmt.Sprintf("fails the Pod and, by the podFailurePolicy's FailJob rule, the whole Job without a retry, whatever %s says", field)
					fix = "narrow the FailJob rule to the exit codes that mean a permanent error"
				case batchv1.PodFailurePolicyActionFailIndex:
					related = append(related, Related{Path: f.Path, Message: "podFailurePolicy rule: FailIndex on any other exit code"})
					headline = "fails its index of the Job"
					outcome = "fails the Pod and, by the podFailurePolicy's FailIndex rule, its index without a retry"
					fix = "narrow the FailIndex rule to the exit codes that mean a permanent error"
				default:
					if limit != 0 {
						continue // the Job replaces the failed Pod (counted against backoffLimit)
					}
					related = append(related, Related{Path: p.Workload.JobPath.Join(field), Message: field + " 0: the Job does not replace a failed Pod"})
					headline = "fails the whole Job"
					outcome = "fails the Pod and, with " + field + " 0, the whole Job (BackoffLimitExceeded) without a single retry"
				}
			}
			p.Report(Diagnostic{Path: at, Container: c.C.Name, Related: related,
				Message: fmt.Sprintf("one failed network call in init container %q %s", c.Name(), headline),
				Detail: fmt.Sprintf("It runs %s, which fails when DNS or the server it reaches is briefly unavailable; under restartPolicy: Never one failed attempt %s. Retry inside the command (until …; do sleep 2; done, bounded by timeout) or %s.",
					call, outcome, fix)})
		}
	},
}

// initRetries says how the kubelet would retry the init container under
// OnFailure, as the timeline's initFailure.restarts does: at once,
// then after the crash-loop back-off from each failed exit, for the run
// its command states (0 when it states none: a failed call ends it soon).
func initRetries(p *Pass, c ContainerRef) string {
	run, _ := timeline.StatedRun(c.C)
	rs := timeline.CrashLoop(run, 4, p.Version, p.Params)
	if len(rs) < 4 || rs[0].Delay != timeline.At(0) || rs[1].Reset {
		return "after waits of " + timeline.RestartWaits(rs) + ", …"
	}
	return fmt.Sprintf("at once, then after back-offs of %s, … (each from the failed exit, doubling, capped at %s)",
		timeline.RestartWaits(rs[1:]), secs(p.Params.CrashLoopMax))
}

// ownRestartPolicy reports whether an init container's own restartPolicy
// or restartPolicyRules (ContainerRestartRules, on by default since 1.35)
// may restart it after a failure, whatever the Pod's policy.
func ownRestartPolicy(p *Pass, c ContainerRef) bool {
	if !p.Version.ContainerRestartRules() {
		return false
	}
	if c.C.RestartPolicy != nil && *c.C.RestartPolicy != corev1.ContainerRestartPolicyNever {
		return true
	}
	return len(c.C.RestartPolicyRules) > 0
}

// appContainers names the regular containers for messages.
func appContainers(p *Pass) string {
	var names []containerName
	for i, c := range p.Spec.Containers {
		names = append(names, containerName{Name: c.Name, Image: c.Image, Index: i})
	}
	if len(names) == 0 {
		return "the app containers"
	}
	return quoted(names, 4)
}

// neverStart says that the app containers never start, with the verb
// agreeing: "app" never starts, "a" and "b" never start.
func neverStart(p *Pass) string {
	if len(p.Spec.Containers) == 1 {
		return appContainers(p) + " never starts"
	}
	return appContainers(p) + " never start"
}

// transientCall finds a network call whose failure fails the init
// container, and the path of the command word or script that holds it.
func transientCall(c ContainerRef) (call string, at workload.Path) {
	words := containerCommand(c)
	cs := scriptOf(words)
	retries := func(ws []string) bool {
		for _, w := range ws {
			if strings.Contains(w, "retry") || strings.HasPrefix(w, "--tries") || strings.HasPrefix(w, "--retries") {
				return true
			}
		}
		return false
	}
	if cs.Script.Text == "" {
		if len(words) == 0 {
			return "", ""
		}
		ws := make([]string, len(words))
		for i, w := range words {
			ws[i] = w.Text
		}
		if retries(ws) {
			return "", ""
		}
		return networkCall(path.Base(ws[0]), ws), words[0].Path
	}
	for _, cmd := range cs.Parsed.Commands() {
		if retries(cmd.Words) || !cmd.FailureFails(cs.Errexit) {
			continue
		}
		if call := networkCall(cmd.Name, cmd.Words); call != "" {
			return call, cs.Script.Path
		}
	}
	return "", ""
}
