package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/finding"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fixtureRules is a small catalog, deliberately not in ID order (SARIF
// must sort it) and with a rule that has no findings (SARIF must still
// list it).
func fixtureRules() []finding.RuleInfo {
	help := func(id string) string { return "https://github.com/podlint/podlint/blob/main/docs/rules/" + id + ".md" }
	return []finding.RuleInfo{
		{ID: "PL201", Name: "prestop-exceeds-grace", Title: "preStop hook outlasts the termination grace period",
			Doc:      "The kubelet sends SIGKILL when terminationGracePeriodSeconds runs out,\nwhether or not the preStop hook finished.\n\n## Fix\n\nRaise the grace period.",
			Severity: finding.Warning, HelpURI: help("PL201")},
		{ID: "PL101", Name: "liveness-kills-before-ready", Title: "liveness probe kills the container before it can become ready",
			Doc:      "# PL101\n\nA liveness probe that fails before the readiness probe can first pass\nrestarts the container forever.\n\n```yaml\nlivenessProbe:\n  initialDelaySeconds: 0\n```\n\nAdd a startupProbe.",
			Severity: finding.Error, HelpURI: help("PL101")},
		{ID: "PL005", Name: "helm-template", Title: "file is a Helm template", Doc: "Pipe `helm template` into podlint.",
			Severity: finding.Info, HelpURI: help("PL005")},
		{ID: "PL601", Name: "best-effort-qos", Title: "pods are BestEffort: no container requests cpu or memory",
			Doc: "BestEffort pods are evicted first under node pressure.", Severity: finding.Info, HelpURI: help("PL601")},
		{ID: "PL404", Name: "sidecar-startup-order", Title: "later containers start before a sidecar is ready",
			Doc: "Give the sidecar a startupProbe: the next container waits until it succeeds.", Severity: finding.Warning, HelpURI: help("PL404")},
		{ID: "PL304", Name: "job-deadline-before-retries", Title: "activeDeadlineSeconds ends the Job before its retries can run",
			Doc: "The Job fails with DeadlineExceeded before backoffLimit is used up.", Severity: finding.Warning, HelpURI: help("PL304")},
	}
}

// Source lines of the fixture, with the columns computed from them so the
// byte arithmetic is visible.
const (
	tabLine     = "          command: [\"sh\",\t\"-c\", \"sleep 40\"]"
	unicodeLine = "      image: \"café:1.0\"  # ümlaut"
)

