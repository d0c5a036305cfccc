package plot

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/podlint/podlint/timeline"
)

// TestObservedCells: each value lands in the column of its second (one
// second a column here), the larger winning a shared column, and a
// censored start-up runs from its lower bound to an open end.
func TestObservedCells(t *testing.T) {
	r := row{Kind: kindObserved, From: timeline.At(38), To: timeline.At(96),
		Marks: []mark{{58, "median"}, {96, "p95"}, {96, "max"}}}
	got := observedCells(r, 120, 120)
	want := strings.Repeat(" ", 38) + strings.Repeat("·", 20) + "◆" + strings.Repeat("·", 37) + "▲" + strings.Repeat(" ", 23)
	if string(got) != want {
		t.Errorf("range:\n got %q\nwant %q", string(got), want)
	}
	c := row{Kind: kindObserved, To: timeline.Interval{Lo: 47, Hi: 47, HiUnbounded: true}, Event: true, AtLeast: true}
	got = observedCells(c, 120, 120)
	want = strings.Repeat(" ", 47) + "✕" + strings.Repeat("┄", 71) + "▸"
	if string(got) != want {
		t.Errorf("censored:\n got %q\nwant %q", string(got), want)
	}
}

// TestObservedInEveryForm: an item the profile covers shows its
// observations in the text chart, JSON, SVG, Mermaid and the hover; the
// same item without an entry (the profile covers other workloads) shows
// none, in any of them.
func TestObservedInEveryForm(t *testing.T) {
	it := fixtures()[0] // the Deployment shop/web, container web
	tl := *it.Timeline
	tl.Params.Observed = &timeline.Observed{Source: "snapshot of 2026-12-01", Mode: "snapshot"}
	it.Timeline = &tl
	bare := it
	it.Observed = map[string]timeline.ObservedContainer{"web": {Starts: 5, StartupMin: 12, StartupMedian: 20, StartupP95: 31, StartupMax: 33,
		KillsBeforeReady: 2, NotReadyAfter: 125, StartupProbeKills: 2, Shutdowns: 1, ShutdownMin: 17, ShutdownMedian: 17, ShutdownP95: 17, ShutdownMax: 17}}
	forms := map[string]func(Item) string{
		"text": func(i Item) string { var b bytes.Buffer; _ = Text(&b, []Item{i}, false); return b.String() },
		"json": func(i Item) string { var b bytes.Buffer; _ = JSON(&b, []Item{i}); return b.String() },
		"svg":  func(i Item) string { var b bytes.Buffer; _ = SVG(&b, i); return b.String() },
		"mermaid": func(i Item) string {
			var b bytes.Buffer
			_ = Mermaid(&b, []Item{i})
			return b.String()
		},
		"hover": func(i Item) string {
			var b bytes.Buffer
			_, _ = Hover(&b, i, TopicStartup, "web", 80)
			return b.String()
		},
	}
	wants := map[string][]string{
		"text":    {"  observed start-up ", "  probe-killed before Ready ", "  observed shutdown ", "observed start-up of web: 5 starts", "2 by the startup probe"},
		"json":    {`"observed": {`, `"median": 20`, `"notReadyAfter": 125`, `"startup": 2`},
		"svg":     {"observed start-up</text>", "web · observed start-up: shortest 12s, longest 33s, median 20s", "not Ready 2m5s after start"},
		"mermaid": {"observed start-up 12s to 33s :done", "observed start-up median 20s :milestone, done", "not Ready after 2m5s"},
		"hover":   {"  observed start-up ", "the startup probe kills it"},
	}
	for name, form := range forms {
		got := form(it)
		for _, w := range wants[name] {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, got)
			}
		}
		if out := form(bare); strings.Contains(out, "observed start-up") || strings.Contains(out, `"observed": {`) {
			t.Errorf("%s of an item the profile does not cover shows observations:\n%s", name, out)
		}
	}
	var doc struct{ ObservedProfile *jsonProfile }
	if err := json.Unmarshal([]byte(forms["json"](bare)), &doc); err != nil || doc.ObservedProfile == nil || doc.ObservedProfile.Source != "snapshot of 2026-12-01" {
		t.Errorf("the run's profile is named even where it covers nothing: %+v, %v", doc.ObservedProfile, err)
	}
}
