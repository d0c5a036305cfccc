package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/observe"
	"github.com/podlint/podlint/internal/settings"
	"github.com/podlint/podlint/timeline"
)

// observedProfile is a hand-made profile of testdata/examples'
// storefront and model server, from the repository's root.
const observedProfile = "internal/cli/testdata/observed/profile.yaml"

// observedDay is six days after the profile's recording: not stale.
var observedDay = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

// profileReader reads profiles with internal/observe, as podlint's own
// (internal/observecli, which imports this package, so these tests cannot).
type profileReader struct{}

func (profileReader) Observe(context.Context, ObserveRequest) ([]byte, string, error) {
	return nil, "", errors.New("no cluster in these tests")
}

func (profileReader) Expectations(data []byte, name string, now time.Time) (*timeline.Observed, error) {
	return observe.Expectations(data, name, now)
}

// withProfiles makes --observed and observed: read real profiles, judged
// stale or not as on day.
func withProfiles(t *testing.T, day time.Time) {
	oldObserver, oldNow := observer, now
	observer, now = profileReader{}, func() time.Time { return day }
	t.Cleanup(func() { observer, now = oldObserver, oldNow })
}

// timelineIn returns a function that runs podlint timeline from the
// repository's root.
func timelineIn(t *testing.T) func(args ...string) (int, string, string) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return func(args ...string) (int, string, string) {
		t.Helper()
		return run(t, root, nil, append([]string{"timeline", "--no-config"}, args...)...)
	}
}

