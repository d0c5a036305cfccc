package plot

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/podlint/podlint/timeline"
)

// Topic is the part of a timeline one manifest field drives, for an
// editor's hover (`podlint lsp`).
type Topic int

const (
	TopicNone      Topic = iota
	TopicLiveness        // a container's livenessProbe
	TopicReadiness       // a container's readinessProbe
	TopicStartup         // a container's startupProbe
	TopicShutdown        // preStop, terminationGracePeriodSeconds, stop signal
	TopicRestart         // restartPolicy: the crash loop
	TopicJob             // backoffLimit, activeDeadlineSeconds, podFailurePolicy
	TopicRollout         // strategy, progressDeadlineSeconds, minReadySeconds, replicas
)

// Hover writes the rows of the text chart that topic concerns (of
// container, "" for all) and the key numbers in sentences, width columns
// wide (at least 40), as plain text for a Markdown code block, and
// reports whether there was anything to show.
func Hover(w io.Writer, it Item, topic Topic, container string, width int) (bool, error) {
	tl := it.Timeline
	if tl == nil || tl.Pod == nil {
		return false, nil
	}
	width = max(width, 40)
	c := tl.Container(container)
	var rows []row
	var title string
	var lines []string
	for _, s := range itemSections(it) {
		var keep []row
		for _, r := range s.Rows {
			if hoverRow(topic, c, r) {
				keep = append(keep, r)
			}
		}
		if len(keep) > 0 && rows == nil {
			rows, title = keep, s.Title+", seconds after "+s.Origin
		}
	}
	switch topic {
	case TopicLiveness, TopicReadiness, TopicStartup:
		if c == nil {
			return false, nil
		}
		lines = append(probeLines(topic, c), hoverObserved(it, topic, c)...)
	case TopicShutdown:
		lines = append(lines, fmt.Sprintf("grace period %s", secs(tl.Pod.GracePeriod.V)))
		for _, k := range tl.Containers {
			tr := k.Termination
			if tr == nil || (c != nil && k != c) {
				continue
			}
			if tr.PreStop != nil && tr.PreStop.Skipped == "" {
				lines = append(lines, fmt.Sprintf("%s: preStop (%s) runs %s", k.Name, tr.PreStop.Kind, between(tr.PreStop.Duration.Interval)))
			}
			lines = append(lines, fmt.Sprintf("%s: SIGTERM %s, SIGKILL %s after the delete request", k.Name, between(tr.StopSignal.Interval), between(tr.SIGKILL.Interval)))
		}
		lines = append(lines, "Pod gone "+between(tl.Pod.Terminated.Interval))
		lines = append(lines, hoverObserved(it, topic, c)...)
	case TopicRestart:
		lines = append(lines, fmt.Sprintf("restartPolicy %s", tl.Pod.RestartPolicy))
		if l := crashLoop(tl); l != "" {
			lines = append(lines, l)
		} else {
			lines = append(lines, "a container that fails is not restarted")
		}
		for _, k := range tl.Containers {
			if k.Liveness != nil && !k.Restarts {
				lines = append(lines, fmt.Sprintf("%s is not restarted after a liveness kill", k.Name))
			}
		}
	case TopicJob:
		j := tl.Job
		if j == nil {
			return false, nil
		}
		lines = append(lines, fmt.Sprintf("backoffLimit %s: the retries are used up %s after the Job starts", number(j.BackoffLimit.V), between(j.Retries.Interval)))
		if j.ActiveDeadline != nil {
			lines = append(lines, "activeDeadlineSeconds "+secs(j.ActiveDeadline.V))
		}
		if j.NotCounted != "" {
			lines = append(lines, "failures not counted: "+j.NotCounted)
		}
		lines = append(lines, "the Job gives up "+between(j.GivesUp.Interval)+plus(j.GivesUp.Plus))
	case TopicRollout:
		switch {
		case tl.Deployment != nil:
			d := tl.Deployment
			lines = append(lines, fmt.Sprintf("%s, maxSurge %s, maxUnavailable %s", d.Strategy, number(d.MaxSurge.V), number(d.MaxUnavailable.V)),
				"a new Pod is Ready "+between(d.PodReady.Interval)+plus(d.PodReady.Plus),
				"progressDeadlineSeconds "+secs(d.ProgressDeadline.V),
				"a rollout of "+replicas(d.Replicas.V)+" takes "+between(d.Rollout.Interval))
		case tl.StatefulSet != nil:
			st := tl.StatefulSet
			lines = append(lines, "creating "+replicas(st.Replicas.V)+" takes "+between(st.Creation.Interval))
			if st.RollingUpdate != nil {
				lines = append(lines, "a rolling update takes "+between(st.RollingUpdate.Interval))
			}
		default:
			return false, nil
		}
	default:
		return false, nil
	}
	head := it.title()
	fmt.Fprintf(w, "%s — Kubernetes %s\n", truncate(head, width), tl.Version)
	if len(rows) > 0 {
		fmt.Fprintf(w, "\n%s\n", truncate(title, width))
		writeRows(w, rows, width)
	}
	fmt.Fprintln(w)
	for _, l := range lines {
		writeWrapped(w, "• ", l, width)
	}
	return true, nil
}