// fixtureResult covers what the writers must get right: several findings
// in several files, related locations, a path with a space, "#" and
// non-ASCII, a tab and multi-byte text before the column, a column past the
// end of its line, stdin, a file outside SrcRoot without a source line, a
// rule missing from the catalog and characters GitHub commands must escape.
func fixtureResult() *finding.Result {
	web := &finding.ObjectRef{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"}
	return &finding.Result{
		Summary: finding.Summary{Files: 4, Objects: 7, Workloads: 5},
		Findings: []finding.Finding{
			{
				RuleID: "PL101", RuleName: "liveness-kills-before-ready", Severity: finding.Error,
				Location:   finding.Location{File: "-", Line: 3, Column: 5},
				Object:     &finding.ObjectRef{APIVersion: "v1", Kind: "Pod", Name: "probe"},
				Message:    `liveness probe kills "probe" 10s after start, before its readiness probe runs at 15s`,
				Detail:     `The probe kills "probe" 10s (initialDelaySeconds 10s + (failureThreshold 1 − 1) × periodSeconds 10s = 10s) after start, before its readiness probe first runs at 15s (readiness initialDelaySeconds). Add a startupProbe that allows the start-up time.`,
				SourceLine: "    livenessProbe:",
			},
			{
				RuleID: "PL009", RuleName: "internal-error", Severity: finding.Error,
				Location: finding.Location{File: "../outside/job.yaml", Line: 9, Column: 3},
				Object:   &finding.ObjectRef{APIVersion: "batch/v1", Kind: "Job", Name: "migrate"},
				Message:  "rule PL305 (container-restart-policy-mismatch) crashed on this object",
				Detail:   "index out of range; other rules still ran; please report this bug with the manifest.",
			},
			{
				RuleID: "PL101", RuleName: "liveness-kills-before-ready", Severity: finding.Error,
				Location: finding.Location{File: "deploy/app.yaml", Line: 12, Column: 9},
				Object:   web, Container: "app",
				Message: `liveness probe kills "app" 31s after start, before its readiness probe can first pass at 45s`,
				Detail:  `The probe kills "app" 31s (initialDelaySeconds 1s + failureThreshold 3 × periodSeconds 10s = 31s) after start if it is not answering yet, before its readiness probe first runs at 45s (readiness initialDelaySeconds). If the app needs that long, it is killed on every start and never becomes Ready (CrashLoopBackOff). Add a startupProbe that allows the start-up time (for example periodSeconds 10s with failureThreshold 6, which guarantees initialDelaySeconds 0s + (failureThreshold 6 − 1) × periodSeconds 10s = 50s).`,
				Path:    "spec.template.spec.containers[0].livenessProbe",
				Related: []finding.Location{
					{File: "deploy/app.yaml", Line: 13, Column: 32, Message: "liveness starts failing after initialDelaySeconds 1s + 3 × periodSeconds 10s"},
					{File: "deploy/app.yaml", Line: 17, Column: 32, Message: "readiness can first pass at initialDelaySeconds 45s"},
				},
				SourceLine: "        livenessProbe:",
			},
			{
				RuleID: "PL201", RuleName: "prestop-exceeds-grace", Severity: finding.Warning,
				Location: finding.Location{File: "deploy/app.yaml", Line: 22, Column: strings.Index(tabLine, `"-c"`) + 1},
				Object:   web, Container: "app",
				Message:    `preStop of "app" leaves the app only 2s to shut down before SIGKILL`,
				Detail:     `It runs "sleep 40", at least 40s and so outlasts the grace period of 30s: the kubelet cuts the hook off at 30s and SIGKILLs the container 2s later (its minimum). Set terminationGracePeriodSeconds to 40s plus the time the app needs after SIGTERM, or shorten the sleep.`,
				Path:       "spec.template.spec.containers[0].lifecycle.preStop.exec.command",
				SourceLine: tabLine,
				// A fix that sets the grace period on line 19 (bytes 402-404 of
				// the file, "30" becoming "70").
				Fixes: []finding.Fix{{Title: "Raise terminationGracePeriodSeconds to 70", Safety: finding.Unsafe,
					Paths: []string{"spec.template.spec.terminationGracePeriodSeconds"},
					Edits: []finding.Edit{{File: "deploy/app.yaml", Start: 402, End: 404, StartLine: 19, StartColumn: 38, EndLine: 19, EndColumn: 40, NewText: "70"}},
					LineEdits: []finding.Edit{{File: "deploy/app.yaml", Start: 365, End: 405, StartLine: 19, StartColumn: 1, EndLine: 20, EndColumn: 1,
						NewText: "      terminationGracePeriodSeconds: 70\n"}}}},
			},
			{
				RuleID: "PL601", RuleName: "best-effort-qos", Severity: finding.Info,
				Location:   finding.Location{File: "deploy/app.yaml", Line: 41, Column: 200},
				Object:     web,
				Message:    "Pods of this Deployment are BestEffort: no container requests cpu or memory (100% BestEffort)",
				SourceLine: "  restartPolicy: Always",
			},
			{
				RuleID: "PL404", RuleName: "sidecar-startup-order", Severity: finding.Warning,
				Location:   finding.Location{File: "deploy/my app ü#1.yaml", Line: 7, Column: strings.Index(unicodeLine, "1.0") + 1},
				Object:     &finding.ObjectRef{APIVersion: "apps/v1", Kind: "StatefulSet", Namespace: "db", Name: "pg"},
				Container:  "proxy",
				Message:    `containers after sidecar "proxy" start without waiting for it to be ready`,
				Detail:     `"pg", declared after sidecar "proxy", starts as soon as "proxy" is running. If it needs "proxy" at start-up, add a startupProbe to it.`,
				SourceLine: unicodeLine,
			},
		},
	}
}

func emptyResult() *finding.Result {
	return &finding.Result{Summary: finding.Summary{Files: 2, Objects: 3, Workloads: 2}}
}

// testOptions uses the package directory as SrcRoot: it is the working
// directory of the test, so relative fixture paths stay as written and the
// golden files do not depend on where the checkout lives.
func testOptions(t *testing.T) Options {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return Options{SrcRoot: wd, ToolVersion: "1.2.3", Rules: fixtureRules()}
}

func render(t *testing.T, format string, res *finding.Result, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, format, res, opts); err != nil {
		t.Fatalf("Write(%s): %v", format, err)
	}
	return buf.Bytes()
}

