package timeline

import (
	"slices"

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
	return JobFailureRuleFor(js, jp, container, 0, false, v)
}

// JobFailureRuleFor is JobFailureRule for a failure with exit code code when
// known is true (a command that states it, StatedExit): then an In rule
// listing the code matches and a NotIn rule listing it does not.
func JobFailureRuleFor(js *batchv1.JobSpec, jp workload.Path, container string, code int32, known bool, v Version) FailureRule {
	for _, r := range activeFailureRules(js, container, v) {
		if exitCodesMatch(string(r.OnExitCodes.Operator), r.OnExitCodes.Values, code, known) {
			return FailureRule{Action: r.Action, Path: jp.Join("podFailurePolicy.rules").Index(r.index)}
		}
	}
	return FailureRule{}
}

// FailureOutcomes lists, in rule order, every action the podFailurePolicy
// can take on a failure of the named container whose exit code the
// manifest does not state: the action of each onExitCodes rule that some
// code can reach, and Count when some code matches no rule. It stops at a
// rule every non-zero code matches (NotIn listing no code but 0). Nil when
// no policy applies on v.
func FailureOutcomes(js *batchv1.JobSpec, container string, v Version) []batchv1.PodFailurePolicyAction {
	if js == nil || js.PodFailurePolicy == nil || !v.orLatest().JobPodFailurePolicy() {
		return nil
	}
	var out []batchv1.PodFailurePolicyAction
	add := func(a batchv1.PodFailurePolicyAction) {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	for _, r := range activeFailureRules(js, container, v) {
		add(r.Action)
		if r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpNotIn && !slices.ContainsFunc(r.OnExitCodes.Values, func(c int32) bool { return c != 0 }) {
			return out
		}
	}
	add(batchv1.PodFailurePolicyActionCount)
	return out
}

type failureRule struct {
	batchv1.PodFailurePolicyRule
	index int
}

// activeFailureRules are the rules that can match a container crash on v, in
// order: onExitCodes rules for that container (or any) whose action the
// controller knows on v. onPodConditions never matches a crash (see
// JobFailureRule).
func activeFailureRules(js *batchv1.JobSpec, container string, v Version) []failureRule {
	v = v.orLatest()
	if js == nil || js.PodFailurePolicy == nil || !v.JobPodFailurePolicy() {
		return nil
	}
	var out []failureRule
	for i, r := range js.PodFailurePolicy.Rules {
		ec := r.OnExitCodes
		if ec == nil {
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
		out = append(out, failureRule{PodFailurePolicyRule: r, index: i})
	}
	return out
}
