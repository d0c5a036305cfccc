package plot

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/fatih/color"
)

// Terminal layout: 80 columns, a label column and the bars.
const (
	textWidth  = 80
	labelWidth = 28
	barWidth   = textWidth - labelWidth - 2
)

const (
	glyphSolid  = '█'
	glyphFuzzy  = '░'
	glyphMark   = '┃'
	glyphArrow  = '▸'
	glyphNoCell = ' '
)

// Text writes one Gantt chart per item, readable at 80 columns and without
// colour: █ is certain, ░ the uncertain part of a [lo, hi) range, ┃ an exact
// instant and ▸ a range without upper bound. color enables ANSI colours.
func Text(w io.Writer, items []Item, useColor bool) error {
	bw := bufio.NewWriter(w)
	paint := func(k rowKind, s string) string { return s }
	bold := func(s string) string { return s }
	if useColor {
		palette := map[rowKind]*color.Color{
			kindRun: color.New(color.FgCyan), kindBudget: color.New(color.FgYellow), kindKill: color.New(color.FgRed),
			kindReady: color.New(color.FgGreen), kindPreStop: color.New(color.FgMagenta), kindStop: color.New(color.FgRed),
			kindPod: color.New(color.FgBlue, color.Bold), kindObserved: color.New(color.FgHiMagenta), kindObservedStop: color.New(color.FgHiMagenta),
		}
		for _, c := range palette {
			c.EnableColor() // the caller decided; do not second-guess the TTY
		}
		b := color.New(color.Bold)
		b.EnableColor()
		paint = func(k rowKind, s string) string { return palette[k].Sprint(s) }
		bold = func(s string) string { return b.Sprint(s) }
	}
	for i, it := range items {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		tl := it.Timeline
		head := it.title()
		if tl != nil {
			head += " — Kubernetes " + tl.Version.String()
		}
		fmt.Fprintln(bw, bold(head))
		secs := itemSections(it)
		if len(secs) == 0 {
			fmt.Fprintln(bw, "  (no pod spec to chart)")
		}
		for _, s := range secs {
			end, step := axis(s, barWidth/9)
			fmt.Fprintf(bw, "\n%s, seconds after %s\n", s.Title, s.Origin)
			ticks, line := axisText(end, step, barWidth)
			fmt.Fprintf(bw, "%s  %s\n%s  %s\n", pad("", labelWidth), ticks, pad("", labelWidth), line)
			group := ""
			for _, r := range s.Rows {
				if r.Group != group {
					group = r.Group
					fmt.Fprintln(bw, bold(truncate(group, textWidth)))
				}
				if r.Never {
					fmt.Fprintf(bw, "%s  %s\n", pad("  "+truncate(r.Label, labelWidth-2), labelWidth), paint(r.Kind, "never"))
					continue
				}
				cells := rowCells(r, end, barWidth)
				var sb strings.Builder
				for _, c := range cells {
					if c == glyphNoCell {
						sb.WriteRune(c)
					} else {
						sb.WriteString(paint(r.Kind, string(c)))
					}
				}
				fmt.Fprintf(bw, "%s  %s\n", pad("  "+truncate(r.Label, labelWidth-2), labelWidth), strings.TrimRight(sb.String(), " "))
			}
		}
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "█ certain  ░ uncertain [lo, hi)  ┃ exact instant  ▸ no upper bound")
		if hasObserved(secs) {
			fmt.Fprintf(bw, "%s\n%s\n", observedLegend[0], observedLegend[1])
		}
		for _, line := range append(summary(tl), observedSummary(it)...) {
			writeWrapped(bw, "• ", line, textWidth)
		}
		for _, line := range crossObjectSummary(it) {
			writeWrapped(bw, "• ", line, textWidth)
		}
	}
	return bw.Flush()
}