// goldenCase is one golden file: a fixture rendered in a format.
type goldenCase struct {
	name   string // file name under testdata/golden
	format string
	color  bool
	res    func() *finding.Result
	opts   func(*Options)
}

func goldenCases() []goldenCase {
	var cs []goldenCase
	for _, fx := range []struct {
		name string
		res  func() *finding.Result
	}{{"findings", fixtureResult}, {"empty", emptyResult}} {
		for _, format := range Formats {
			cs = append(cs, goldenCase{fx.name + "." + format + ".golden", format, false, fx.res, nil})
		}
		cs = append(cs, goldenCase{fx.name + ".text-color.golden", "text", true, fx.res, nil})
	}
	fx := fixtureResult
	cs = append(cs,
		goldenCase{"findings.text-80.golden", "text", false, fx, func(o *Options) { o.Width = 80 }},
		goldenCase{"findings.text-120.golden", "text", false, fx, func(o *Options) { o.Width = 120 }},
		goldenCase{"findings.text-brief.golden", "text", false, fx, func(o *Options) { o.Brief = true }},
		goldenCase{"findings.text-show-warning.golden", "text", false, fx, func(o *Options) { o.Show = finding.Warning }},
		goldenCase{"findings.junit-fail-on-warning.golden", "junit", false, fx, func(o *Options) { o.FailOn = finding.Warning }},
		goldenCase{"findings.sarif-failed.golden", "sarif", false, fx, func(o *Options) { o.Errors = []string{"missing.yaml: no such file or directory"} }},
	)
	return cs
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.name, func(t *testing.T) {
			opts := testOptions(t)
			opts.Color = c.color
			if c.opts != nil {
				c.opts(&opts)
			}
			got := render(t, c.format, c.res(), opts)
			path := filepath.Join("testdata", "golden", c.name)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./report -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file (go test ./report -update rewrites it)\n--- got\n%s\n--- want\n%s", c.name, got, want)
			}
		})
	}
}

// TestWriteRefusesUnsorted: Write prints findings in the order they have,
// which the engine makes report order (finding.Less) once for a run; it
// sorts nothing, so findings out of that order are an error, for every
// format, before a byte is written and without touching the caller's
// slice.
func TestWriteRefusesUnsorted(t *testing.T) {
	for _, format := range Formats {
		res := fixtureResult()
		fs := res.Findings
		fs[0], fs[1] = fs[1], fs[0]
		first := fs[0].RuleID + fs[0].File
		var out bytes.Buffer
		err := Write(&out, format, res, testOptions(t))
		if err == nil || !strings.Contains(err.Error(), "not in report order") || out.Len() != 0 {
			t.Errorf("%s: Write of unsorted findings: error %v and %d bytes written; want an error and nothing written", format, err, out.Len())
		}
		if got := fs[0].RuleID + fs[0].File; got != first {
			t.Errorf("%s: Write reordered the caller's slice: first finding is now %s, was %s", format, got, first)
		}
	}
}

// sortFindings puts findings a test builds in report order, as the engine
// does for a run.
func sortFindings(fs []finding.Finding) []finding.Finding {
	slices.SortStableFunc(fs, func(a, b finding.Finding) int { return finding.Compare(&a, &b) })
	return fs
}

func TestUnknownFormat(t *testing.T) {
	err := Write(&bytes.Buffer{}, "yaml", fixtureResult(), Options{})
	if err == nil || !strings.Contains(err.Error(), `"yaml"`) || !strings.Contains(err.Error(), "codeclimate") {
		t.Fatalf("want an error naming the format and listing the valid ones, got %v", err)
	}
}

func TestNilResult(t *testing.T) {
	for _, format := range Formats {
		if err := Write(&bytes.Buffer{}, format, nil, Options{}); err != nil {
			t.Errorf("%s: nil result: %v", format, err)
		}
	}
}

type failingWriter struct{}

