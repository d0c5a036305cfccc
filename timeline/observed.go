package timeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/podlint/podlint/workload"
)

// ObservedContainer is what a cluster showed of one container of a
// workload (podlint observe).
type ObservedContainer struct {
	// Starts is the number of start-ups seen, StartupMax the longest and
	// StartupP95 the 95th percentile (container start to Pod Ready).
	Starts                 int
	StartupMax, StartupP95 float64
	// PodStartup says a start-up is the Pod's: it runs several
	// containers, and Ready is the Pod's.
	PodStartup bool
	// Shutdowns is the number of deletions seen, ShutdownMax the longest
	// from deletion to the container's exit, SIGKILLs those that ended
	// with exit code 137.
	Shutdowns   int
	ShutdownMax float64
	SIGKILLs    int
	// CompletedShutdownMax is the longest of the shutdowns that ended
	// before SIGKILL: only those tell how long the container needs. A
	// SIGKILLed one was cut off at the grace period, a lower bound that
	// rules report as such (PL208), not an expected shutdown.
	CompletedShutdownMax float64
	// KillsBeforeReady counts the kubelet's probe kills of the container
	// before it was ever Ready; NotReadyAfter is the longest such run
	// whose length the Pod status told (0 when none did).
	KillsBeforeReady int
	NotReadyAfter    float64
	// StartupProbeKills counts the kills by the startup probe among all
	// probe kills (the rest were the liveness probe's).
	StartupProbeKills int

	// The rest of the summaries, which the timeline shows beside the
	// computed windows (podlint timeline, the editor's hover).
	StartupMin, StartupMedian                float64
	ShutdownMin, ShutdownMedian, ShutdownP95 float64
	// LivenessProbeKills counts the kills by the liveness probe, before
	// Ready or after.
	LivenessProbeKills int
}

// Observed is a profile that podlint check --observed reads: the model
// takes a container's observed start-up and shutdown as its expected ones
// where they are longer than what an annotation or the configuration
// states (an observation only ever adds findings), and rules report the
// kills it saw.
type Observed struct {
	// Source says where the numbers come from, for messages: "snapshot
	// of 2026-12-01", with ", 45 days old" once it is stale.
	Source string
	// Mode is how the profile was recorded (snapshot or watch), From and
	// To the span of its recordings, Stale whether the last one is old
	// enough that Source says so.
	Mode     string
	From, To time.Time
	Stale    bool
	// Workloads maps namespace/Kind/name to its containers by name.
	Workloads map[string]map[string]ObservedContainer
}

// Container returns what was observed of a container of w. A manifest
// that states no namespace matches the one workload of its kind and name
// in the profile, if there is exactly one.
func (o *Observed) Container(w *workload.Workload, container string) (ObservedContainer, bool) {
	cs := o.Of(w)
	if cs == nil {
		return ObservedContainer{}, false
	}
	c, ok := cs[container]
	return c, ok
}

// Of returns what was observed of w's containers, by name: nil when o is
// nil or does not cover w.
func (o *Observed) Of(w *workload.Workload) map[string]ObservedContainer {
	if o == nil || w == nil || w.Name == "" {
		return nil
	}
	if w.Namespace != "" {
		return o.Workloads[w.Namespace+"/"+w.Kind+"/"+w.Name]
	}
	var found map[string]ObservedContainer
	n := 0
	for key, cs := range o.Workloads {
		if strings.HasSuffix(key, "/"+w.Kind+"/"+w.Name) && strings.Count(key, "/") == 2 {
			found, n = cs, n+1
		}
	}
	if n != 1 {
		return nil
	}
	return found
}

// StartupNote describes an observed start-up for messages: "observed: up
// to 52s, p95 48s, 37 starts, snapshot of 2026-12-01".
func (o *Observed) StartupNote(c ObservedContainer) string {
	pod := ""
	if c.PodStartup {
		pod = " (the Pod's)"
	}
	return fmt.Sprintf("observed start-up%s up to %s, p95 %s, %s, %s", pod, FormatDuration(c.StartupMax), FormatDuration(c.StartupP95), count(c.Starts, "start"), o.Source)
}

// ShutdownNote describes an observed shutdown for messages: the longest
// of those that ended before SIGKILL.
func (o *Observed) ShutdownNote(c ObservedContainer) string {
	return fmt.Sprintf("observed shutdown up to %s, %s, %d ended by SIGKILL, %s", FormatDuration(c.CompletedShutdownMax), count(c.Shutdowns, "deletion"), c.SIGKILLs, o.Source)
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// observedOver returns e, or the observed value where it is longer: an
// observation is evidence that the container needs at least that long.
func observedOver(e Expected, p Params, w *workload.Workload, container string, startup bool) Expected {
	c, ok := p.Observed.Container(w, container)
	if !ok {
		return e
	}
	sec, note := c.StartupMax, p.Observed.StartupNote(c)
	if !startup {
		sec, note = c.CompletedShutdownMax, p.Observed.ShutdownNote(c)
	}
	if (startup && c.Starts == 0) || (!startup && c.Shutdowns == c.SIGKILLs) || (e.OK && e.Seconds >= sec) {
		return e
	}
	return Expected{Seconds: sec, Text: FormatDuration(sec), OK: true, Source: FromObserved, Key: note}
}
