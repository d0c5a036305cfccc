package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/testgit"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
)

// fixRoots copies testdata/fixroots (charts and a kustomization whose
// findings have fixes, see its README) into a git work tree tracking every
// file, and returns it with the text of each file as copied.
func fixRoots(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "fixroots"))); err != nil {
		t.Fatal(err)
	}
	if err := testgit.InitAll(dir); err != nil {
		t.Fatal(err)
	}
	return dir, readTree(t, dir)
}

// readTree reads every file below dir but .git, by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// changedFiles are the files whose text differs between two readTree
// results, with each one's new text.
func changedFiles(before, after map[string]string) map[string]string {
	out := map[string]string{}
	for name, text := range after {
		if before[name] != text {
			out[name] = text
		}
	}
	return out
}

// rootFindings runs check -f json on the roots and returns their findings
// as "ID file:line".
func rootFindings(t *testing.T, dir string, roots ...string) []string {
	t.Helper()
	_, out, errs := run(t, dir, nil, append([]string{"check", "--no-config", "-f", "json"}, roots...)...)
	var rep struct{ Findings []struct{ ID, File string } }
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check: %v\n%s\n%s", err, out, errs)
	}
	var ids []string
	for _, f := range rep.Findings {
		ids = append(ids, f.ID+" "+f.File)
	}
	return ids
}

// without returns list without one occurrence of each of drop.
func without(list []string, drop ...string) []string {
	out := slices.Clone(list)
	for _, d := range drop {
		if i := slices.Index(out, d); i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
	}
	return out
}