// TestTimelineShowsObserved: each number of the profile is shown where it
// belongs (the storefront's web container, on the axis of its computed
// windows), and a workload the profile does not cover shows none.
func TestTimelineShowsObserved(t *testing.T) {
	withProfiles(t, observedDay)
	runTimeline := timelineIn(t)
	web, api := "testdata/examples/web-deployment.yaml", "testdata/examples/healthy-deployment.yaml"
	code, out, stderr := runTimeline("--color", "never", "--observed", observedProfile, web, api)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	i := strings.Index(out, "\nDeployment api ")
	if i < 0 {
		t.Fatalf("no chart of the api:\n%s", out)
	}
	storefront, other := out[:i], out[i:]
	for _, want := range []string{
		"observed in the cluster (podlint observe): snapshot of 2026-12-01",
		"observed start-up of web: 20 starts, shortest 38s, median 58s, p95 84s,\n  longest 96s from start to Ready; liveness kills it between 34s and 45s after\n  start",
		"web was killed by a probe 4 times before it was ever Ready, not\n  Ready after up to 47s",
		"observed probe kills of web: 6 by the liveness probe",
		"observed shutdown of web: 3 deletions, shortest 30.5s, median 31s, p95 32s,\n  longest 32s from the delete request to its exit, 2 ended by SIGKILL; grace\n  period 30s",
	} {
		if !strings.Contains(storefront, want) {
			t.Errorf("the storefront's chart lacks %q:\n%s", want, storefront)
		}
	}
	if strings.Contains(other, "observed") || strings.ContainsAny(other, "◆◇▲✕") {
		t.Errorf("the api, which the profile does not cover, shows observations:\n%s", other)
	}
	// The marks stand on the chart's axis: the column of 96s is the
	// tick of 90s plus 6s at the axis's scale.
	lines := strings.Split(storefront, "\n")
	var ticks, row string
	for _, l := range lines {
		if strings.Contains(l, " 90s ") && ticks == "" {
			ticks = l
		}
		if strings.HasPrefix(l, "  observed start-up") {
			row = l
		}
	}
	// The chart's labels take 30 columns; the start-up axis runs to 120s
	// over 50.
	col := func(s float64) int { return 30 + int(s/(120.0/50)) }
	r := []rune(row)
	for _, m := range []struct {
		at    float64
		glyph rune
	}{{38, '·'}, {58, '◆'}, {84, '◇'}, {96, '▲'}} {
		if c := col(m.at); c >= len(r) || r[c] != m.glyph {
			t.Errorf("%c not at %vs (column %d) of %q (axis %q)", m.glyph, m.at, c, row, ticks)
		}
	}
	if r := []rune(ticks); len(r) < 69 || string(r[68:71]) != "90s" {
		t.Errorf("the axis is not the one the test assumes: no 90s at column 68 of %q", ticks)
	}

	// JSON: an observed object on the covered container only.
	code, out, _ = runTimeline("-f", "json", "--observed", observedProfile, web, api)
	var doc struct {
		ObservedProfile *struct {
			Source, Mode, From, To string
			Stale                  bool
		} `json:"observedProfile"`
		Objects []struct {
			Name       string
			Containers []struct {
				Name     string
				Observed *struct {
					Startup *struct{ Count, Min, Median, P95, Max float64 }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 || len(doc.Objects) != 2 {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if p := doc.ObservedProfile; p == nil || p.Mode != "snapshot" || p.From != "2026-12-01T09:00:00Z" || p.To != "2026-12-01T10:00:00Z" || p.Stale {
		t.Errorf("observedProfile %+v", p)
	}
	for _, o := range doc.Objects {
		for _, c := range o.Containers {
			switch got := c.Observed; {
			case o.Name == "storefront" && (got == nil || got.Startup == nil || *got.Startup != struct{ Count, Min, Median, P95, Max float64 }{20, 38, 58, 84, 96}):
				t.Errorf("storefront/%s: observed %+v", c.Name, got)
			case o.Name != "storefront" && got != nil:
				t.Errorf("%s/%s, not in the profile: observed %+v", o.Name, c.Name, got)
			}
		}
	}
}

// A profile older than observe.StaleAfter says so in the chart, in JSON
// and on standard error, as check does.
func TestTimelineObservedStale(t *testing.T) {
	withProfiles(t, observedDay.AddDate(0, 2, 0))
	runTimeline := timelineIn(t)
	web := "testdata/examples/web-deployment.yaml"
	code, out, stderr := runTimeline("--color", "never", "--observed", observedProfile, web)
	if code != 0 || !strings.Contains(strings.ReplaceAll(out, "\n  ", " "), "snapshot of 2026-12-01, stale: 68 days old") ||
		!strings.Contains(stderr, "the profile is a snapshot of 2026-12-01, stale: 68 days old") {
		t.Errorf("exit %d, stderr %q\n%s", code, stderr, out)
	}
	code, out, stderr = runTimeline("-f", "json", "--observed", observedProfile, web)
	if code != 0 || !strings.Contains(out, `"stale": true`) {
		t.Errorf("exit %d, stderr %q: JSON does not say the profile is stale:\n%.400s", code, stderr, out)
	}
}

// The configuration's observed: key works for timeline as for check,
// under the same confinement: a profile outside the repository is
// refused with the key that named it.
func TestTimelineObservedFromConfig(t *testing.T) {
	withProfiles(t, observedDay)
	parent := t.TempDir()
	repo := filepath.Join(parent, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	web, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "web-deployment.yaml"))
	prof, _ := os.ReadFile(filepath.Join("testdata", "observed", "profile.yaml"))
	os.WriteFile(filepath.Join(repo, "web.yaml"), web, 0o644)
	os.WriteFile(filepath.Join(repo, "observed.yaml"), prof, 0o644)
	os.WriteFile(filepath.Join(parent, "outside.yaml"), prof, 0o644)

	os.WriteFile(filepath.Join(repo, settings.ConfigFileName), []byte("observed: observed.yaml\n"), 0o644)
	code, out, stderr := run(t, repo, nil, "timeline", "--color", "never", "web.yaml")
	if code != 0 || !strings.Contains(out, "observed start-up of web: 20 starts") {
		t.Errorf("observed: observed.yaml: exit %d, stderr %q\n%s", code, stderr, out)
	}
	os.WriteFile(filepath.Join(repo, settings.ConfigFileName), []byte("observed: ../outside.yaml\n"), 0o644)
	code, out, stderr = run(t, repo, nil, "timeline", "--color", "never", "web.yaml")
	if code != ExitError || !strings.Contains(stderr, `observed: "../outside.yaml": `) || out != "" {
		t.Errorf("observed: ../outside.yaml: exit %d, stderr %q; want exit 2 naming the key\n%s", code, stderr, out)
	}
}

// TestLSPHoverShowsConfigObserved: podlint lsp takes the observed: of a
// folder's configuration as check does (loadSettings), and its hover on
// a liveness probe shows what the profile saw.
func TestLSPHoverShowsConfigObserved(t *testing.T) {
	withProfiles(t, observedDay)
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	web, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "web-deployment.yaml"))
	prof, _ := os.ReadFile(filepath.Join("testdata", "observed", "profile.yaml"))
	os.WriteFile(filepath.Join(repo, "web.yaml"), web, 0o644)
	os.WriteFile(filepath.Join(repo, "observed.yaml"), prof, 0o644)
	os.WriteFile(filepath.Join(repo, settings.ConfigFileName), []byte("observed: observed.yaml\n"), 0o644)
	t.Chdir(repo)

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		var errb bytes.Buffer
		done <- Run([]string{"podlint", "lsp"}, inR, outW, &errb)
		outW.Close()
	}()
	send := func(msg map[string]any) {
		msg["jsonrpc"] = "2.0"
		body, _ := json.Marshal(msg)
		fmt.Fprintf(inW, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	replies := bufio.NewReader(outR)
	// reply reads messages until the reply to request id.
	reply := func(id int) json.RawMessage {
		for {
			n := 0
			for {
				line, err := replies.ReadString('\n')
				if err != nil {
					t.Fatalf("the server stopped: %v", err)
				}
				if line == "\r\n" {
					break
				}
				fmt.Sscanf(line, "Content-Length: %d", &n)
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(replies, body); err != nil {
				t.Fatal(err)
			}
			var m struct {
				ID     *int
				Result json.RawMessage
			}
			if json.Unmarshal(body, &m) == nil && m.ID != nil && *m.ID == id {
				return m.Result
			}
		}
	}
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(repo, "web.yaml"))}).String()
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"processId": nil,
		"rootUri": (&url.URL{Scheme: "file", Path: filepath.ToSlash(repo)}).String(), "capabilities": map[string]any{}}})
	reply(1)
	send(map[string]any{"method": "initialized", "params": map[string]any{}})
	send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": 1, "text": string(web)}}})
	line := strings.Count(string(web[:bytes.Index(web, []byte("livenessProbe:"))]), "\n")
	send(map[string]any{"id": 2, "method": "textDocument/hover", "params": map[string]any{
		"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": 12}}})
	var h struct{ Contents struct{ Value string } }
	if err := json.Unmarshal(reply(2), &h); err != nil {
		t.Fatal(err)
	}
	send(map[string]any{"id": 3, "method": "shutdown"})
	reply(3)
	send(map[string]any{"method": "exit"})
	inW.Close()
	if code := <-done; code != 0 {
		t.Errorf("podlint lsp exit %d", code)
	}
	got := strings.ReplaceAll(h.Contents.Value, "\n  ", " ")
	for _, want := range []string{"liveness kill if unhealthy", "  observed start-up ", "observed in the cluster (podlint observe): snapshot of 2026-12-01",
		"observed start-up of web: 20 starts, shortest 38s, median 58s, p95 84s, longest 96s"} {
		if !strings.Contains(got, want) && !strings.Contains(h.Contents.Value, want) {
			t.Errorf("the hover lacks %q:\n%s", want, h.Contents.Value)
		}
	}
}

