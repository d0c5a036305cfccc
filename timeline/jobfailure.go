package timeline

import (
	"github.com/podlint/podlint/workload"
	batchv1 "k8s.io/api/batch/v1"
)

// FailureRule is what a Job's podFailurePolicy does with a Pod that failed
// because one container exited with a code no rule names: the crash podlint
// models, whose exit code a manifest cannot know (job.go matchPodFailurePolicy).
type FailureRule struct {
	// Action: FailJob, FailIndex, Ignore or Count; "" when no rule applies
	// (the failure counts, as without a policy).
	Action batchv1.PodFailurePolicyAction
	// Path is the matching rule, "" when none.
	Path workload.Path
}

// Counted reports whether the failure counts towards backoffLimit (or
// backoffLimitPerIndex): every action but Ignore.
func (f FailureRule) Counted() bool { return f.Action != batchv1.PodFailurePolicyActionIgnore }

// JobFailureRule evaluates the Job's podFailurePolicy (jp is the Job spec's
// path) for a failure of the named container with an exit code that no rule
// lists, on version v. Rules are tried in order and the first match wins:
//   - onExitCodes with operator NotIn matches (the code is not listed), with
//     In it does not (the code is not one of those named); a containerName
//     restricts the rule to that container;
//   - onPodConditions never matches a crash: DisruptionTarget is only set on
//     Pods that are preempted, evicted or deleted by the garbage collector,
//     so an Ignore rule on it keeps disruptions from counting and leaves
//     crashes counted;
//   - FailIndex applies only where JobBackoffLimitPerIndex is on; before,
//     the controller goes on to the next rule.
//
// Before JobPodFailurePolicy (on by default since 1.26) the field is
// dropped and every failure counts.
func JobFailureRule(js *batchv1.JobSpec, jp workload.Path, container string, v Version) FailureRule {
	v = v.orLatest()
	if js == nil || js.PodFailurePolicy == nil || !v.JobPodFailurePolicy() {
		return FailureRule{}
	}
	for i, r := range js.PodFailurePolicy.Rules {
		ec := r.OnExitCodes
		if ec == nil || ec.Operator != batchv1.PodFailurePolicyOnExitCodesOpNotIn {
			continue
		}
		if ec.ContainerName != nil && *ec.ContainerName != container {
			continue
		}
		switch r.Action {
		case batchv1.PodFailurePolicyActionFailIndex:
			if !v.FailIndexAction() {
				continue
			}
		case batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyActionCount:
		default:
			continue
		}
		return FailureRule{Action: r.Action, Path: jp.Join("podFailurePolicy.rules").Index(i)}
	}
	return FailureRule{}
}