// hoverRow reports whether chart row r belongs to the topic (of container
// c when c is set).
func hoverRow(topic Topic, c *timeline.Container, r row) bool {
	own := c == nil || r.Group == typeLabel(c)
	switch topic {
	case TopicLiveness:
		return own && (r.Kind == kindKill || r.Kind == kindBudget || r.Kind == kindReady || r.Kind == kindObserved) && r.Group != "new pod" && r.Group != "job"
	case TopicReadiness:
		return own && (r.Kind == kindReady || r.Kind == kindObserved) && r.Group != "new pod" || r.Group == "pod" && r.Label == "Ready"
	case TopicStartup:
		return own && (r.Kind == kindBudget || r.Kind == kindKill || r.Kind == kindReady || r.Kind == kindObserved) && r.Group != "new pod" && r.Group != "job"
	case TopicShutdown:
		return (own && (r.Kind == kindPreStop || r.Kind == kindStop || r.Kind == kindObservedStop)) || r.Group == "pod" && r.Label == "gone"
	case TopicJob:
		return r.Group == "job"
	case TopicRollout:
		return r.Group == "new pod" || r.Group == "rollout"
	}
	return false
}

// probeLines are the key numbers of one probe of c.
func probeLines(topic Topic, c *timeline.Container) []string {
	var out []string
	switch topic {
	case TopicLiveness:
		lp := c.Liveness
		if lp == nil {
			return nil
		}
		out = append(out, "first probe "+between(lp.FirstProbe.Interval)+" after start")
		when := "after start"
		if lp.Gated {
			when += " (unhealthy right after startup succeeds)"
		}
		out = append(out, fmt.Sprintf("kills %s at the earliest %s, at the latest %s %s", c.Name, secs(lp.KillDecision.Lo), latest(lp.KillDecision.Interval), when),
			"a hang is detected "+between(lp.HangDetection.Interval)+" after it begins")
		if sp := c.Startup; sp != nil {
			out = append(out, fmt.Sprintf("start-up budget (startupProbe): %s guaranteed, at most %s", secs(sp.GuaranteedBudget.Lo), secs(sp.MaxBudget.Lo)))
		} else {
			out = append(out, fmt.Sprintf("start-up budget: the app must answer by %s after start, or liveness kills it", secs(lp.KillDecision.Lo)))
		}
		if lp.NextStart != nil {
			out = append(out, "after a kill the replacement starts "+between(lp.NextStart.Interval)+" after the first start")
		}
	case TopicReadiness:
		rp := c.Readiness
		if rp == nil {
			return nil
		}
		out = append(out, "first probe "+between(rp.FirstProbe.Interval)+" after start (typically at "+secs(rp.FirstProbeTypical)+")")
		if c.Ready != nil {
			out = append(out, c.Name+" is Ready "+between(c.Ready.Interval)+" after start")
		}
		out = append(out, "a failing app is taken out of Service endpoints "+between(rp.NotReadyDetection.Interval)+" after it fails")
	case TopicStartup:
		sp := c.Startup
		if sp == nil {
			return nil
		}
		out = append(out, "first probe "+between(sp.FirstProbe.Interval)+" after start",
			fmt.Sprintf("start-up budget: %s guaranteed, at most %s", secs(sp.GuaranteedBudget.Lo), secs(sp.MaxBudget.Lo)),
			"if it never starts, it is killed "+between(sp.KillDecision.Interval)+" after start")
	}
	return out
}

// latest is the upper edge of iv in words.
func latest(iv timeline.Interval) string {
	if iv.HiUnbounded {
		return "never (no upper bound)"
	}
	return secs(iv.Hi)
}

// writeRows draws rows as Text does, in width columns.
func writeRows(w io.Writer, rows []row, width int) {
	label := 0
	for _, r := range rows {
		label = max(label, utf8.RuneCountInString(r.Label)+2)
	}
	label = min(label, labelWidth, width/2)
	bars := width - label - 2
	s := section{Rows: rows}
	end, step := axis(s, max(bars/9, 2))
	ticks, line := axisText(end, step, bars)
	fmt.Fprintf(w, "%s  %s\n%s  %s\n", pad("", label), ticks, pad("", label), line)
	group := ""
	for _, r := range rows {
		if r.Group != group {
			group = r.Group
			fmt.Fprintln(w, truncate(group, width))
		}
		bar := "never" // as in Text: the model knows it never happens
		if !r.Never {
			bar = strings.TrimRight(string(rowCells(r, end, bars)), " ")
		}
		fmt.Fprintf(w, "%s  %s\n", pad("  "+truncate(r.Label, label-2), label), bar)
	}
}
