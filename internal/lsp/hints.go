package lsp

import (
	"bytes"

	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/timeline"
	"github.com/podlint/podlint/workload"
)

// Inline timeline: the window each lifecycle field leads to, written at
// the end of the field's line (an inlay hint), in the durations of
// `podlint timeline` (timeline.FormatDuration). The hints are computed
// from the text the client has, so they follow it as the user types.

// Hint is one inline note: Label shown at byte offset Off of the text.
type Hint struct {
	Off   int
	Label string
}

// InlayHints returns the timeline notes of the open document path with
// text: on each probe, preStop and grace period line.
func (p *Podlint) InlayHints(path string, text []byte) []Hint {
	p.mu.Lock()
	cfg, err := p.config(path)
	p.mu.Unlock()
	if err != nil {
		return nil
	}
	t := newText(text)
	res := manifest.Parse(path, text, cfg.Analyzer.Limits)
	var out []Hint
	for _, o := range res.Objects {
		if o.Workload == nil {
			continue
		}
		tl := timeline.Compute(o.Workload, cfg.Analyzer.Version, cfg.Analyzer.Params)
		at := func(path workload.Path, label string) {
			pos, exact := o.Doc.Locate(path)
			if !exact || pos.Line < 1 || pos.Line > t.lines() {
				return
			}
			l := t.line(pos.Line - 1)
			end := len(bytes.TrimRight(l, " \t"))
			out = append(out, Hint{Off: t.starts[pos.Line-1] + end, Label: label})
		}
		for _, c := range tl.Containers {
			if s := c.Startup; s != nil {
				at(s.Path, "kills at "+span(s.KillDecision)+" if it never starts")
			}
			if l := c.Liveness; l != nil {
				when := "kills at " + span(l.KillDecision) + " if never healthy"
				if l.Gated {
					when = "kills " + span(l.KillDecision) + " after start-up if unhealthy"
				}
				at(l.Path, when)
			}
			if r := c.Readiness; r != nil {
				at(r.Path, "first probe at "+span(r.FirstProbe))
			}
			if term := c.Termination; term != nil && term.PreStop != nil {
				at(c.Path.Join("lifecycle.preStop"), "SIGTERM at "+span(term.StopSignal)+", SIGKILL at "+span(term.SIGKILL)+" after delete")
			}
		}
		// The grace period: the last SIGKILL of the Pod's containers.
		var last *timeline.Span
		for _, c := range tl.Containers {
			if term := c.Termination; term != nil && (last == nil || term.SIGKILL.Hi > last.Hi || term.SIGKILL.HiUnbounded) {
				last = &term.SIGKILL
			}
		}
		if last != nil {
			at(o.Workload.SpecPath.Field("terminationGracePeriodSeconds"), "SIGKILL at "+span(*last)+" after delete")
		}
	}
	return out
}

// span prints a window of the timeline.
func span(s timeline.Span) string {
	return timeline.FormatRange(s.Lo, s.Hi, s.HiUnbounded)
}
