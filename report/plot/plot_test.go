package plot

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"html"
	"image"
	_ "image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/timeline"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report/plot -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./report/plot -update and review the diff\n--- got ---\n%s", name, got)
	}
}

func render(t *testing.T, f func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTextGolden(t *testing.T) {
	out := render(t, func(w io.Writer) error { return Text(w, fixtures(), false) })
	golden(t, "timeline.txt", out)
	if bytes.Contains(out, []byte("\x1b[")) {
		t.Error("colour codes without color")
	}
	for i, line := range strings.Split(string(out), "\n") {
		if n := len([]rune(line)); n > textWidth {
			t.Errorf("line %d has %d columns: %q", i+1, n, line)
		}
	}
	for _, want := range []string{"liveness kills web between", "Pod Ready at the earliest", "SIGKILL at most 41s (40s, plus up to 1s", "QoS class Guaranteed", "Job (Never, backoffLimit 4)"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("text lacks %q", want)
		}
	}
	colored := render(t, func(w io.Writer) error { return Text(w, fixtures(), true) })
	if !bytes.Contains(colored, []byte("\x1b[")) {
		t.Error("no colour codes with color")
	}
}

func TestJSONGolden(t *testing.T) {
	out := render(t, func(w io.Writer) error { return JSON(w, fixtures()) })
	golden(t, "timeline.json", out)
	var doc struct {
		Objects []struct {
			Kind       string
			Containers []map[string]json.RawMessage
			Pod        map[string]json.RawMessage
			Controller map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Objects) != 3 {
		t.Fatalf("%d objects", len(doc.Objects))
	}
	web := doc.Objects[0].Containers[0]
	for _, key := range []string{"startupProbe", "livenessProbe", "readinessProbe", "termination"} {
		if _, ok := web[key]; !ok {
			t.Errorf("web lacks %s", key)
		}
	}
	var st map[string]json.RawMessage
	json.Unmarshal(web["startupProbe"], &st)
	if string(st["guaranteedBudget"]) != "115" || string(st["killDecision"]) != "[115, 121]" {
		t.Errorf("startupProbe %s", web["startupProbe"])
	}
	// Absent probes are absent keys, not zeros.
	job := doc.Objects[2].Containers[0]
	for _, key := range []string{"startupProbe", "livenessProbe", "readinessProbe"} {
		if _, ok := job[key]; ok {
			t.Errorf("job container has %s", key)
		}
	}
	if string(doc.Objects[2].Controller["jobGivesUp"]) == "" || string(doc.Objects[0].Controller["progressDeadline"]) != "600" {
		t.Errorf("controller parts: %v / %v", doc.Objects[2].Controller, doc.Objects[0].Controller)
	}
	if string(doc.Objects[0].Pod["qosClass"]) != `"Guaranteed"` {
		t.Errorf("qos %s", doc.Objects[0].Pod["qosClass"])
	}
	// Deterministic.
	if again := render(t, func(w io.Writer) error { return JSON(w, fixtures()) }); !bytes.Equal(out, again) {
		t.Error("JSON output not deterministic")
	}
}

func TestMermaidGolden(t *testing.T) {
	out := render(t, func(w io.Writer) error { return Mermaid(w, fixtures()) })
	golden(t, "timeline.mermaid.md", out)
	blocks := strings.Count(string(out), "```mermaid\ngantt\n")
	if blocks < 6 || strings.Count(string(out), "```\n") != blocks {
		t.Errorf("%d gantt blocks, fences unbalanced", blocks)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, " :"); i >= 0 && strings.Contains(line[:i], ":") {
			t.Errorf("task name contains a colon: %q", line)
		}
	}
	if !strings.Contains(string(out), "dateFormat X") || !strings.Contains(string(out), ":crit,") {
		t.Error("missing dateFormat X or crit task")
	}
}

func TestSVGGolden(t *testing.T) {
	for i, it := range fixtures() {
		out := render(t, func(w io.Writer) error { return SVG(w, it) })
		golden(t, []string{"deployment.svg", "statefulset.svg", "job.svg"}[i], out)
		dec := xml.NewDecoder(bytes.NewReader(out))
		elements := 0
		for {
			tok, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: SVG is not well-formed XML: %v", it.Name, err)
			}
			if _, ok := tok.(xml.StartElement); ok {
				elements++
			}
		}
		if elements < 20 {
			t.Errorf("%s: only %d elements", it.Name, elements)
		}
		if bytes.Contains(out, []byte("<script")) || bytes.Contains(out, []byte("@import")) || bytes.Contains(out, []byte("href=\"http")) {
			t.Errorf("%s: SVG not self-contained", it.Name)
		}
	}
}

// TestSVGRendersInChromium renders the Deployment SVG to PNG with headless
// Chromium and checks the image decodes and is not blank. Skipped when
// Chromium is not installed.
func TestSVGRendersInChromium(t *testing.T) {
	bin := chromium(t, "PNG rendering check")
	dir := t.TempDir()
	svgPath := filepath.Join(dir, "chart.svg")
	pngPath := filepath.Join(dir, "chart.png")
	if err := os.WriteFile(svgPath, render(t, func(w io.Writer) error { return SVG(w, fixtures()[0]) }), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+pngPath, "--window-size=900,1100", "file://"+svgPath)
	done := make(chan error, 1)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, out.String())
		}
	case <-time.After(5 * time.Minute): // a hang guard for the external browser, not a speed check
		cmd.Process.Kill()
		t.Fatal("chromium timed out")
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out.String())
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	colours := map[[3]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 12, g >> 12, bl >> 12}]++
		}
	}
	if len(colours) < 8 {
		t.Errorf("screenshot has only %d colours: blank render?", len(colours))
	}
	if keep := os.Getenv("PODLINT_KEEP_PNG"); keep != "" {
		data, _ := os.ReadFile(pngPath)
		os.WriteFile(keep, data, 0o644)
	}
}

