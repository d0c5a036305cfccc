package plot

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// SVG geometry: at least 800 px wide, labels on the left, bars on the
// right. The label column grows with the longest label and the canvas with
// the title, up to svgMaxWidth; longer titles, group names and headings are
// elided in the middle (a path keeps its start and its file name).
const (
	svgMinWidth = 800
	svgMaxWidth = 1400
	svgPad      = 16
	svgLabelX   = 28
	svgMinX0    = 250 // left edge of the bars at the minimum width
	svgBarsW    = svgMinWidth - 24 - svgMinX0
	svgRowH     = 20
	svgLineH    = 17
)

// Average glyph widths in em of the system sans-serif fonts the chart
// names, rounded up so that estimates err on the wide side: the Chromium
// test checks that no text overflows the view box.
const (
	emRegular = 0.6
	emBold    = 0.7
)

// svgGeom is one chart's horizontal layout.
type svgGeom struct {
	width, chartX0, chartX1 int
}

// svgTextWidth estimates the rendered width of s in pixels.
func svgTextWidth(s string, px, em float64) int {
	return int(math.Ceil(float64(utf8.RuneCountInString(s)) * px * em))
}

// fit elides the middle of s so that it fits in px pixels.
func fit(s string, px, em float64, width int) string {
	max := int(float64(width) / (px * em))
	r := []rune(s)
	if len(r) <= max || max < 5 {
		return s
	}
	head := (max - 1) / 2
	tail := max - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

func layout(item Item, secs []section) svgGeom {
	x0 := svgMinX0
	for _, s := range secs {
		for _, r := range s.Rows {
			x0 = max(x0, svgLabelX+svgTextWidth(r.Label, 12.5, emRegular)+12)
		}
	}
	g := svgGeom{width: x0 + svgBarsW + 24}
	g.width = max(g.width, min(svgTextWidth(item.title(), 17, emBold)+2*svgPad, svgMaxWidth))
	g.chartX0, g.chartX1 = x0, g.width-24
	return g
}

var svgColors = map[rowKind]string{
	kindRun: "#0e7490", kindBudget: "#b45309", kindKill: "#b91c1c", kindReady: "#15803d",
	kindPreStop: "#7e22ce", kindStop: "#c2410c", kindPod: "#1d4ed8",
	kindObserved: "#be185d", kindObservedStop: "#be185d",
}

// SVG writes a self-contained Gantt chart of one workload: white
// background, dark text, system fonts only, no scripts. Solid bars are
// certain, light hatched bars the uncertain [lo, hi) part.
func SVG(w io.Writer, item Item) error {
	var body strings.Builder
	secs := itemSections(item)
	g := layout(item, secs)
	textW := g.width - 2*svgPad
	y := svgPad + 18
	fmt.Fprintf(&body, `<text x="%d" y="%d" class="title">%s</text>`+"\n", svgPad, y, esc(fit(item.title(), 17, emBold, textW)))
	if item.Timeline != nil {
		y += 18
		fmt.Fprintf(&body, `<text x="%d" y="%d" class="sub">Kubernetes %s · █ certain · ▒ uncertain [lo, hi) · ◆ exact instant · ▶ no upper bound</text>`+"\n", svgPad, y, esc(item.Timeline.Version.String()))
		if hasObserved(secs) {
			y += 18
			fmt.Fprintf(&body, `<text x="%d" y="%d" class="sub">observed: ─ shortest to longest · ● median · ◇ p95 · ▲ max · ✕┄▶ killed before Ready: a lower bound</text>`+"\n", svgPad, y)
		}
	}
	if len(secs) == 0 {
		y += 24
		fmt.Fprintf(&body, `<text x="%d" y="%d" class="label">no pod spec to chart</text>`+"\n", svgPad, y)
	}
	for _, s := range secs {
		y = svgSection(&body, g, s, y+30)
	}
	lines := append(summary(item.Timeline), observedSummary(item)...)
	if len(lines) > 0 {
		y += 30
		fmt.Fprintf(&body, `<text x="%d" y="%d" class="head">Key numbers</text>`+"\n", svgPad, y)
		y += 6
		for _, l := range lines {
			for i, part := range wrap(l, int(float64(textW-12)/(12.5*emRegular))) {
				y += svgLineH
				x := svgPad
				prefix := "• "
				if i > 0 {
					x, prefix = svgPad+12, ""
				}
				fmt.Fprintf(&body, `<text x="%d" y="%d" class="sum">%s%s</text>`+"\n", x, y, prefix, esc(part))
			}
		}
	}
	height := y + svgPad + 4

	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">
<title>%s</title>
<style>
.title { font-size: 17px; font-weight: 700; fill: #111827; }
.sub { font-size: 12.5px; fill: #374151; }
.head { font-size: 14px; font-weight: 700; fill: #111827; }
.group { font-size: 13px; font-weight: 700; fill: #111827; }
.label { font-size: 12.5px; fill: #1f2937; }
.tick { font-size: 11.5px; fill: #374151; }
.sum { font-size: 12.5px; fill: #1f2937; }
.grid { stroke: #e5e7eb; stroke-width: 1; }
.axis { stroke: #6b7280; stroke-width: 1; }
</style>
<defs>
%s</defs>
<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>
`, g.width, height, g.width, height, esc(item.title()), svgPatterns(), g.width, height)
	bw.WriteString(body.String())
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

// svgPatterns defines one diagonal hatch per colour for uncertain ranges,
// so that they stay distinguishable without relying on colour alone.
func svgPatterns() string {
	var b strings.Builder
	for k := kindRun; k <= kindPod; k++ {
		c := svgColors[k]
		fmt.Fprintf(&b, `<pattern id="h%d" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="%s" fill-opacity="0.22"/><line x1="0" y1="0" x2="0" y2="6" stroke="%s" stroke-width="2.2" stroke-opacity="0.75"/></pattern>`+"\n", k, c, c)
	}
	return b.String()
}

func svgSection(b *strings.Builder, g svgGeom, s section, y int) int {
	end, step := axis(s, 8)
	x := func(t float64) float64 {
		t = math.Min(math.Max(t, 0), end)
		return float64(g.chartX0) + t/end*float64(g.chartX1-g.chartX0)
	}
	head := strings.ToUpper(s.Title[:1]) + s.Title[1:] + " — time after " + s.Origin
	fmt.Fprintf(b, `<text x="%d" y="%d" class="head">%s</text>`+"\n", svgPad, y, esc(fit(head, 14, emBold, g.width-2*svgPad)))
	y += 22
	axisY := y
	top := y + 6
	// Rows first so the height of the grid is known.
	var rows strings.Builder
	ry := top
	group := ""
	for _, r := range s.Rows {
		if r.Group != group {
			group = r.Group
			ry += svgRowH
			fmt.Fprintf(&rows, `<text x="%d" y="%d" class="group">%s</text>`+"\n", svgPad, ry-5, esc(fit(group, 13, emBold, g.width-2*svgPad)))
		}
		ry += svgRowH
		fmt.Fprintf(&rows, `<text x="%d" y="%d" class="label">%s</text>`+"\n", svgLabelX, ry-5, esc(r.Label))
		svgBar(&rows, g, r, ry-svgRowH+3, x, end)
	}
	bottom := ry + 4
	for t := 0.0; t <= end+1e-9; t += step {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="grid"/>`+"\n", x(t), axisY+4, x(t), bottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`+"\n", x(t), axisY, esc(tickLabel(t, step)))
	}
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" class="axis"/>`+"\n", g.chartX0, axisY+4, g.chartX1, axisY+4)
	b.WriteString(rows.String())
	return bottom
}

// svgBar draws one row at y (top) with bars of height svgRowH−6.
func svgBar(b *strings.Builder, g svgGeom, r row, y int, x func(float64) float64, end float64) {
	h := svgRowH - 6
	c := svgColors[r.Kind]
	if r.Never {
		fmt.Fprintf(b, `<text x="%d" y="%d" class="label" fill="%s">never</text>`+"\n", g.chartX0+4, y+h-4, c)
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="transparent"><title>%s</title></rect>`+"\n", g.chartX0, y, g.chartX1-g.chartX0, h, esc(r.Group+" · "+r.Label+": never"))
		return
	}
	if r.Kind == kindObserved || r.Kind == kindObservedStop {
		svgObserved(b, g, r, y, x, c)
		return
	}
	rect := func(a, z float64, certain bool) {
		if z <= a {
			return
		}
		w := math.Max(x(z)-x(a), 1.5)
		if certain {
			fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x(a), y, w, h, c)
		} else {
			fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="url(#h%d)" stroke="%s" stroke-width="1"/>`+"\n", x(a), y, w, h, r.Kind, c)
		}
	}
	to := r.To
	hi := to.Hi
	if to.HiUnbounded {
		hi = end
	}
	switch {
	case r.Event:
		rect(to.Lo, hi, false)
	case to.Lo <= r.From.Hi:
		// The start and end ranges overlap: one uncertain range, not two
		// translucent layers that would read as a third shade.
		rect(r.From.Lo, hi, false)
	default:
		rect(r.From.Lo, r.From.Hi, false)
		rect(r.From.Hi, to.Lo, true)
		rect(to.Lo, hi, false)
	}
	if to.Exact() {
		cx, cy := x(to.Lo), float64(y)+float64(h)/2
		fmt.Fprintf(b, `<path d="M%.1f %.1f l6 7 l-6 7 l-6 -7 z" fill="%s" stroke="#ffffff" stroke-width="1"/>`+"\n", cx, cy-7, c)
	}
	if to.HiUnbounded {
		fmt.Fprintf(b, `<path d="M%d %d l9 %d l-9 %d z" fill="%s"/>`+"\n", g.chartX1, y-1, h/2+1, h/2+1, c)
	}
	title := r.Group + " · " + r.Label + ": " + to.String()
	if !r.Event {
		title = r.Group + " · " + r.Label + ": from " + r.From.String() + " to " + to.String()
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="transparent"><title>%s</title></rect>`+"\n", g.chartX0, y, g.chartX1-g.chartX0, h, esc(title))
}

func esc(s string) string { return html.EscapeString(s) }

// wrap splits a sentence into lines of at most n characters, on ASCII
// spaces only (numbers and units are joined by no-break spaces).
func wrap(s string, n int) []string {
	var out []string
	line := ""
	for _, word := range strings.Split(s, " ") {
		if word == "" {
			continue
		}
		if line != "" && len([]rune(line))+1+len([]rune(word)) > n {
			out = append(out, line)
			line = word
			continue
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// svgObserved draws an observed row (observedCells in the text chart): a
// line from the shortest to the longest observation with a shape for the
// median, p95 and max, or a censored start-up's lower bound with a
// dashed line to the axis end.
func svgObserved(b *strings.Builder, g svgGeom, r row, y int, x func(float64) float64, c string) {
	h := svgRowH - 6
	cy := float64(y) + float64(h)/2
	title := r.Group + " · " + r.Label + ": "
	if r.AtLeast {
		x0 := x(r.To.Lo)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-width="2" stroke-dasharray="4 3"/>`+"\n", x0, cy, g.chartX1, cy, c)
		fmt.Fprintf(b, `<path d="M%d %d l9 %d l-9 %d z" fill="%s"/>`+"\n", g.chartX1, y-1, h/2+1, h/2+1, c)
		fmt.Fprintf(b, `<path d="M%.1f %.1f l10 10 m0 -10 l-10 10" stroke="%s" stroke-width="2.5"/>`+"\n", x0-5, cy-5, c)
		title += "not Ready " + secs(r.To.Lo-r.Offset) + " after start, then killed by a probe: its start-up takes at least that long"
	} else {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n", x(r.From.Lo), cy, math.Max(x(r.To.Lo), x(r.From.Lo)+1.5), cy, c)
		title += "shortest " + secs(r.From.Lo-r.Offset) + ", longest " + secs(r.To.Lo-r.Offset)
		for _, m := range r.Marks {
			mx := x(m.At)
			switch m.Name {
			case "median":
				fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="5" fill="%s" stroke="#ffffff" stroke-width="1"/>`+"\n", mx, cy, c)
			case "p95":
				fmt.Fprintf(b, `<path d="M%.1f %.1f l6 7 l-6 7 l-6 -7 z" fill="#ffffff" stroke="%s" stroke-width="2"/>`+"\n", mx, cy-7, c)
			default:
				fmt.Fprintf(b, `<path d="M%.1f %.1f l7 12 l-14 0 z" fill="%s" stroke="#ffffff" stroke-width="1"/>`+"\n", mx, cy-7, c)
			}
			title += ", " + m.Name + " " + secs(m.At-r.Offset)
		}
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="transparent"><title>%s</title></rect>`+"\n", g.chartX0, y, g.chartX1-g.chartX0, h, esc(title))
}
