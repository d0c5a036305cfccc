package observe

import (
	"testing"
	"time"

	"github.com/podlint/podlint/timeline"
)

// TestExpectationsCarryTheWholeSummary: what check and the timeline read
// of a profile holds every number the timeline shows (count, min, median,
// p95, max; kills by probe; shutdowns), the recording's mode and span,
// and whether it is stale, judged as Source words it.
func TestExpectationsCarryTheWholeSummary(t *testing.T) {
	p := snapshot(t)
	p.Windows = []Window{{Mode: ModeSnapshot, From: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), To: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}}
	data, err := p.Encode()
	if err != nil {
		t.Fatal(err)
	}
	o, err := Expectations(data, "p.yaml", time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if o.Mode != ModeSnapshot || !o.From.Equal(p.Windows[0].From) || !o.To.Equal(p.Windows[0].To) || o.Stale || o.Source != "snapshot of 2026-12-01" {
		t.Errorf("profile: mode %q, %v to %v, stale %v, %q", o.Mode, o.From, o.To, o.Stale, o.Source)
	}
	// shop/Deployment/web: start-ups of 52s and 42s, six liveness kills,
	// one deletion of 31s that ended by SIGKILL.
	want := timeline.ObservedContainer{Starts: 2, StartupMin: 42, StartupMedian: 42, StartupP95: 52, StartupMax: 52,
		KillsBeforeReady: 6, NotReadyAfter: 43, LivenessProbeKills: 6,
		Shutdowns: 1, ShutdownMin: 31, ShutdownMedian: 31, ShutdownP95: 31, ShutdownMax: 31, SIGKILLs: 1}
	if got := o.Workloads["shop/Deployment/web"]["app"]; got != want {
		t.Errorf("web/app:\n got %+v\nwant %+v", got, want)
	}
	if o, _ = Expectations(data, "p.yaml", time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC)); !o.Stale || o.Source != "snapshot of 2026-12-01, stale: 44 days old" {
		t.Errorf("44 days on: stale %v, %q", o.Stale, o.Source)
	}
}