// TestSVGTextFitsInChromium lays out a chart for a 200-character path in
// headless Chromium and checks with the browser's own text metrics that no
// text element overflows the view box: the title is elided in the middle
// and the canvas is wide enough for every label. Skipped when Chromium is
// not installed.
func TestSVGTextFitsInChromium(t *testing.T) {
	bin := chromium(t, "text overflow check")
	it := fixtures()[0]
	it.File = "/home/runner/work/" + strings.Repeat("a-rather-long-directory-name/", 5) + "testdata/examples/web-deployment.yaml"
	it.Name = "storefront-with-a-long-deployment-name"
	if len(it.File) != 200 {
		t.Fatalf("path of %d characters", len(it.File))
	}
	svg := render(t, func(w io.Writer) error { return SVG(w, it) })
	if !bytes.Contains(svg, []byte("…")) {
		t.Errorf("the long title is not elided")
	}
	// The page measures every <text> with getBBox (which includes the
	// glyphs as rendered) and writes the ones that leave the view box.
	page := `<!DOCTYPE html><html><body>` + string(svg[bytes.Index(svg, []byte("<svg")):]) + `<pre id="result"></pre>
<script>
const svg = document.querySelector("svg");
const vb = svg.viewBox.baseVal;
const bad = [];
let n = 0;
for (const el of svg.querySelectorAll("text")) {
  const b = el.getBBox();
  n++;
  if (b.x < vb.x - 0.5 || b.x + b.width > vb.x + vb.width + 0.5) bad.push(Math.round(b.x) + "+" + Math.round(b.width) + ": " + el.textContent);
}
document.getElementById("result").textContent = "measured " + n + " width " + vb.width + "\n" + bad.join("\n");
</script></body></html>`
	dir := t.TempDir()
	htmlPath := filepath.Join(dir, "chart.html")
	if err := os.WriteFile(htmlPath, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+htmlPath)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium: %v\n%s", err, errb.String())
		}
	case <-time.After(5 * time.Minute): // a hang guard for the external browser, not a speed check
		cmd.Process.Kill()
		t.Fatal("chromium timed out")
	}
	m := regexp.MustCompile(`(?s)<pre id="result">measured (\d+) width (\d+)\n(.*?)</pre>`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no measurement in the dumped page:\n%s", out.String())
	}
	if n, _ := strconv.Atoi(m[1]); n < 20 {
		t.Errorf("only %s text elements measured", m[1])
	}
	if strings.TrimSpace(m[3]) != "" {
		t.Errorf("text overflows the %s px view box:\n%s", m[2], html.UnescapeString(m[3]))
	}
}

// TestTextShowsCrashLoop: the text form states the crash-loop schedule the
// JSON form lists (every back-off delay and the start of the last listed
// restart) and the next start after a liveness kill, for every fixture that
// has them, and says nothing of restarts for a Pod that is never restarted.
func TestTextShowsCrashLoop(t *testing.T) {
	restarted, never := 0, 0
	for _, it := range fixtures() {
		var b bytes.Buffer
		if err := Text(&b, []Item{it}, false); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(strings.ReplaceAll(b.String(), "\u00a0", " ")), " ")
		tl := it.Timeline
		if tl.Pod == nil {
			continue
		}
		rs := tl.Pod.RestartSchedule
		if len(rs) == 0 {
			never++
			if strings.Contains(text, "crash loop") {
				t.Errorf("%s: restartPolicy %s, but the text states a crash loop:\n%s", it.title(), tl.Pod.RestartPolicy, text)
			}
			continue
		}
		restarted++
		var delays []string
		for _, r := range rs {
			delays = append(delays, strings.ReplaceAll(delayText(r.Delay), "\u00a0", " "))
		}
		last := rs[len(rs)-1]
		want := "restarted after back-offs of " + strings.Join(delays, ", ") +
			"; restart " + strconv.Itoa(last.N) + " starts " + strings.ReplaceAll(between(last.Start.Interval), "\u00a0", " ")
		if !strings.Contains(text, want) {
			t.Errorf("%s: text lacks %q:\n%s", it.title(), want, text)
		}
		for _, c := range tl.Containers {
			if c.Liveness != nil && c.Liveness.NextStart != nil {
				next := "the replacement starts " + strings.ReplaceAll(between(c.Liveness.NextStart.Interval), "\u00a0", " ")
				if !strings.Contains(text, next) {
					t.Errorf("%s: text lacks the next start after a liveness kill of %s, %q", it.title(), c.Name, next)
				}
			}
		}
	}
	if restarted == 0 || never == 0 {
		t.Fatalf("fixtures need a restarted and a never-restarted Pod (have %d, %d)", restarted, never)
	}
	// The first delays of the default schedule, as docs/semantics.md#r-3 gives them.
	if got := delayText(timeline.Between(10, 15)); got != "10s–15s" {
		t.Errorf("delayText = %q", got)
	}
}

// chromium returns the path of headless Chromium, or skips the test (what
// it would have checked) when it is not installed.
func chromium(t *testing.T, what string) string {
	t.Helper()
	for _, c := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	t.Skip("chromium not installed (apt-get install chromium); skipping the " + what)
	return ""
}
