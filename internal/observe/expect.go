package observe

import (
	"fmt"
	"time"

	"github.com/podlint/podlint/timeline"
)

// StaleAfter is the age from which a profile's last recording is called
// stale: a new release may start slower, a new node type faster.
const StaleAfter = 30 * 24 * time.Hour

// Expectations reads a profile for check --observed: per workload and
// regular container, its longest observed start-up and shutdown and the
// kills it saw. Init containers' run times stay in the profile; no rule
// reads them yet.
func Expectations(data []byte, name string, now time.Time) (*timeline.Observed, error) {
	p, err := Decode(data, name)
	if err != nil {
		return nil, err
	}
	o := &timeline.Observed{Source: p.describe(now), Mode: p.Mode, Workloads: map[string]map[string]timeline.ObservedContainer{}}
	o.From, o.To = p.span()
	o.Stale = !o.To.IsZero() && now.Sub(o.To) > StaleAfter
	for _, w := range p.Workloads {
		cs := map[string]timeline.ObservedContainer{}
		for _, c := range w.Containers {
			if c.Init {
				continue
			}
			oc := timeline.ObservedContainer{PodStartup: w.PodStartup}
			if s := c.Startup; s != nil && s.Count > 0 {
				oc.Starts, oc.StartupMax, oc.StartupP95 = s.Count, float64(s.Max), float64(s.P95)
				oc.StartupMin, oc.StartupMedian = float64(s.Min), float64(s.Median)
			}
			if z := c.Censored; z != nil {
				oc.KillsBeforeReady = z.Kills
				if z.NotReadyAfter != nil {
					oc.NotReadyAfter = float64(z.NotReadyAfter.Max)
				}
			}
			for _, r := range c.Restarts {
				switch r.Cause {
				case "startup-probe":
					oc.StartupProbeKills = r.Count
				case "liveness-probe":
					oc.LivenessProbeKills = r.Count
				}
			}
			if d := c.Shutdowns; d != nil && d.Took != nil {
				oc.Shutdowns, oc.ShutdownMax = d.Took.Count, float64(d.Took.Max)
				oc.ShutdownMin, oc.ShutdownMedian, oc.ShutdownP95 = float64(d.Took.Min), float64(d.Took.Median), float64(d.Took.P95)
				killed := map[string]bool{}
				if d.SIGKILL != nil {
					oc.SIGKILLs = d.SIGKILL.Count
					for _, x := range d.SIGKILL.Samples {
						killed[x.ID] = true
					}
				}
				for _, x := range d.Took.Samples {
					if !killed[x.ID] {
						oc.CompletedShutdownMax = max(oc.CompletedShutdownMax, x.Seconds)
					}
				}
			}
			cs[c.Name] = oc
		}
		o.Workloads[w.Key] = cs
	}
	return o, nil
}

// describe names the profile's recordings for messages: "snapshot of
// 2026-12-01", "watch of 2026-11-28 to 2026-12-01", and how old the last
// one is once that is more than StaleAfter.
func (p *Profile) describe(now time.Time) string {
	if len(p.Windows) == 0 {
		return p.Mode + " of unknown date"
	}
	first, last := p.span()
	day := func(t time.Time) string { return t.UTC().Format("2006-01-02") }
	s := fmt.Sprintf("%s of %s", p.Mode, day(last))
	if p.Mode == ModeWatch && day(first) != day(last) {
		s = fmt.Sprintf("%s of %s to %s", p.Mode, day(first), day(last))
	}
	if age := now.Sub(last); age > StaleAfter {
		s += fmt.Sprintf(", stale: %d days old", int(age.Hours()/24))
	}
	return s
}

// span is when the first recording began and the last one ended; zero
// times when there is none.
func (p *Profile) span() (first, last time.Time) {
	for i, w := range p.Windows {
		if i == 0 {
			first, last = w.From, w.To
		}
		if w.To.After(last) {
			last = w.To
		}
	}
	return first, last
}
