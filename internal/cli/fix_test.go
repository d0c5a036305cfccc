package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A Deployment with a safe fix (PL113: successThreshold 3 on a liveness
// probe, an error) and an unsafe one (PL106: timeout longer than period, a
// warning). The comment and the flow mapping must survive the fixes.
const fixable = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app   # the web server
          image: nginx:1.27
          livenessProbe:
            httpGet: {path: /healthz, port: 8080}
            successThreshold: 3
          readinessProbe:
            httpGet: {path: /ready, port: 8080}
            periodSeconds: 5
            timeoutSeconds: 8
`

func writeFixture(t *testing.T, mode os.FileMode) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "web.yaml")
	if err := os.WriteFile(path, []byte(fixable), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// TestFixWritesSafeFixesKeepingMode: `podlint fix` applies the safe fix
// only, rewrites the file with its mode, leaves no temporary file, and
// exits as check would on the fixed file (0: only a warning remains),
// where check on the original exits 1.
func TestFixWritesSafeFixesKeepingMode(t *testing.T) {
	dir, path := writeFixture(t, 0o640)
	if code, _, _ := run(t, dir, nil, "check", "--no-config", "web.yaml"); code != ExitFindings {
		t.Fatalf("check before the fix: exit %d, want 1", code)
	}
	code, out, errs := run(t, dir, nil, "fix", "--no-config", "web.yaml")
	if code != 0 {
		t.Errorf("fix: exit %d, want 0 (only a warning remains)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	got, _ := os.ReadFile(path)
	want := strings.Replace(fixable, "successThreshold: 3", "successThreshold: 1", 1)
	if string(got) != want {
		t.Errorf("fixed file:\n%s\nwant:\n%s", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	if !strings.Contains(errs, "PL113 fixed: Set successThreshold to 1") || !strings.Contains(errs, "1 more with --unsafe") {
		t.Errorf("stderr does not list the fix and the unsafe one left:\n%s", errs)
	}
	if !strings.Contains(out, "PL106") {
		t.Errorf("the remaining PL106 warning is not reported:\n%s", out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left in the folder: %v", entries)
	}
}

// TestFixUnsafeDiff: --diff prints a unified diff of the safe and (with
// --unsafe) unsafe fixes, writes nothing, and exits for the fixed text.
func TestFixUnsafeDiff(t *testing.T) {
	dir, path := writeFixture(t, 0o644)
	code, out, errs := run(t, dir, nil, "fix", "--no-config", "--unsafe", "--diff", "web.yaml")
	if code != ExitFindings {
		t.Errorf("exit %d, want 1 (the diff is not empty)\nstderr:\n%s", code, errs)
	}
	want := `--- a/web.yaml
+++ b/web.yaml
@@ -11,8 +11,8 @@
           image: nginx:1.27
           livenessProbe:
             httpGet: {path: /healthz, port: 8080}
-            successThreshold: 3
+            successThreshold: 1
           readinessProbe:
             httpGet: {path: /ready, port: 8080}
             periodSeconds: 5
-            timeoutSeconds: 8
+            timeoutSeconds: 5
`
	if out != want {
		t.Errorf("diff:\n%s\nwant:\n%s", out, want)
	}
	if got, _ := os.ReadFile(path); string(got) != fixable {
		t.Error("--diff changed the file")
	}
	if !strings.Contains(errs, "would fix 2 finding(s) in 1 file(s)") {
		t.Errorf("stderr:\n%s", errs)
	}
}

// TestFixNotThroughSymlink: a manifest named through a symbolic link is
// reported and not edited, and neither is the file it points to.
func TestFixNotThroughSymlink(t *testing.T) {
	dir, path := writeFixture(t, 0o644)
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(path, link); err != nil {
		t.Skip(err)
	}
	code, _, errs := run(t, dir, nil, "fix", "--no-config", "link.yaml")
	if got, _ := os.ReadFile(path); string(got) != fixable {
		t.Error("fix edited through a symbolic link")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if !strings.Contains(errs, "symbolic link; not edited") || code != ExitFindings {
		t.Errorf("exit %d (want 1: the error remains); stderr:\n%s", code, errs)
	}
}

// TestCheckOffersNoFixesInCharts: a finding in a Helm chart's rendered
// output has no fix in check's JSON report: the stream's edits would land
// in generated text, and a fix moved to the template is verified only by
// rendering again, which podlint fix does (fixroot_test.go).
func TestCheckOffersNoFixesInCharts(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "web")
	if err := os.MkdirAll(filepath.Join(chart, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	tmpl := strings.Replace(fixable, "name: web}", "name: {{ .Release.Name }}}", 1)
	for name, text := range map[string]string{
		"Chart.yaml":         "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"templates/web.yaml": tmpl,
	} {
		if err := os.WriteFile(filepath.Join(chart, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := run(t, dir, nil, "check", "--no-config", "-f", "json", "web")
	if code != ExitFindings || !strings.Contains(out, `"PL113"`) {
		t.Fatalf("check: exit %d, want 1 with PL113\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out, `"safety"`) {
		t.Errorf("a finding in rendered output has fixes:\n%s", out)
	}
}

// TestFixJSON: check's JSON report carries each fix with its safety and
// byte-range edits.
func TestFixJSON(t *testing.T) {
	dir, _ := writeFixture(t, 0o644)
	_, out, _ := run(t, dir, nil, "check", "--no-config", "-f", "json", "web.yaml")
	off := strings.Index(fixable, "successThreshold: 3") + len("successThreshold: ")
	for _, want := range []string{`"title": "Set successThreshold to 1"`, `"safety": "safe"`, `"safety": "unsafe"`,
		`"start": ` + itoa(off), `"end": ` + itoa(off+1), `"newText": "1"`, `"startLine": 14`} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON report lacks %s:\n%s", want, out)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestRulesListFixes: podlint rules shows the safety of each rule's fix,
// in text and in JSON, and a rule's page says what the fix does.
func TestRulesListFixes(t *testing.T) {
	_, out, _ := run(t, "", nil, "rules")
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "PL113 "):
			if !strings.Contains(line, " fix:safe ") {
				t.Errorf("PL113 line lacks fix:safe: %q", line)
			}
		case strings.HasPrefix(line, "PL201 "):
			if !strings.Contains(line, " fix:unsafe ") {
				t.Errorf("PL201 line lacks fix:unsafe: %q", line)
			}
		case strings.HasPrefix(line, "PL101 "):
			if strings.Contains(line, "fix:") {
				t.Errorf("PL101 has no fix: %q", line)
			}
		}
	}
	_, js, _ := run(t, "", nil, "rules", "-f", "json", "PL113")
	if !strings.Contains(js, `"safety": "safe"`) {
		t.Errorf("rules -f json lacks the fix:\n%s", js)
	}
	_, page, _ := run(t, "", nil, "rules", "PL201")
	if !strings.Contains(page, "unsafe (podlint fix --unsafe)") {
		t.Errorf("the PL201 page does not describe its fix:\n%s", page)
	}
}

// TestFixGate: the exit status of fix as a CI or pre-commit gate. --diff
// and --check exit 1 when a fix would change a file (--diff exited 0 when
// the only error was one it would fix), 0 when nothing would change and no
// finding at --fail-on remains, 2 on an error; --check writes and prints
// nothing to standard output. fix --help shows the table.
func TestFixGate(t *testing.T) {
	dir, path := writeFixture(t, 0o644)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--diff"}, ExitFindings},
		{[]string{"--check"}, ExitFindings},
		{[]string{"--check", "--select", "PL106"}, ExitFindings}, // nothing would change (PL106's fix is unsafe), but PL113, an error, remains
		{[]string{"--check", "no-such.yaml"}, ExitError},
	} {
		args := append([]string{"fix", "--no-config"}, tc.args...)
		if len(tc.args) == 1 || tc.args[1] != "no-such.yaml" {
			args = append(args, "web.yaml")
		}
		code, out, errs := run(t, dir, nil, args...)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d\nstderr:\n%s", tc.args, code, tc.code, errs)
		}
		if tc.args[0] == "--check" && out != "" {
			t.Errorf("%q printed to standard output:\n%s", tc.args, out)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != fixable {
		t.Fatal("--diff or --check changed the file")
	}
	if code, _, errs := run(t, dir, nil, "fix", "--no-config", "web.yaml"); code != ExitOK {
		t.Fatalf("fix: exit %d\n%s", code, errs)
	}
	if code, out, errs := run(t, dir, nil, "fix", "--no-config", "--diff", "web.yaml"); code != ExitOK || out != "" {
		t.Errorf("--diff after the fix: exit %d, want 0 (nothing to change, a warning left)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if code, _, _ := run(t, dir, nil, "fix", "--no-config", "--diff", "--fail-on", "warning", "web.yaml"); code != ExitFindings {
		t.Errorf("--diff --fail-on warning with a warning left: exit %d, want 1", code)
	}
	_, help, _ := run(t, dir, nil, "fix", "--help")
	for _, want := range []string{"Exit status:", "0  nothing to change", "1  --diff or --check: a fix would change a file", "2  usage"} {
		if !strings.Contains(help, want) {
			t.Errorf("fix --help lacks %q:\n%s", want, help)
		}
	}
}

// TestFixSelectAndNever: --select fixes only the rules it names; the
// configuration's fix.never is never fixed, --select or not; an unknown
// rule is a usage error.
func TestFixSelectAndNever(t *testing.T) {
	dir, path := writeFixture(t, 0o644)
	code, out, errs := run(t, dir, nil, "fix", "--no-config", "--unsafe", "--diff", "--select", "probe-timeout-exceeds-period", "web.yaml")
	if code != ExitFindings || !strings.Contains(out, "+            timeoutSeconds: 5") || strings.Contains(out, "successThreshold") {
		t.Errorf("--select PL106: exit %d, diff:\n%s\nstderr:\n%s", code, out, errs)
	}
	writeFiles(t, dir, map[string]string{".podlint.yaml": "fix:\n  never: [PL113]\n"})
	code, out, errs = run(t, dir, nil, "fix", "--unsafe", "--diff", "web.yaml")
	if code != ExitFindings || strings.Contains(out, "successThreshold") || !strings.Contains(out, "timeoutSeconds: 5") {
		t.Errorf("fix.never PL113: exit %d, diff:\n%s\nstderr:\n%s", code, out, errs)
	}
	code, out, _ = run(t, dir, nil, "fix", "--unsafe", "--diff", "--select", "PL113", "web.yaml")
	if out != "" || code != ExitFindings { // PL113 (an error) remains
		t.Errorf("--select PL113 with fix.never PL113: exit %d, diff:\n%s", code, out)
	}
	if code, _, errs := run(t, dir, nil, "fix", "--select", "PL999", "web.yaml"); code != ExitError || !strings.Contains(errs, "unknown rule") {
		t.Errorf("--select PL999: exit %d\n%s", code, errs)
	}
	if got, _ := os.ReadFile(path); string(got) != fixable {
		t.Fatal("--diff changed the file")
	}
}

// TestFixJSONReport: fix -f json says what was fixed, what was skipped and
// why, and holds check's JSON report of what remains.
func TestFixJSONReport(t *testing.T) {
	dir, _ := writeFixture(t, 0o644)
	code, out, errs := run(t, dir, nil, "fix", "--no-config", "--diff", "-f", "json", "web.yaml")
	if code != ExitFindings {
		t.Errorf("exit %d\n%s", code, errs)
	}
	var rep struct {
		Mode    string
		Applied []struct{ ID, Title, Safety string }
		Skipped []struct{ ID, Reason string }
		Diff    string
		Report  struct{ Findings []struct{ ID string } }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Mode != "diff" || len(rep.Applied) != 1 || rep.Applied[0].ID != "PL113" || rep.Applied[0].Safety != "safe" {
		t.Errorf("applied %+v (mode %q), want PL113's safe fix", rep.Applied, rep.Mode)
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].ID != "PL106" || !strings.Contains(rep.Skipped[0].Reason, "--unsafe") {
		t.Errorf("skipped %+v, want PL106, unsafe", rep.Skipped)
	}
	if !strings.Contains(rep.Diff, "+            successThreshold: 1") {
		t.Errorf("diff %q", rep.Diff)
	}
	var left []string
	for _, f := range rep.Report.Findings {
		left = append(left, f.ID)
	}
	if !slices.Contains(left, "PL106") || slices.Contains(left, "PL113") {
		t.Errorf("remaining findings %q, want PL106 and not PL113", left)
	}
	if code, _, errs := run(t, dir, nil, "fix", "--no-config", "-f", "sarif", "web.yaml"); code != ExitError {
		t.Errorf("-f sarif: exit %d, want 2\n%s", code, errs)
	}
}

// TestFixStdin: fix - reads standard input and writes the fixed text to
// standard output, the report to standard error.
func TestFixStdin(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, dir, strings.NewReader(fixable), "fix", "--no-config", "-")
	if code != ExitOK {
		t.Errorf("exit %d\n%s", code, errs)
	}
	if want := strings.Replace(fixable, "successThreshold: 3", "successThreshold: 1", 1); out != want {
		t.Errorf("standard output:\n%s\nwant the fixed text:\n%s", out, want)
	}
	if !strings.Contains(errs, "PL106") || !strings.Contains(errs, "fixed 1 finding(s)") {
		t.Errorf("standard error lacks the report:\n%s", errs)
	}
	// Nothing to fix: the text comes back as it was.
	clean := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	if code, out, _ := run(t, dir, strings.NewReader(clean), "fix", "--no-config", "-"); code != ExitOK || out != clean {
		t.Errorf("clean input: exit %d, output %q", code, out)
	}
}

// TestFixUnsafeNoteKeepsItsPromise: the safe run's "N more with --unsafe"
// counts what an --unsafe run applies, not fixes that would then fail
// verification (on the corpus it said 35, and --unsafe fixed 31). Here
// PL103's only fix adds a PL501 finding, so --unsafe fixes nothing.
func TestFixUnsafeNoteKeepsItsPromise(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: app
          image: nginx:1.27
          livenessProbe:
            httpGet: {path: /healthz, port: 8080}
            initialDelaySeconds: 600
          readinessProbe:
            httpGet: {path: /ready, port: 8080}
`, "two.yaml": fixable})
	_, _, errs := run(t, dir, nil, "fix", "--no-config", "--diff", "web.yaml", "two.yaml")
	if !strings.Contains(errs, "would fix 1 finding(s) in 1 file(s) (1 more with --unsafe)") {
		t.Errorf("safe run's tally, want PL113 fixed and only two.yaml's PL106 promised:\n%s", errs)
	}
	_, _, errs = run(t, dir, nil, "fix", "--no-config", "--diff", "--unsafe", "web.yaml", "two.yaml")
	if !strings.Contains(errs, "would fix 2 finding(s) in 1 file(s); 1 fix(es) skipped") {
		t.Errorf("--unsafe run's tally:\n%s", errs)
	}
}

// TestFixTallyCountsAFileOnce: filesChanged and the tally count a file that
// two roots (or a root and the file itself) change once.
func TestFixTallyCountsAFileOnce(t *testing.T) {
	var tally fixTally
	abs, err := filepath.Abs("web/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"web/values.yaml", abs, "web/templates/deploy.yaml", "web/values.yaml"} {
		tally.changedFile(p)
	}
	if tally.files != 2 {
		t.Errorf("files = %d, want 2", tally.files)
	}
}
