package plot

import (
	"fmt"
	"strings"

	"github.com/podlint/podlint/timeline"
)

// The rows of what a podlint observe profile saw, drawn beside the computed
// windows on the same axis: a start-up from the container's earliest start
// (where the computed probe windows start too), a shutdown from the delete
// request.
const (
	labelObservedStartup  = "observed start-up"
	labelObservedCensored = "probe-killed before Ready"
	labelObservedShutdown = "observed shutdown"
)

// Glyphs of the observed rows in the text chart. Where two values share a
// column the larger wins: the longest start-up matters most.
const (
	glyphObservedRange = '·'
	glyphMedian        = '◆'
	glyphP95           = '◇'
	glyphMax           = '▲'
	glyphCensored      = '✕'
	glyphAtLeast       = '┄'
)

// mark is an observed value on a row's axis.
type mark struct {
	At   float64
	Name string // median, p95, max
}

// observedOf returns what the profile saw of container c, if the item has
// a profile entry for it.
func (it Item) observedOf(c *timeline.Container) (timeline.ObservedContainer, bool) {
	if it.Observed == nil || c == nil || c.Type == timeline.Init {
		return timeline.ObservedContainer{}, false
	}
	o, ok := it.Observed[c.Name]
	return o, ok
}

// profile is the profile the item's observations come from, or nil.
func (it Item) profile() *timeline.Observed {
	if it.Observed == nil || it.Timeline == nil {
		return nil
	}
	return it.Timeline.Params.Observed
}

// itemSections are the charts of it: its timeline's, with the observed
// rows of each container the profile covers after the container's own.
func itemSections(it Item) []section {
	secs := sections(it.Timeline)
	if it.profile() == nil {
		return secs
	}
	for i := range secs {
		s := &secs[i]
		switch s.Title {
		case "start-up":
			for _, c := range it.Timeline.Containers {
				o, ok := it.observedOf(c)
				if !ok {
					continue
				}
				S := c.Start.Lo
				if o.Starts > 0 {
					s.Rows = insertRow(s.Rows, row{Group: typeLabel(c), Label: labelObservedStartup, Kind: kindObserved,
						From: timeline.At(S + o.StartupMin), To: timeline.At(S + o.StartupMax),
						Marks: []mark{{S + o.StartupMedian, "median"}, {S + o.StartupP95, "p95"}, {S + o.StartupMax, "max"}}, Offset: S})
				}
				if o.KillsBeforeReady > 0 && o.NotReadyAfter > 0 {
					at := S + o.NotReadyAfter
					s.Rows = insertRow(s.Rows, row{Group: typeLabel(c), Label: labelObservedCensored, Kind: kindObserved,
						To: timeline.Interval{Lo: at, Hi: at, HiUnbounded: true}, Event: true, AtLeast: true, Offset: S})
				}
			}
		case "shutdown":
			for _, c := range it.Timeline.Containers {
				o, ok := it.observedOf(c)
				if !ok || o.Shutdowns == 0 || c.Termination == nil {
					continue
				}
				s.Rows = insertRow(s.Rows, row{Group: typeLabel(c), Label: labelObservedShutdown, Kind: kindObservedStop,
					From: timeline.At(o.ShutdownMin), To: timeline.At(o.ShutdownMax),
					Marks: []mark{{o.ShutdownMedian, "median"}, {o.ShutdownP95, "p95"}, {o.ShutdownMax, "max"}}})
			}
		}
	}
	return secs
}

// insertRow puts r after the last row of its group, else before the Pod's
// rows, else last.
func insertRow(rows []row, r row) []row {
	at := -1
	for i, x := range rows {
		if x.Group == r.Group {
			at = i + 1
		}
	}
	if at < 0 {
		at = len(rows)
		for i, x := range rows {
			if x.Group == "pod" {
				at = i
				break
			}
		}
	}
	out := append(rows[:at:at], r)
	return append(out, rows[at:]...)
}

// observedCells draws an observed row: the range from the shortest to the
// longest observation with its median, p95 and max, or a censored start-up
// as its lower bound and an open end.
func observedCells(r row, end float64, n int) []rune {
	cells := []rune(strings.Repeat(string(glyphNoCell), n))
	scale := end / float64(n)
	col := func(t float64) int { return max(0, min(int(t/scale), n-1)) }
	if r.AtLeast {
		for c := col(r.To.Lo); c < n; c++ {
			cells[c] = glyphAtLeast
		}
		cells[n-1] = glyphArrow
		cells[col(r.To.Lo)] = glyphCensored
		return cells
	}
	for c := col(r.From.Lo); c <= col(r.To.Lo); c++ {
		cells[c] = glyphObservedRange
	}
	for _, m := range r.Marks {
		cells[col(m.At)] = markGlyph(m.Name)
	}
	return cells
}

func markGlyph(name string) rune {
	switch name {
	case "median":
		return glyphMedian
	case "p95":
		return glyphP95
	}
	return glyphMax
}

