package timeline

import (
	"math"
	"strconv"
	"strings"
)

// FormatDuration prints seconds in podlint's one duration style, Go's
// (time.ParseDuration reads every value it prints): "500ms", "1.5s",
// "90s", "2m", "15m10s", "1h2m30s". Values under 2 minutes stay in
// seconds, as a manifest's *Seconds field reads; from 2 minutes on the
// value is split into hours, minutes and seconds, without zero parts
// (Go's time.Duration prints "2m0s"; "2m" means the same). Values under a
// second print in milliseconds. The value is printed as given, to the
// millisecond: callers round it to the precision they mean first. Every
// duration a reader sees — rule messages, the timeline chart and its
// sentences, the SVG, JSON's human-readable fields — goes through it.
// +Inf prints as "forever"; a negative value gets a leading "-".
func FormatDuration(s float64) string {
	switch {
	case math.IsInf(s, 1):
		return "forever"
	case math.IsNaN(s):
		return "unknown"
	case s < 0:
		return "-" + FormatDuration(-s)
	}
	ms := math.Round(s * 1000)
	if ms == 0 {
		return "0s"
	}
	if ms < 1000 {
		return strconv.FormatFloat(ms, 'f', -1, 64) + "ms"
	}
	if ms < 120000 {
		return strconv.FormatFloat(ms/1000, 'f', -1, 64) + "s"
	}
	h := math.Floor(ms / 3600000)
	m := math.Floor((ms - h*3600000) / 60000)
	sec := (ms - h*3600000 - m*60000) / 1000
	var b strings.Builder
	if h > 0 {
		b.WriteString(strconv.FormatFloat(h, 'f', -1, 64) + "h")
	}
	if m > 0 {
		b.WriteString(strconv.FormatFloat(m, 'f', -1, 64) + "m")
	}
	if sec > 0 {
		b.WriteString(strconv.FormatFloat(sec, 'f', -1, 64) + "s")
	}
	return b.String()
}

// FormatRange prints a range of durations in the same style: "34s–45s",
// "12s" when both ends agree, "at least 5s" without an upper end.
func FormatRange(lo, hi float64, unbounded bool) string {
	switch {
	case unbounded:
		return "at least " + FormatDuration(lo)
	case lo == hi:
		return FormatDuration(lo)
	}
	return FormatDuration(lo) + "–" + FormatDuration(hi)
}

// FormatWait is a back-off or a run, to a tenth of a second: "0s",
// "10s–15s".
func FormatWait(iv Interval) string {
	lo, hi := math.Round(iv.Lo*10)/10, math.Round(iv.Hi*10)/10
	return FormatRange(lo, hi, iv.HiUnbounded)
}

// RestartWaits lists the waits before each restart of a schedule: "0s,
// 10s–15s, …", as the timeline's key numbers and the rules word them.
func RestartWaits(rs []Restart) string {
	waits := make([]string, len(rs))
	for i, r := range rs {
		waits[i] = FormatWait(r.Delay)
	}
	return strings.Join(waits, ", ")
}
