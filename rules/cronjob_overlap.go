package rules

import (
	"fmt"

	"math"
	"strings"
	"time"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
	"github.com/robfig/cron/v3"
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
		} else {
			return
		}
		period, ok := schedulePeriod(cj.Spec.Schedule)
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

// schedulePeriod is the shortest gap between consecutive times of a cron
// schedule, parsed as the controller parses it (cron.ParseStandard),
// looking at the times of about a year from a fixed date so the result does
// not depend on the clock.
func schedulePeriod(schedule string) (float64, bool) {
	s, err := cron.ParseStandard(strings.TrimSpace(schedule))
	if err != nil {
		return 0, false
	}
	start := time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)
	end := start.AddDate(1, 0, 7)
	prev := s.Next(start)
	if prev.IsZero() {
		return 0, false
	}
	best := math.Inf(1)
	for i := 0; i < 1100 && best > 60; i++ { // a minute is the finest a schedule can be
		next := s.Next(prev)
		if next.IsZero() || next.After(end) {
			break
		}
		best = math.Min(best, next.Sub(prev).Seconds())
		prev = next
	}
	if math.IsInf(best, 1) {
		return 0, false
	}
	return best, true
}

// durationText prints seconds as a Go duration ("5m0s" → "5m").
func durationText(s float64) string {
	d := time.Duration(s * float64(time.Second)).String()
	d = strings.TrimSuffix(d, "0s")
	if strings.HasSuffix(d, "h0m") {
		d = strings.TrimSuffix(d, "0m")
	}
	if d == "" {
		return "0s"
	}
	return d
}