// observedLegend explains the observed rows' glyphs, in two lines of the
// text chart's width.
var observedLegend = [2]string{
	"observed: · shortest to longest  ◆ median  ◇ p95  ▲ max",
	"          ✕┄▸ killed by a probe before Ready: a start-up at least this long",
}

// hasObserved reports whether any chart of secs has an observed row.
func hasObserved(secs []section) bool {
	for _, s := range secs {
		for _, r := range s.Rows {
			if r.Kind == kindObserved || r.Kind == kindObservedStop {
				return true
			}
		}
	}
	return false
}

// observedSummary states what the profile saw of each container it covers,
// beside the computed windows it bears on. Nothing when it covers none.
func observedSummary(it Item) []string {
	if it.profile() == nil {
		return nil
	}
	var out []string
	for _, c := range it.Timeline.Containers {
		if o, ok := it.observedOf(c); ok {
			out = append(out, observedStartupLines(c, o)...)
			out = append(out, observedShutdownLines(it.Timeline, c, o)...)
		}
	}
	return observedLines(it, out)
}

// observedLines are lines of what the profile saw, after one naming the
// profile; none when it saw nothing of them.
func observedLines(it Item, lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	return append([]string{"observed in the cluster (podlint observe): " + it.profile().Source}, lines...)
}

// hoverObserved are the lines of what the profile saw that a hover on
// topic shows: the start-ups of c on a probe, the shutdowns of c (of every
// container when c is nil) on a shutdown field.
func hoverObserved(it Item, topic Topic, c *timeline.Container) []string {
	var seen []string
	for _, k := range it.Timeline.Containers {
		o, ok := it.observedOf(k)
		if !ok || (c != nil && k != c) {
			continue
		}
		if topic == TopicShutdown {
			seen = append(seen, observedShutdownLines(it.Timeline, k, o)...)
		} else {
			seen = append(seen, observedStartupLines(k, o)...)
		}
	}
	return observedLines(it, seen)
}

// observedStartupLines are the start-ups and probe kills seen of c.
func observedStartupLines(c *timeline.Container, o timeline.ObservedContainer) []string {
	var out []string
	if o.Starts > 0 {
		whose := ""
		if o.PodStartup {
			whose = " (the Pod's: it runs several containers)"
		}
		line := fmt.Sprintf("observed start-up of %s%s: %s, shortest %s, median %s, p95 %s, longest %s from start to Ready",
			c.Name, whose, plural(o.Starts, "start"), secs(o.StartupMin), secs(o.StartupMedian), secs(o.StartupP95), secs(o.StartupMax))
		switch {
		case c.Startup != nil:
			line += "; the startup probe kills it " + between(c.Startup.KillDecision.Interval) + " after start"
		case c.Liveness != nil:
			line += "; liveness kills it " + between(c.Liveness.KillDecision.Interval) + " after start"
		}
		out = append(out, line)
	}
	if o.KillsBeforeReady > 0 {
		line := fmt.Sprintf("observed: %s was killed by a probe %s before it was ever Ready", c.Name, plural(o.KillsBeforeReady, "time"))
		if o.NotReadyAfter > 0 {
			line += fmt.Sprintf(", not Ready after up to %s: its start-up takes at least that long", secs(o.NotReadyAfter))
		}
		out = append(out, line)
	}
	var kills []string
	if o.LivenessProbeKills > 0 {
		kills = append(kills, fmt.Sprintf("%d by the liveness probe", o.LivenessProbeKills))
	}
	if o.StartupProbeKills > 0 {
		kills = append(kills, fmt.Sprintf("%d by the startup probe", o.StartupProbeKills))
	}
	if len(kills) > 0 {
		out = append(out, fmt.Sprintf("observed probe kills of %s: %s", c.Name, strings.Join(kills, ", ")))
	}
	return out
}

// observedShutdownLines are the shutdowns seen of c, against the grace
// period and the computed SIGKILL.
func observedShutdownLines(tl *timeline.Timeline, c *timeline.Container, o timeline.ObservedContainer) []string {
	if o.Shutdowns == 0 {
		return nil
	}
	line := fmt.Sprintf("observed shutdown of %s: %s, shortest %s, median %s, p95 %s, longest %s from the delete request to its exit, %d ended by SIGKILL",
		c.Name, plural(o.Shutdowns, "deletion"), secs(o.ShutdownMin), secs(o.ShutdownMedian), secs(o.ShutdownP95), secs(o.ShutdownMax), o.SIGKILLs)
	if tr := c.Termination; tr != nil && tl.Pod != nil {
		line += fmt.Sprintf("; grace period %s, SIGKILL at most %s after the delete request", secs(tl.Pod.GracePeriod.V), secs(tr.SIGKILL.Max()))
	}
	return []string{line}
}

// plural is "1 start", "37 starts".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
