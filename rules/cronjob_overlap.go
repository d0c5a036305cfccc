package rules

import (
	"fmt"

	"math"
	"strings"
	"time"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	batchv1 "k8s.io/api/batch/v1"
)

// ExpectedRunAnnotation states how long one run of a CronJob's Job takes.
const ExpectedRunAnnotation = "podlint.dev/expected-run"

var CronJobOverlap = &Rule{
	ID: "PL706", Name: "cronjob-overlap", Title: "a CronJob run lasts longer than its schedule period",
	Severity: finding.Warning,
	Check: func(p *Pass) {
		cj, ok := p.Object.Typed.(*batchv1.CronJob)
		if !ok || p.Workload.Job == nil {
			return
		}
		if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
			return
		}
		run, source, path := 0.0, "", workload.Path("")
		if v, ok := p.Workload.Annotations[ExpectedRunAnnotation]; ok {
			s, err := timeline.ParseSeconds(v)
			if err != nil {
				return
			}
			run, source, path = s, "stated with "+ExpectedRunAnnotation, p.Workload.AnnotationPaths[ExpectedRunAnnotation]
		} else if ads := p.Workload.Job.ActiveDeadlineSeconds; ads != nil {
			run, source, path = float64(*ads), "its activeDeadlineSeconds", p.Workload.JobPath.Field("activeDeadlineSeconds")
		} else if r, what, ok := retriesOutlast(p, cj.Spec.ConcurrencyPolicy); ok {
			run, source, path = r, what, p.Workload.JobPath.Field(retryField(p))
		} else {
			return
		}
		period, ok := timeline.SchedulePeriod(cj.Spec.Schedule)
		if !ok || run <= period {
			return
		}
		sched := fmt.Sprintf("schedule %q starts a Job every %s at the shortest, but a run can last %s (%s)", cj.Spec.Schedule, durationText(period), durationText(run), source)
		var msg string
		switch cj.Spec.ConcurrencyPolicy {
		case batchv1.ForbidConcurrent:
			msg = fmt.Sprintf("%s: with concurrencyPolicy Forbid every start that falls while a run is active is skipped, and only the latest missed one starts, late, when the run ends, so the schedule is not kept; make the period longer than a run or shorten the run", sched)
		case batchv1.ReplaceConcurrent:
			msg = fmt.Sprintf("%s: with concurrencyPolicy Replace the controller deletes the running Job at the next start, so a run longer than %s never completes; make the period longer than a run or shorten the run", sched, durationText(period))
		default:
			n := int(math.Ceil(run / period))
			msg = fmt.Sprintf("%s: with concurrencyPolicy Allow (the default) runs overlap, up to %d at once; set concurrencyPolicy: Forbid, or make the period longer than a run", sched, n)
		}
		p.Report(Diagnostic{Path: path, Message: fmt.Sprintf("a run can last %s, longer than the schedule period of %s", durationText(run), durationText(period)), Detail: capitalize(msg) + "."})
	},
}

// durationText prints seconds as a Go duration ("5m0s" → "5m").
func durationText(s float64) string {
	d := time.Duration(s * float64(time.Second)).String()
	// Only a zero seconds field goes ("10m30s" keeps its "0s").
	if strings.HasSuffix(d, "m0s") {
		d = strings.TrimSuffix(d, "0s")
	}
	if strings.HasSuffix(d, "h0m") {
		d = strings.TrimSuffix(d, "0m")
	}
	return d
}

// retriesOutlast is how long a run of a CronJob whose Pods all fail lasts at
// least, until backoffLimit gives up (the timeline's Job.Retries, its
// certain part when run times are unknown), for the policies where a run
// that outlasts the period costs runs: Forbid and Replace. Under Allow the
// overlap of failing runs is what the Job's retries are for.
func retriesOutlast(p *Pass, policy batchv1.ConcurrencyPolicy) (float64, string, bool) {
	t := p.Timeline()
	if policy != batchv1.ForbidConcurrent && policy != batchv1.ReplaceConcurrent || t == nil || t.Job == nil || t.Job.NotCounted != "" {
		return 0, "", false
	}
	r := t.Job.Retries
	worst := r.Hi
	if r.HiUnbounded || len(r.Plus) > 0 {
		worst = r.Lo
	}
	if worst <= 0 {
		return 0, "", false
	}
	field := retryField(p)
	what := fmt.Sprintf("when its Pods keep failing, until %s %d is used up", field, int64(t.Job.BackoffLimit.V))
	if len(r.Plus) > 0 {
		what += ", its back-off delays alone"
	}
	return worst, what, true
}

func retryField(p *Pass) string {
	if t := p.Timeline(); t != nil && t.Job != nil && t.Job.PerIndex {
		return "backoffLimitPerIndex"
	}
	return "backoffLimit"
}
