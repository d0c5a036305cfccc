package timeline

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

func ctrPolicy(p corev1.ContainerRestartPolicy) *corev1.ContainerRestartPolicy { return &p }

// TestContainerRestartPolicy: with ContainerRestartRules (on by default
// since 1.35) the kubelet decides restarts from each container's own
// restartPolicy and restartPolicyRules (podutil.ContainerShouldRestart,
// IsContainerRestartable; computePodActions for probe kills); before, the
// API server drops the field and the Pod's policy applies.
func TestContainerRestartPolicy(t *testing.T) {
	always, never := corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever
	rule := []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}}}}
	notIn := []corev1.ContainerRestartRule{{Action: corev1.ContainerRestartRuleActionRestart,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpNotIn, Values: []int32{0}}}}
	tests := []struct {
		name       string
		pod        corev1.RestartPolicy
		containers []corev1.Container
		v          Version
		crashLoops bool            // Pod.RestartSchedule != nil
		kill       map[string]bool // Container.Restarts
		failure    map[string]bool // Container.RestartsOnFailure
	}{
		{name: "Never Pod, Always container: crash-loops on 1.35", pod: corev1.RestartPolicyNever, v: Version{1, 35},
			containers: []corev1.Container{{Name: "a", RestartPolicy: ctrPolicy(always)}},
			crashLoops: true, kill: map[string]bool{"a": true}, failure: map[string]bool{"a": true}},
		{name: "Never Pod, Always container: dropped on 1.34 (alpha, off)", pod: corev1.RestartPolicyNever, v: Version{1, 34},
			containers: []corev1.Container{{Name: "a", RestartPolicy: ctrPolicy(always)}},
			crashLoops: false, kill: map[string]bool{"a": false}, failure: map[string]bool{"a": false}},
		{name: "Always Pod whose containers all say Never: no crash loop", pod: corev1.RestartPolicyAlways, v: Latest,
			containers: []corev1.Container{{Name: "a", RestartPolicy: ctrPolicy(never)}, {Name: "b", RestartPolicy: ctrPolicy(never)}},
			crashLoops: false, kill: map[string]bool{"a": false, "b": false}, failure: map[string]bool{"a": false, "b": false}},
		{name: "Always Pod, one container Never: the other still crash-loops", pod: corev1.RestartPolicyAlways, v: Latest,
			containers: []corev1.Container{{Name: "a", RestartPolicy: ctrPolicy(never)}, {Name: "b"}},
			crashLoops: true, kill: map[string]bool{"a": false, "b": true}, failure: map[string]bool{"a": false, "b": true}},
		{name: "Never container with a Restart rule on exit code 42 only: a crash of another code stays down", pod: corev1.RestartPolicyAlways, v: Latest,
			containers: []corev1.Container{{Name: "a", RestartPolicy: ctrPolicy(never), RestartPolicyRules: rule}},
			crashLoops: false, kill: map[string]bool{"a": false}, failure: map[string]bool{"a": false}},
		{name: "Never container with a Restart rule on codes NotIn [0]: crash-loops, but a probe kill is final", pod: corev1.RestartPolicyNever, v: Latest,
			containers: []corev1.Container{{Name: "a", RestartPolicy: ctrPolicy(never), RestartPolicyRules: notIn}},
			crashLoops: true, kill: map[string]bool{"a": false}, failure: map[string]bool{"a": true}},
		{name: "Always Pod, Never container on 1.30: the Pod's policy", pod: corev1.RestartPolicyAlways, v: Version{1, 30},
			containers: []corev1.Container{{Name: "a", RestartPolicy: ctrPolicy(never)}},
			crashLoops: true, kill: map[string]bool{"a": true}, failure: map[string]bool{"a": true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := Compute(podWorkload(&corev1.PodSpec{RestartPolicy: tc.pod, Containers: tc.containers}), tc.v, nominal())
			if got := tl.Pod.RestartSchedule != nil; got != tc.crashLoops {
				t.Errorf("crash-loop schedule %v, want %v", got, tc.crashLoops)
			}
			for name, want := range tc.kill {
				if got := tl.Container(name).Restarts; got != want {
					t.Errorf("%s restarted after a probe kill: %v, want %v", name, got, want)
				}
			}
			for name, want := range tc.failure {
				if got := tl.Container(name).RestartsOnFailure; got != want {
					t.Errorf("%s restarted after a failed exit: %v, want %v", name, got, want)
				}
			}
		})
	}
}