// TestTimelineObservedShowsNoProfileText: a profile is untrusted input; of
// it the timeline shows only numbers, dates and its mode, so terminal
// escapes and bidi controls in its names, context or windows reach no
// output form.
func TestTimelineObservedShowsNoProfileText(t *testing.T) {
	withProfiles(t, observedDay)
	dir := t.TempDir()
	web, _ := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "web-deployment.yaml"))
	os.WriteFile(filepath.Join(dir, "web.yaml"), web, 0o644)
	os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(`version: 1
context: "prod\e]8;;https://evil.example\a"
mode: "watch\e[2J"
windows:
  - {mode: "snapshot\u202e", from: 2026-12-01T09:00:00Z, to: 2026-12-01T10:00:00Z}
workloads:
  - workload: "shop/Deployment/storefront"
    inferred: "\e[31mred\u2066"
    pods: 1
    containers:
      - name: "web"
        startup: {samples: [["id\e[1m", "2026-12-01T09:30:00Z", "40s"]]}
      - name: "web\u202e"
        startup: {samples: [[x, "2026-12-01T09:30:00Z", "41s"]]}
`), 0o644)
	for format, shown := range map[string]string{"text": "observed start-up", "json": `"observed": {`, "mermaid": "observed start-up", "svg": "observed start-up"} {
		code, out, stderr := run(t, dir, nil, "timeline", "--no-config", "--color", "never", "-f", format, "--observed", "p.yaml", "web.yaml")
		if code != 0 || !strings.Contains(out, shown) {
			t.Fatalf("%s: exit %d, stderr %q\n%s", format, code, stderr, out)
		}
		if strings.ContainsAny(out+stderr, "\x1b\a\u202e\u2066") {
			t.Errorf("%s: profile text reached the output: %q", format, out+stderr)
		}
	}
}
