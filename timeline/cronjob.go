package timeline

import (
	"math"
	"strings"
	"sync"
	"time"

	"github.com/podlint/podlint/workload"
	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
)

// CronJob is what the CronJob controller does with runs that last longer
// than the schedule's period (§CronJob): Allow runs them side by side,
// Forbid skips the starts that fall while one is active, Replace deletes
// the active Job at the next start; startingDeadlineSeconds bounds how late
// a start may still happen.
type CronJob struct {
	Path              workload.Path
	Schedule          string
	ConcurrencyPolicy string // Allow (default), Forbid, Replace
	Suspend           bool
	// Period is the shortest gap between two scheduled times (Set false
	// and V 0 when the schedule does not parse).
	Period Value
	// StartingDeadline is startingDeadlineSeconds (nil when unset).
	StartingDeadline *Value
	// RunLasts is how long one run can last at worst: the Job's GivesUp
	// (every Pod failing until backoffLimit or activeDeadlineSeconds).
	RunLasts Span
	// Overlaps: RunLasts can exceed Period.
	Overlaps bool
	// ConcurrentRuns (Allow): the most runs active at once,
	// ⌈RunLasts / Period⌉, RunLasts being its upper edge, or its lower one
	// (a minimum) when run times are unknown and no activeDeadlineSeconds
	// bounds it; 0 when unbounded.
	ConcurrentRuns int
	// SkippedStarts (Forbid): scheduled starts skipped while one run is
	// active, ⌈RunLasts / Period⌉ − 1, likewise.
	SkippedStarts int
	// LateStart (Forbid): the latest missed start runs when the active run
	// ends, at most startingDeadlineSeconds after its time (otherwise it is
	// recorded as missed); the interval is how late it starts after its
	// scheduled time, nil when no start is missed.
	LateStart *Interval
	// ReplacedAt (Replace): a run still active at the next scheduled time
	// is deleted then (the controller wakes 100 ms after it), so no run
	// outlasts Period; nil unless a run can overlap.
	ReplacedAt *Span
}

// CronJobWakeDelay is how long after a scheduled time the controller
// re-queues itself (nextScheduleTimeDuration: + 100 ms).
const CronJobWakeDelay = 0.1

func (k *computer) cronJob() *CronJob {
	cs, cp := k.w.CronJob, k.w.CronJobPath
	out := &CronJob{Path: cp, Schedule: cs.Schedule, ConcurrencyPolicy: string(cs.ConcurrencyPolicy), Suspend: cs.Suspend != nil && *cs.Suspend}
	if out.ConcurrencyPolicy == "" {
		out.ConcurrencyPolicy = string(batchv1.AllowConcurrent)
	}
	out.Period = Value{Path: cp.Join("schedule")}
	if period, ok := SchedulePeriod(cs.Schedule); ok {
		out.Period.V, out.Period.Set = period, true
	}
	if cs.StartingDeadlineSeconds != nil {
		out.StartingDeadline = &Value{V: math.Max(float64(*cs.StartingDeadlineSeconds), 0), Path: cp.Join("startingDeadlineSeconds"), Set: true}
	}
	if k.t.Job == nil {
		return out
	}
	out.RunLasts = k.t.Job.GivesUp
	P := out.Period.V
	if !out.Period.Set || P <= 0 {
		return out
	}
	worst, bounded := out.RunLasts.Hi, !out.RunLasts.HiUnbounded
	if len(out.RunLasts.Plus) > 0 {
		// Unknown run times only lengthen the run: activeDeadlineSeconds
		// still bounds it, else Lo is a certain minimum.
		if ends := k.t.Job.DeadlineEnds; ends != nil {
			worst = ends.Hi
		} else {
			worst, bounded = out.RunLasts.Lo, false
		}
	}
	out.Overlaps = worst > P || out.RunLasts.HiUnbounded
	if !out.Overlaps {
		return out
	}
	n := 0
	if !out.RunLasts.HiUnbounded {
		n = int(math.Min(math.Ceil(worst/P), math.MaxInt32))
	}
	switch batchv1.ConcurrencyPolicy(out.ConcurrencyPolicy) {
	case batchv1.ForbidConcurrent:
		out.SkippedStarts = max(n-1, 0)
		// The active run ends somewhere in the period after the last
		// start it overlapped: that start runs that much late.
		late := Between(0, P)
		if bounded {
			// A run that certainly lasts past the last start it overlaps
			// (its Lo in the same period) starts that one at least so late.
			lo := 0.0
			if len(out.RunLasts.Plus) == 0 {
				lo = math.Max(out.RunLasts.Lo-float64(n-1)*P, 0)
			}
			late = Between(math.Min(lo, P), math.Min(P, worst-float64(n-1)*P))
		}
		// The run's Job was created CronJobWakeDelay after its own
		// scheduled time, so it ends that much later.
		late = late.Shift(CronJobWakeDelay)
		if d := out.StartingDeadline; d != nil {
			late = Earlier(late, At(d.V))
		}
		out.LateStart = &late
	case batchv1.ReplaceConcurrent:
		at := span(At(P+CronJobWakeDelay), out.Period.Path, cp.Join("concurrencyPolicy"))
		out.ReplacedAt = &at
	default:
		out.ConcurrentRuns = n
	}
	return out
}