// TestJobRetriesFollowPolicies: the Job's retry model follows the
// container-level policies and the podFailurePolicy (§5.3).
func TestJobRetriesFollowPolicies(t *testing.T) {
	onFailure := corev1.ContainerRestartPolicyOnFailure
	never := corev1.ContainerRestartPolicyNever
	notIn := func(action batchv1.PodFailurePolicyAction, container *string) batchv1.PodFailurePolicyRule {
		return batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
			ContainerName: container, Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{0}}}
	}
	in42 := batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionFailJob, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
		Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}}}
	disruption := batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
		OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}
	other := "other"
	tests := []struct {
		name       string
		pod        corev1.RestartPolicy
		ctr        *corev1.ContainerRestartPolicy
		rules      []batchv1.PodFailurePolicyRule
		perIndex   bool
		limit      *int32 // backoffLimit besides backoffLimitPerIndex
		v          Version
		retriesLo  float64 // run 30 s, backoffLimit 2
		notCounted bool
		action     batchv1.PodFailurePolicyAction
	}{
		// Never: 3 runs + 10 s + 20 s back-off, each wait up to 1 s
		// shorter (finishedAt has whole seconds).
		{name: "no policy", pod: corev1.RestartPolicyNever, v: Latest, retriesLo: 118},
		{name: "Ignore on DisruptionTarget leaves crashes counted", pod: corev1.RestartPolicyNever, v: Latest,
			rules: []batchv1.PodFailurePolicyRule{disruption, in42}, retriesLo: 118},
		{name: "FailJob on any other code ends the Job at the first failure", pod: corev1.RestartPolicyNever, v: Latest,
			rules:     []batchv1.PodFailurePolicyRule{disruption, in42, notIn(batchv1.PodFailurePolicyActionFailJob, nil)},
			retriesLo: 30, action: batchv1.PodFailurePolicyActionFailJob},
		{name: "FailJob rule dropped before 1.26", pod: corev1.RestartPolicyNever, v: Version{1, 25},
			rules: []batchv1.PodFailurePolicyRule{notIn(batchv1.PodFailurePolicyActionFailJob, nil)}, retriesLo: 118},
		{name: "FailJob for another container only", pod: corev1.RestartPolicyNever, v: Latest,
			rules: []batchv1.PodFailurePolicyRule{notIn(batchv1.PodFailurePolicyActionFailJob, &other)}, retriesLo: 118},
		{name: "Ignore: failures never reach backoffLimit", pod: corev1.RestartPolicyNever, v: Latest,
			rules:     []batchv1.PodFailurePolicyRule{notIn(batchv1.PodFailurePolicyActionIgnore, nil)},
			retriesLo: 30, notCounted: true, action: batchv1.PodFailurePolicyActionIgnore},
		{name: "Count: as without a policy", pod: corev1.RestartPolicyNever, v: Latest,
			rules:     []batchv1.PodFailurePolicyRule{notIn(batchv1.PodFailurePolicyActionCount, nil)},
			retriesLo: 118, action: batchv1.PodFailurePolicyActionCount},
		{name: "FailIndex with backoffLimitPerIndex: the index fails at once", pod: corev1.RestartPolicyNever, v: Latest, perIndex: true,
			rules:     []batchv1.PodFailurePolicyRule{notIn(batchv1.PodFailurePolicyActionFailIndex, nil)},
			retriesLo: 30, action: batchv1.PodFailurePolicyActionFailIndex},
		{name: "FailIndex skipped on 1.28 (JobBackoffLimitPerIndex off)", pod: corev1.RestartPolicyNever, v: Version{1, 28}, perIndex: true, limit: i32(2),
			rules: []batchv1.PodFailurePolicyRule{notIn(batchv1.PodFailurePolicyActionFailIndex, nil), notIn(batchv1.PodFailurePolicyActionCount, nil)}, retriesLo: 118,
			action: batchv1.PodFailurePolicyActionCount},
		// OnFailure: 2 runs + 0 + 10 s crash-loop back-off.
		{name: "OnFailure Pod", pod: corev1.RestartPolicyOnFailure, v: Latest, retriesLo: 70},
		{name: "Never Pod, OnFailure container: restarted in place, never counted", pod: corev1.RestartPolicyNever, ctr: &onFailure, v: Latest,
			retriesLo: 30, notCounted: true},
		{name: "Never Pod, OnFailure container on 1.34: dropped", pod: corev1.RestartPolicyNever, ctr: &onFailure, v: Version{1, 34}, retriesLo: 118},
		{name: "OnFailure Pod, Never container: the Pod fails", pod: corev1.RestartPolicyOnFailure, ctr: &never, v: Latest, retriesLo: 118},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := jobWorkload(tc.pod, i32(2), i64(100000))
			w.Spec.Containers[0].RestartPolicy = tc.ctr
			if tc.rules != nil {
				w.Job.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: tc.rules}
			}
			if tc.perIndex {
				w.Job.BackoffLimit, w.Job.BackoffLimitPerIndex = tc.limit, i32(2)
			}
			p := nominal()
			p.JobRun = Seconds(30)
			j := Compute(w, tc.v, p).Job
			if j.Retries.Lo != tc.retriesLo || (j.NotCounted != "") != tc.notCounted || j.Retries.HiUnbounded != tc.notCounted {
				t.Errorf("retries %v not counted %q, want from %v, not counted %v", j.Retries, j.NotCounted, tc.retriesLo, tc.notCounted)
			}
			if j.OnFailure.Action != tc.action {
				t.Errorf("action %q, want %q", j.OnFailure.Action, tc.action)
			}
			if tc.notCounted && (!j.DeadlineFirst || j.GivesUp.Lo != 100000-APITimeResolution || j.DeadlineEnds.Interval != j.GivesUp.Interval) {
				t.Errorf("not counted: deadline first %v, gives up %v; want the deadline", j.DeadlineFirst, j.GivesUp)
			}
		})
	}
}