var errDiskFull = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriteError(t *testing.T) {
	for _, format := range Formats {
		if err := Write(failingWriter{}, format, fixtureResult(), Options{}); !errors.Is(err, errDiskFull) {
			t.Errorf("%s: want the writer's error, got %v", format, err)
		}
	}
}

func TestRelPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("absolute paths below are Unix paths")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ root, file, want string }{
		{"/src/proj", "/src/proj/deploy/app.yaml", "deploy/app.yaml"},
		{"/src/proj/", "/src/proj/./deploy//app.yaml", "deploy/app.yaml"},
		{"/src/proj", "/src/other/app.yaml", "../other/app.yaml"},
		{"/src/proj", "-", "stdin"},
		{"/src/proj", "<stdin>", "stdin"},
		{"/src/proj", "", "stdin"},
		{wd, "deploy/app.yaml", "deploy/app.yaml"},
		{wd, "./deploy/../deploy/app.yaml", "deploy/app.yaml"},
		{wd, "../x.yaml", "../x.yaml"},
		{filepath.Dir(wd), "deploy/app.yaml", filepath.Base(wd) + "/deploy/app.yaml"},
		{"", "deploy/app.yaml", "deploy/app.yaml"},
		{"", filepath.Join(wd, "a b.yaml"), "a b.yaml"},
	} {
		if got := relPath(c.root, c.file); got != c.want {
			t.Errorf("relPath(%q, %q) = %q, want %q", c.root, c.file, got, c.want)
		}
	}
}