// SchedulePeriod is the shortest gap between consecutive times of a cron
// schedule, parsed as the controller parses it (cron.ParseStandard),
// looking at the times of about a year from a fixed date so the result does
// not depend on the clock.
func SchedulePeriod(schedule string) (float64, bool) {
	s, err := cron.ParseStandard(strings.TrimSpace(schedule))
	if err != nil {
		return 0, false
	}
	if spec, ok := s.(*cron.SpecSchedule); ok {
		if p, ok := dailyPeriod(spec); ok {
			return p, true
		}
	}
	return iteratedPeriod(s)
}

// iteratedPeriod walks the schedule's times for about a year.
func iteratedPeriod(s cron.Schedule) (float64, bool) {
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

// Every day of the month, month and day of the week, as cron's bit sets.
const (
	everyDom   = 1<<32 - 2 // 1-31
	everyMonth = 1<<13 - 2 // 1-12
	everyDow   = 1<<7 - 1  // 0-6
)

// dailyPeriod is iteratedPeriod's answer, computed without walking, for a
// schedule that runs every day (the usual "*/5 * * * *" or "0 3 * * *") in
// a zone whose offset never changes: its times repeat each day, so the
// shortest gap is between two times of one day or from the day's last time
// to the next day's first. Walking a year of times cost a CronJob about
// 24 000 instructions (3 % of a run on the benchmark corpus).
func dailyPeriod(s *cron.SpecSchedule) (float64, bool) {
	if s.Second != 1 || s.Dom&everyDom != everyDom || s.Month&everyMonth != everyMonth || s.Dow&everyDow != everyDow || !steadyZone(s.Location) {
		return 0, false
	}
	first, last, best := -1, 0, math.MaxInt
	for h := range 24 {
		if s.Hour&(1<<h) == 0 {
			continue
		}
		for m := range 60 {
			if s.Minute&(1<<m) == 0 {
				continue
			}
			t := h*3600 + m*60
			if first < 0 {
				first = t
			} else {
				best = min(best, t-last)
			}
			last = t
		}
	}
	if first < 0 {
		return 0, false
	}
	return float64(min(best, first+86400-last)), true
}

// steadyZone reports whether loc keeps one offset through the year the
// walk looks at (no daylight saving time), when the walk's gaps are the
// gaps between times of day. ParseStandard puts time.Local on a schedule
// without TZ=, so that case is worked out once.
func steadyZone(loc *time.Location) bool {
	switch loc {
	case time.UTC:
		return true
	case time.Local:
		return localSteady()
	}
	return false
}

var localSteady = sync.OnceValue(func() bool { return offsetNeverChanges(time.Local) })

// offsetNeverChanges looks at loc's offset once an hour over the walk's
// year: a zone's rules change the offset for hours at the least.
func offsetNeverChanges(loc *time.Location) bool {
	t := time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)
	end := t.AddDate(1, 0, 8)
	_, want := t.In(loc).Zone()
	for ; t.Before(end); t = t.Add(time.Hour) {
		if _, off := t.In(loc).Zone(); off != want {
			return false
		}
	}
	return true
}
