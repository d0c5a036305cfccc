package plot

import (
	"io"
	"strings"
	"testing"

	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestJobFailurePolicyText: the text timeline says when a podFailurePolicy
// ends the Job at the first failure or keeps failures from counting,
// instead of "retries used up".
func TestJobFailurePolicyText(t *testing.T) {
	rule := func(action batchv1.PodFailurePolicyAction) *batchv1.PodFailurePolicy {
		return &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: action,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{3}}}}}
	}
	for _, tc := range []struct {
		action batchv1.PodFailurePolicyAction
		want   []string
	}{
		{batchv1.PodFailurePolicyActionFailJob, []string{"first failure, FailJob", "its podFailurePolicy (FailJob) ends it at the first failure"}},
		{batchv1.PodFailurePolicyActionIgnore, []string{"failures not counted", "failures never reach backoffLimit: its podFailurePolicy ignores"}},
	} {
		w := &workload.Workload{Kind: "Job", SpecPath: "spec.template.spec", JobPath: "spec",
			Job:  &batchv1.JobSpec{BackoffLimit: i32(4), ActiveDeadlineSeconds: i64(600), PodFailurePolicy: rule(tc.action)},
			Spec: &corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "report"}}}}
		p := timeline.DefaultParams()
		p.JobRun = timeline.Seconds(60)
		items := []Item{{File: "job.yaml", Line: 1, APIVersion: "batch/v1", Kind: "Job", Name: "report", Timeline: timeline.Compute(w, timeline.Latest, p)}}
		out := render(t, func(w io.Writer) error { return Text(w, items, false) })
		flat := strings.Join(strings.Fields(string(out)), " ") // undo the line wrapping
		for _, want := range tc.want {
			if !strings.Contains(flat, want) {
				t.Errorf("%s: text lacks %q:\n%s", tc.action, want, out)
			}
		}
	}
}