// TestRelPathWindows runs relPath's arithmetic on Windows paths (with
// backslashes, drive letters in either case and UNC shares) on any system:
// the SARIF URIs, annotations and CI reports must come out with forward
// slashes and relative to the source root.
func TestRelPathWindows(t *testing.T) {
	const wd = `C:\Users\dev\repo`
	for _, c := range []struct{ root, file, want string }{
		{`C:\Users\dev\repo`, `C:\Users\dev\repo\k8s\app.yaml`, "k8s/app.yaml"},
		{`C:\Users\dev\repo\`, `c:\users\DEV\repo\k8s\.\base\..\app.yaml`, "k8s/app.yaml"},
		{`C:\Users\dev\repo`, `k8s\app.yaml`, "k8s/app.yaml"},
		{`C:\Users\dev\repo`, `.\k8s/mixed\app.yaml`, "k8s/mixed/app.yaml"},
		{`C:\Users\dev\repo`, `..\other\app.yaml`, "../other/app.yaml"},
		{`C:\Users\dev\repo`, `\Users\dev\repo\k8s\app.yaml`, "k8s/app.yaml"},
		{`deploy`, `deploy\k8s\app.yaml`, "k8s/app.yaml"},
		{``, `k8s\app.yaml`, "k8s/app.yaml"},
		{`C:\`, `C:\k8s\app.yaml`, "k8s/app.yaml"},
		{`C:\Users\dev\repo`, `C:\Users\dev\repo`, "."},
		// Another volume has no relative path: the base name, never a
		// backslash or a drive letter.
		{`C:\Users\dev\repo`, `D:\manifests\app.yaml`, "app.yaml"},
		{`C:\Users\dev\repo`, `D:app.yaml`, "app.yaml"},
		{`\\server\share\repo`, `\\server\share\repo\k8s\app.yaml`, "k8s/app.yaml"},
		{`\\server\share\repo`, `\\SERVER\Share\repo\k8s\app.yaml`, "k8s/app.yaml"},
		{`\\server\share\repo`, `\\server\other\repo\k8s\app.yaml`, "app.yaml"},
	} {
		got := relPathIn(c.root, c.file, wd, '\\')
		if got != c.want {
			t.Errorf("relPathIn(%q, %q, %q, '\\\\') = %q, want %q", c.root, c.file, wd, got, c.want)
		}
		if uri := uriEscape(got); strings.ContainsAny(uri, `\:`) {
			t.Errorf("SARIF URI %q of %q keeps a backslash or a drive letter", uri, c.file)
		}
	}
	// The same arithmetic with '/' treats a backslash as an ordinary
	// character, as Unix does.
	if got := relPathIn("/src", `/src/a\b.yaml`, "/src", '/'); got != `a\b.yaml` {
		t.Errorf(`on Unix a\b.yaml is one name, got %q`, got)
	}
	// Without a working directory a relative path stays as it is.
	if got := relPathIn("", `k8s\app.yaml`, "", '\\'); got != "k8s/app.yaml" {
		t.Errorf("relative path without a working directory: %q", got)
	}
}

func TestURIEscape(t *testing.T) {
	for in, want := range map[string]string{
		"deploy/app.yaml":        "deploy/app.yaml",
		"deploy/my app ü#1.yaml": "deploy/my%20app%20%C3%BC%231.yaml",
		"100%/a?b.yaml":          "100%25/a%3Fb.yaml",
		"c:d.yaml":               "c%3Ad.yaml",
		"../x_y-z~.yaml":         "../x_y-z~.yaml",
	} {
		if got := uriEscape(in); got != want {
			t.Errorf("uriEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSummaryLine(t *testing.T) {
	res := fixtureResult()
	if got, want := summaryLine(res), "4 files, 7 objects (5 workloads): 3 errors, 2 warnings, 1 info"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	one := &finding.Result{Summary: finding.Summary{Files: 1, Objects: 1, Workloads: 1}}
	if got, want := summaryLine(one), "1 file, 1 object (1 workload): no findings"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSummaryLineScales: the tally names the rendered roots while they fit;
// a tree of many kustomize roots gets a count there and one root a line in
// the text and markdown reports (a tree of 20 roots once made a tally of
// 1 062 characters).
func TestSummaryLineScales(t *testing.T) {
	few := &finding.Result{Summary: finding.Summary{Files: 3, Objects: 2, Workloads: 1,
		Rendered: []string{"chart (chart)", "deploy/prod (kustomization), also rendering deploy/base"}}}
	if got, want := summaryLine(few), "3 files, 2 objects (1 workload): no findings; rendered chart (chart); deploy/prod (kustomization), also rendering deploy/base"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	many := &finding.Result{Summary: finding.Summary{Files: 85, Objects: 115, Workloads: 38}}
	for i := range 20 {
		many.Summary.Rendered = append(many.Summary.Rendered, fmt.Sprintf("operators/o%d/overlays/prod (kustomization), also rendering operators/o%d/base", i, i))
	}
	if got, want := summaryLine(many), "85 files, 115 objects (38 workloads): no findings; rendered 20 charts and kustomizations"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	text := string(render(t, "text", many, Options{}))
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if !strings.Contains(text, "Rendered:\n  operators/o0/overlays/prod (kustomization), also rendering operators/o0/base\n") || len(lines) < 22 {
		t.Errorf("the text report does not list the roots one a line:\n%s", text)
	}
	for _, ln := range lines {
		if len(ln) > 120 {
			t.Errorf("a line of %d characters: %q", len(ln), ln)
		}
	}
	skipped := &finding.Result{Summary: finding.Summary{Files: 1, NotRendered: many.Summary.Rendered}}
	if got, want := summaryLine(skipped), "1 file, 0 objects (0 workloads): no findings; 20 charts and kustomizations not rendered, the render budget being spent"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if text := string(render(t, "text", skipped, Options{})); !strings.Contains(text, "Not rendered, the render budget being spent:\n  operators/o0/") {
		t.Errorf("the text report does not list the roots not rendered:\n%s", text)
	}
	md := string(render(t, "markdown", many, Options{}))
	if !strings.Contains(md, "<summary>Rendered</summary>") || strings.Count(md, "\n- operators/") != 20 {
		t.Errorf("the markdown report does not list the 20 roots:\n%s", md)
	}
}

// TestJSONCountsEverySeverity: the json summary counts findings below
// --show as the text tally does; only the list leaves them out.
func TestJSONCountsEverySeverity(t *testing.T) {
	var rep struct {
		Findings []struct{ Severity string }
		Summary  struct{ Errors, Warnings, Infos int }
	}
	out := render(t, "json", fixtureResult(), Options{Show: finding.Warning})
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity == "info" {
			t.Errorf("an info finding is listed under --show warning")
		}
	}
	if rep.Summary.Errors != 3 || rep.Summary.Warnings != 2 || rep.Summary.Infos != 1 {
		t.Errorf("summary %+v; want 3 errors, 2 warnings and 1 info, as the text tally counts them", rep.Summary)
	}
}
