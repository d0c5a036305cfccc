package timeline

import (
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

// The shortcut for schedules that run every day must give exactly what
// walking the schedule's year gives, and must stay out of the way of the
// schedules it cannot answer.
func TestDailyPeriodIsTheWalksPeriod(t *testing.T) {
	for _, sched := range []string{
		"* * * * *", "*/5 * * * *", "*/7 * * * *", "0 * * * *", "30 2 * * *", "0 3 * * *", "0 0,12 * * *",
		"5,55 * * * *", "0 9-17 * * *", "59 23 * * *", "0,1 0 * * *", "*/13 */5 * * *", "@hourly", "@daily",
		"@midnight", "0 0 * * 0-6", "0 0 1-31 * *", "0 0 * 1-12 *", "15 4 * * SUN-SAT",
	} {
		s, err := cron.ParseStandard(sched)
		if err != nil {
			t.Fatalf("%s: %v", sched, err)
		}
		spec := *s.(*cron.SpecSchedule)
		spec.Location = time.UTC
		got, ok := dailyPeriod(&spec)
		if !ok {
			t.Errorf("%s: runs every day, but the shortcut declined it", sched)
			continue
		}
		if want, _ := iteratedPeriod(&spec); got != want {
			t.Errorf("%s: shortcut %v s, walk %v s", sched, got, want)
		}
	}
	for _, sched := range []string{"0 0 * * 1", "0 0 1 * *", "0 0 * 2 *", "0 0 13 * 5", "@weekly", "@monthly"} {
		s, _ := cron.ParseStandard(sched)
		spec := *s.(*cron.SpecSchedule)
		spec.Location = time.UTC
		if p, ok := dailyPeriod(&spec); ok {
			t.Errorf("%s does not run every day, but the shortcut answered %v s", sched, p)
		}
	}
	berlin := time.FixedZone("x", 3600)
	if !offsetNeverChanges(berlin) {
		t.Error("a fixed zone changes its offset")
	}
	if loc, err := time.LoadLocation("Europe/Berlin"); err == nil && offsetNeverChanges(loc) {
		t.Error("Europe/Berlin has daylight saving time, but offsetNeverChanges says it does not")
	}
}