// crossObjectSummary describes the rollout waves and the node drain in words.
func crossObjectSummary(it Item) []string {
	var out []string
	never := it.Timeline != nil && it.Timeline.Pod != nil && it.Timeline.Pod.Ready != nil && it.Timeline.Pod.Ready.Never
	if r := it.rollout(); r != nil {
		for _, c := range r.Cases {
			line := fmt.Sprintf("rollout (%s) at %d replicas (%s): maxSurge %d, maxUnavailable %d (%d to %d Pods), %d wave(s)",
				r.Strategy, c.Replicas, r.Replicas.Source, c.MaxSurge, c.MaxUnavailable, c.MinAvailable, c.MaxPods, len(c.Waves))
			switch {
			case c.Stall != "":
				line += ": " + c.Stall
			case never:
				line += ", never done: no new Pod becomes Ready"
			default:
				line += ", done " + c.Duration.String() + " after it starts"
			}
			out = append(out, line)
		}
		if r.Assumption != "" {
			out = append(out, "rollout assumes: "+r.Assumption)
		}
	}
	if d := it.Drain; d != nil {
		budget := "no PodDisruptionBudget"
		if d.Budget != "" {
			budget = fmt.Sprintf("PodDisruptionBudget %q allows %d of %d Pods down", d.Budget, d.DisruptionsAllowed, d.ExpectedPods)
		}
		line := fmt.Sprintf("node drain with %d Pod(s) of it on the node, %s: ", d.PodsOnNode, budget)
		if d.Blocked != "" {
			line += "never finishes: " + d.Blocked
		} else {
			line += "the node is free " + d.HoldsNode.String() + " after the drain starts, "
			if never {
				line += "the replacements never become Ready"
			} else {
				line += "the replacements Ready " + d.Recovered.String()
			}
		}
		out = append(out, line)
		if d.Assumption != "" {
			out = append(out, "drain assumes: "+d.Assumption)
		}
	}
	return out
}

func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// axisText is the tick labels and the axis line for n columns (barWidth
// in the text report, the editor's width in a hover).
func axisText(end, step float64, n int) (string, string) {
	labels := []rune(strings.Repeat(" ", n))
	line := []rune(strings.Repeat("─", n))
	for t := 0.0; t <= end+1e-9; t += step {
		col := min(int(math.Round(t/end*float64(n))), n-1)
		line[col] = '┼'
		if col == 0 {
			line[col] = '├'
		}
		lab := []rune(tickLabel(t, step))
		start := max(0, min(col, n-len(lab)))
		free := true
		for j := start - 1; j < start+len(lab)+1 && j < n; j++ {
			if j >= 0 && labels[j] != ' ' {
				free = false
			}
		}
		if free && start+len(lab) <= n {
			copy(labels[start:], lab)
		}
	}
	return strings.TrimRight(string(labels), " "), string(line)
}

// rowCells draws one row in n columns: each covers end/n seconds.
func rowCells(r row, end float64, n int) []rune {
	if r.Kind == kindObserved || r.Kind == kindObservedStop {
		return observedCells(r, end, n)
	}
	cells := []rune(strings.Repeat(string(glyphNoCell), n))
	scale := end / float64(n)
	col := func(t float64) int { return max(0, min(int(math.Floor(t/scale)), n-1)) }
	fill := func(a, b float64, g rune) {
		if b <= a {
			return
		}
		last := int(math.Ceil(b/scale)) - 1
		for c := col(a); c <= min(last, n-1); c++ {
			if cells[c] != glyphSolid || g == glyphSolid {
				cells[c] = g
			}
		}
	}
	to := r.To
	hi := to.Hi
	if to.HiUnbounded {
		hi = end
	}
	if !r.Event {
		fill(r.From.Lo, r.From.Hi, glyphFuzzy)
		fill(r.From.Hi, to.Lo, glyphSolid)
	}
	fill(to.Lo, hi, glyphFuzzy)
	if to.Exact() && (r.Event || to.Lo == r.From.Hi) {
		cells[col(to.Lo)] = glyphMark
	}
	if to.HiUnbounded {
		cells[n-1] = glyphArrow
	}
	return cells
}

// writeWrapped wraps a sentence at width columns with a hanging indent.
// It splits on ASCII spaces only: a no-break space keeps words together.
func writeWrapped(w io.Writer, bullet, s string, width int) {
	indent := strings.Repeat(" ", utf8.RuneCountInString(bullet))
	line, n := bullet, utf8.RuneCountInString(bullet)
	for _, word := range strings.Split(s, " ") {
		if word == "" {
			continue
		}
		k := utf8.RuneCountInString(word)
		if n+k+1 > width && n > len(indent) {
			fmt.Fprintln(w, strings.TrimRight(line, " "))
			line, n = indent, len(indent)
		}
		if n > len(indent) && line != bullet {
			line += " "
			n++
		}
		line += word
		n += k
	}
	fmt.Fprintln(w, line)
}