// renderedLines renders the root at path (relative to dir) as check does
// and returns its output's lines.
func renderedLines(t *testing.T, dir, path, kind string) []string {
	t.Helper()
	r, err := (&render.Options{}).Open(manifest.Source{Path: filepath.Join(dir, path), Render: kind, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Map.Close()
	if len(r.Problems) > 0 || len(r.Stream) == 0 {
		t.Fatalf("%s: problems %+v", path, r.Problems)
	}
	return strings.Split(string(r.Stream), "\n")
}

// wantRenderedChange fails unless the rendered output after a fix differs
// from before only in the lines given, each "old → new" (trimmed).
func wantRenderedChange(t *testing.T, before, after []string, want ...string) {
	t.Helper()
	if len(before) != len(after) {
		t.Fatalf("rendered %d lines before the fix, %d after", len(before), len(after))
	}
	var got []string
	for i := range before {
		if before[i] != after[i] {
			got = append(got, strings.TrimSpace(before[i])+" → "+strings.TrimSpace(after[i]))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the rendered output changed in %q, want %q", got, want)
	}
}

// fixChangesOnly runs fix with args in dir, whose files were before, and
// fails unless it exits 0 (what remains is below error) having changed
// only file, where old became new. It returns standard error.
func fixChangesOnly(t *testing.T, dir string, before map[string]string, file, old, new string, args ...string) string {
	t.Helper()
	code, _, errs := run(t, dir, nil, append([]string{"fix", "--no-config"}, args...)...)
	if code != ExitOK {
		t.Errorf("exit %d, want 0 (no error remains)\n%s", code, errs)
	}
	changed := changedFiles(before, readTree(t, dir))
	if want := strings.Replace(before[file], old, new, 1); len(changed) != 1 || changed[file] != want {
		t.Errorf("changed %v, want only %s, with %q for %q\n%s", keys(changed), file, new, old, errs)
	}
	return errs
}

// TestFixRootTemplateLiteral: a Helm template line whose value is a
// literal (successThreshold: 3) gets the safe PL113 fix, written to the
// template; the chart rendered again has every other finding it had and
// no PL113, and no other file changes (the readiness timeout read from
// values.yaml has only an unsafe fix).
func TestFixRootTemplateLiteral(t *testing.T) {
	dir, before := fixRoots(t)
	findings, rendered := rootFindings(t, dir, "web"), renderedLines(t, dir, "web", manifest.RenderHelm)
	errs := fixChangesOnly(t, dir, before, "web/templates/deployment.yaml", "successThreshold: 3   # literal", "successThreshold: 1   # literal", "web")
	wantRenderedChange(t, rendered, renderedLines(t, dir, "web", manifest.RenderHelm), "successThreshold: 3   # literal: the fix edits this line → successThreshold: 1   # literal: the fix edits this line")
	if !strings.Contains(errs, "web/templates/deployment.yaml:18:31: PL113 fixed: Set successThreshold to 1 in web/templates/deployment.yaml:18") {
		t.Errorf("stderr does not say what was fixed:\n%s", errs)
	}
	if got, want := rootFindings(t, dir, "web"), without(findings, "PL113 web/templates/deployment.yaml"); !slices.Equal(got, want) {
		t.Errorf("findings after the fix %q, want %q", got, want)
	}
}

// TestFixRootValuesKey: with --unsafe, the readiness timeout PL106 finds,
// read from one values key that feeds nothing else, is lowered in
// values.yaml (its comment kept); rendered again, the finding is gone and
// the others are as they were.
func TestFixRootValuesKey(t *testing.T) {
	dir, before := fixRoots(t)
	findings, rendered := rootFindings(t, dir, "web"), renderedLines(t, dir, "web", manifest.RenderHelm)
	if code, _, errs := run(t, dir, nil, "fix", "--no-config", "--unsafe", "web"); code != ExitOK {
		t.Errorf("exit %d, want 0 (an info remains)\n%s", code, errs)
	}
	changed := changedFiles(before, readTree(t, dir))
	if got, want := changed["web/values.yaml"], strings.Replace(before["web/values.yaml"], "timeout: 8   # seconds", "timeout: 5   # seconds", 1); got != want {
		t.Errorf("values.yaml:\n%s\nwant:\n%s", got, want)
	}
	if len(changed) != 2 {
		t.Errorf("changed %v, want the template and values.yaml", keys(changed))
	}
	wantRenderedChange(t, rendered, renderedLines(t, dir, "web", manifest.RenderHelm),
		"successThreshold: 3   # literal: the fix edits this line → successThreshold: 1   # literal: the fix edits this line",
		"timeoutSeconds: 8 → timeoutSeconds: 5")
	if got, want := rootFindings(t, dir, "web"), without(findings, "PL113 web/templates/deployment.yaml", "PL106 web/templates/deployment.yaml"); !slices.Equal(got, want) {
		t.Errorf("findings after the fixes %q, want %q", got, want)
	}
}

// TestFixRootValuesKeyFeedsTwoFields: a values key that feeds the liveness
// probe's successThreshold (PL113) and another container's readiness
// successThreshold is not fixed by the safe run, which names the other
// field; --unsafe applies it, naming it in the fix's title, and
// --diff shows the edit to values.yaml.
func TestFixRootValuesKeyFeedsTwoFields(t *testing.T) {
	dir, before := fixRoots(t)
	other := "Deployment release-name-shared spec.template.spec.containers[1].readinessProbe.successThreshold"
	code, _, errs := run(t, dir, nil, "fix", "--no-config", "shared")
	if code != ExitFindings || !strings.Contains(errs, "PL113 not fixed (Set successThreshold to 1 in shared/values.yaml:2 (it also changes "+other+")): unsafe") {
		t.Errorf("exit %d; stderr does not name the other field:\n%s", code, errs)
	}
	if changed := changedFiles(before, readTree(t, dir)); len(changed) != 0 {
		t.Errorf("the safe run changed %v", keys(changed))
	}
	code, out, errs := run(t, dir, nil, "fix", "--no-config", "--unsafe", "--diff", "-f", "json", "shared")
	var rep struct {
		Applied []struct{ ID, Title, Safety string }
		Diff    string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != ExitFindings {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out, errs)
	}
	if len(rep.Applied) != 1 || rep.Applied[0].Safety != "unsafe" || !strings.Contains(rep.Applied[0].Title, other) {
		t.Errorf("applied %+v, want PL113's unsafe fix naming %s", rep.Applied, other)
	}
	if !strings.Contains(rep.Diff, "--- a/shared/values.yaml\n") || !strings.Contains(rep.Diff, "\n-  successThreshold: 3\n+  successThreshold: 1\n") {
		t.Errorf("diff:\n%s", rep.Diff)
	}
}

// TestFixRootComputedValue: a value the template computes ({{ add 1
// .Values.extraSuccesses }}) is not fixed, in the template or in
// values.yaml, and the run says why.
func TestFixRootComputedValue(t *testing.T) {
	dir, before := fixRoots(t)
	code, _, errs := run(t, dir, nil, "fix", "--no-config", "--unsafe", "computed")
	if code != ExitFindings {
		t.Errorf("exit %d, want 1: the error remains\n%s", code, errs)
	}
	if changed := changedFiles(before, readTree(t, dir)); len(changed) != 0 {
		t.Errorf("changed %v", keys(changed))
	}
	if !strings.Contains(errs, `PL113 not fixed (Set successThreshold to 1): no edit of a template, values file or patch makes this fix: `+
		`spec.containers[0].livenessProbe.successThreshold: value from .Values.extraSuccesses: computed/values.yaml:1 says "2", not the rendered "3"`) {
		t.Errorf("stderr does not say why:\n%s", errs)
	}
}

// TestFixRootKustomizePatch: a strategic merge patch that sets
// successThreshold: 3 is fixed in the patch file; the inline JSON patch
// whose readiness timeout and period are tagged (!!int) is not, nor is the
// startup probe of the base (outside the overlay: other overlays may use
// it), and the run says why. Rendered again, the overlay has no PL113 and keeps its
// other findings.
func TestFixRootKustomizePatch(t *testing.T) {
	dir, before := fixRoots(t)
	findings, rendered := rootFindings(t, dir, "kust/overlay"), renderedLines(t, dir, "kust/overlay", manifest.RenderKustomize)
	errs := fixChangesOnly(t, dir, before, "kust/overlay/probes.yaml", "successThreshold: 3", "successThreshold: 1", "--unsafe", "kust/overlay")
	wantRenderedChange(t, rendered, renderedLines(t, dir, "kust/overlay", manifest.RenderKustomize), "successThreshold: 3 → successThreshold: 1")
	if !strings.Contains(errs, "kust/overlay/kustomization.yaml:12:27: PL106 not fixed") || !strings.Contains(errs, "kust/overlay/kustomization.yaml:12: the value is a block scalar, an anchor, an alias or tagged") {
		t.Errorf("stderr does not say why the inline patch was not fixed:\n%s", errs)
	}
	if !strings.Contains(errs, "kust/base/deployment.yaml:19 is outside kust/overlay, and may be shared with other charts or kustomizations") {
		t.Errorf("stderr does not say why the base's startup probe was not fixed:\n%s", errs)
	}
	if got, want := rootFindings(t, dir, "kust/overlay"), without(findings, "PL113 kust/overlay/probes.yaml"); !slices.Equal(got, want) {
		t.Errorf("findings after the fix %q, want %q", got, want)
	}
}

// TestFixRootGate: fix --check and --diff on a chart with a fixable
// template write nothing and exit 1; the report of --diff is of the fixed
// text (no PL113 left).
func TestFixRootGate(t *testing.T) {
	dir, before := fixRoots(t)
	code, out, errs := run(t, dir, nil, "fix", "--no-config", "--diff", "web")
	if code != ExitFindings || !strings.Contains(out, "+++ b/web/templates/deployment.yaml\n") || !strings.Contains(out, "\n+            successThreshold: 1   # literal") {
		t.Errorf("--diff: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "0 errors") {
		t.Errorf("--diff's summary is not of the fixed text:\n%s", errs)
	}
	if code, _, errs := run(t, dir, nil, "fix", "--no-config", "--check", "web"); code != ExitFindings || !strings.Contains(errs, "PL113 would be fixed") {
		t.Errorf("--check: exit %d\n%s", code, errs)
	}
	if changed := changedFiles(before, readTree(t, dir)); len(changed) != 0 {
		t.Errorf("--diff or --check changed %v", keys(changed))
	}
}

// TestFixRootRefusesLinksAndReadOnly: a template that is a symbolic link
// (to a file of the chart) is not edited through, and a read-only values
// file makes the chart's fixes refused whole, before any is reported
// fixed; exit 2 for both.
func TestFixRootRefusesLinksAndReadOnly(t *testing.T) {
	dir, _ := fixRoots(t)
	tmpl := filepath.Join(dir, "web", "templates", "deployment.yaml")
	real := filepath.Join(dir, "web", "deployment.real")
	if err := os.Rename(tmpl, real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../deployment.real", tmpl); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := testgit.InitAll(dir); err != nil {
		t.Fatal(err)
	}
	saved, _ := os.ReadFile(real)
	code, _, errs := run(t, dir, nil, "fix", "--no-config", "web")
	if got, _ := os.ReadFile(real); code != ExitError || !bytes.Equal(got, saved) || !strings.Contains(errs, "a symbolic link; not edited") {
		t.Errorf("through a link: exit %d, file changed %v\n%s", code, !bytes.Equal(got, saved), errs)
	}
	if os.Geteuid() == 0 {
		t.Skip("root may write a read-only file")
	}
	values := filepath.Join(dir, "shared", "values.yaml")
	if err := os.Chmod(values, 0o444); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, dir, nil, "fix", "--no-config", "--unsafe", "shared")
	if code != ExitError || !strings.Contains(errs, "read-only (mode 0444)") || strings.Contains(errs, "PL113 fixed") {
		t.Errorf("read-only values: exit %d\n%s", code, errs)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestFixRootJSONGolden: fix -f json --diff on the charts and the
// kustomization, safe and --unsafe, against
// testdata/golden/fix-roots*.json (go test ./internal/cli -run
// TestFixRootJSONGolden -update rewrites them): what is fixed in which
// template, values file or patch, what is skipped and why, the diff, and
// what remains.
func TestFixRootJSONGolden(t *testing.T) {
	for name, extra := range map[string][]string{"fix-roots.json": nil, "fix-roots-unsafe.json": {"--unsafe"}} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(goldenDir(t), name)
			dir, _ := fixRoots(t)
			args := append(append([]string{"fix", "--no-config", "--diff", "-f", "json"}, extra...), "web", "shared", "computed", "kust/overlay")
			code, out, errs := run(t, dir, nil, args...)
			if code != ExitFindings {
				t.Errorf("exit %d, want 1\n%s", code, errs)
			}
			if *update {
				if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (go test ./internal/cli -run TestFixRootJSONGolden -update creates it)", err)
			}
			if out != string(want) {
				t.Errorf("%s differs (go test ./internal/cli -run TestFixRootJSONGolden -update rewrites it)\n--- got\n%s", name, out)
			}
		})
	}
}

// goldenDir is internal/cli/testdata/golden, found before a test changes
// into another folder.
func goldenDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFixRootRendersKeepTheReportsBudget: the renders that verify fixes
// have a render budget of their own, so that they neither starve (the
// run's budget keeps a full per-root limit for every root not yet rendered:
// with 5 charts, 5s each and a budget of 20s, a second render of the first
// chart would get nothing) nor spend the budget of the report's renders.
// All five charts' template fixes apply and no chart is reported
// unrendered.
func TestFixRootRendersKeepTheReportsBudget(t *testing.T) {
	dir, _ := fixRoots(t)
	var roots []string
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		if err := os.CopyFS(filepath.Join(dir, "many", n), os.DirFS(filepath.Join(dir, "web"))); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, filepath.Join("many", n))
	}
	if err := testgit.InitAll(dir); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, dir, nil, append([]string{"fix", "--no-config", "--render-budget", "20s", "--render-cpu", "5s"}, roots...)...)
	if code != ExitOK || !strings.Contains(errs, "fixed 5 finding(s) in 5 file(s)") || strings.Contains(errs, "budget") {
		t.Errorf("exit %d, want 0 with 5 fixes and no chart left unrendered\n%s", code, errs)
	}
}

// TestFixRootSelect: --select chooses the rules whose findings are fixed
// in a chart too: with PL106 selected, values.yaml is edited and the
// template's PL113, not selected, stays (exit 1, the error remains).
func TestFixRootSelect(t *testing.T) {
	dir, before := fixRoots(t)
	code, _, errs := run(t, dir, nil, "fix", "--no-config", "--unsafe", "--select", "PL106", "web")
	changed := changedFiles(before, readTree(t, dir))
	if code != ExitFindings || len(changed) != 1 || changed["web/values.yaml"] == "" {
		t.Errorf("exit %d, changed %v; want 1 and only values.yaml\n%s", code, keys(changed), errs)
	}
}
