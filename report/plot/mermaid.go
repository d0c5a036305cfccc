package plot

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
)

// Mermaid writes one ```mermaid gantt block per object and chart (start-up,
// shutdown, controller) for Markdown and GitHub job summaries. Times use
// `dateFormat X` (Unix seconds from 0) and are rounded outward to whole
// seconds; the axis shows seconds (%S), or minutes:seconds past 60 s.
// Certain parts are plain tasks, uncertain parts `active`, kill windows
// `crit`, exact instants milestones.
func Mermaid(w io.Writer, items []Item) error {
	bw := bufio.NewWriter(w)
	for _, it := range items {
		for _, s := range itemSections(it) {
			end, _ := axis(s, 8)
			format := "%S"
			if end > 60 {
				format = "%M:%S"
			}
			fmt.Fprintf(bw, "```mermaid\ngantt\n    title %s — %s (seconds after %s)\n    dateFormat X\n    axisFormat %s\n", mmText(it.title()), s.Title, s.Origin, format)
			group, id := "", 0
			// Uncertain ranges are rounded outward, certain parts inward,
			// so whole-second rounding never overstates certainty.
			task := func(name, tags string, lo, hi float64) {
				id++
				a, z := math.Floor(lo), math.Ceil(hi)
				if tags == "" && hi > lo {
					a, z = math.Ceil(lo), math.Floor(hi)
				}
				if tags != "" {
					tags += ", "
				}
				if z <= a {
					fmt.Fprintf(bw, "    %s :milestone, %st%d, %d, %d\n", mmText(name), tags, id, int64(a), int64(a))
					return
				}
				fmt.Fprintf(bw, "    %s :%st%d, %d, %d\n", mmText(name), tags, id, int64(a), int64(z))
			}
			for _, r := range s.Rows {
				if r.Group != group {
					group = r.Group
					fmt.Fprintf(bw, "    section %s\n", mmText(group))
				}
				if r.Never {
					task(r.Label+" never", "crit", 0, 0)
					continue
				}
				// What the cluster saw: done tasks, so that they read
				// apart from the computed ones.
				if r.AtLeast {
					task(r.Label+", not Ready after "+secs(r.To.Lo-r.Offset)+", a lower bound of its start-up", "done", r.To.Lo, end)
					continue
				}
				if r.Marks != nil {
					task(r.Label+" "+secs(r.From.Lo-r.Offset)+" to "+secs(r.To.Lo-r.Offset), "done", r.From.Lo, r.To.Lo)
					for _, m := range r.Marks {
						task(r.Label+" "+m.Name+" "+secs(m.At-r.Offset), "done", m.At, m.At)
					}
					continue
				}
				to := r.To
				hi, suffix := to.Hi, ""
				if to.HiUnbounded {
					hi, suffix = end, " (no upper bound)"
				}
				crit := r.Kind == kindKill
				switch {
				case r.Event && to.Exact():
					task(r.Label+" "+to.String(), "", to.Lo, to.Lo)
				case r.Event:
					tag := "active"
					if crit {
						tag = "crit"
					}
					task(r.Label+" "+to.String()+suffix, tag, to.Lo, hi)
				default:
					if r.From.Hi < to.Lo {
						task(r.Label, "", r.From.Hi, to.Lo)
					}
					if !to.Exact() || r.From.Hi >= to.Lo {
						task(r.Label+" ends "+to.String()+suffix, "active", math.Max(to.Lo, r.From.Lo), hi)
					}
				}
			}
			bw.WriteString("```\n\n")
		}
	}
	return bw.Flush()
}

// mmText removes the characters Mermaid's gantt parser treats as syntax.
func mmText(s string) string {
	r := strings.NewReplacer(":", " ", ";", ",", "#", "", "\n", " ", "\u00a0", " ", "∞", "inf", "`", "'")
	return strings.TrimSpace(r.Replace(s))
}
