package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/podlint/podlint/internal/testgit"
	"github.com/podlint/podlint/report/plot"
)

// Issue 11: podlint runs on pull requests from people the repository does
// not trust. One test (or group) per defect of the red-team report.

// run runs podlint in dir (the working directory for the run) and returns
// the exit code, standard output and standard error.
func run(t *testing.T, dir string, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code := Run(append([]string{"podlint"}, args...), stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// A Pod with one error finding (PL010, duplicate container name) on line 9.
const findingPod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - {name: app, image: nginx}\n    - name: app\n      image: nginx\n"

// 1. A file with CR-only line breaks after a comment is a Deployment to
// kubectl; it was "no findings", exit 0.
func TestSecurityCROnlyDocumentIsLinted(t *testing.T) {
	for _, f := range []string{"cr-only.yaml", "nel.yaml", "line-separator.yaml", "paragraph-separator.yaml"} {
		code, rep, _ := check(t, nil, filepath.Join(hostileDir, f))
		if code != ExitFindings || rep.Summary.Workloads != 1 {
			t.Errorf("%s: exit %d, summary %+v; want exit 1 and the Deployment linted", f, code, rep.Summary)
		}
		found := false
		for _, x := range rep.Findings {
			found = found || (x.Name == "unknown-field" && x.Line == 15)
		}
		if !found {
			t.Errorf("%s: no unknown-field finding on line 15: %+v", f, rep.Findings)
		}
	}
}

// 3. Symbolic links, devices and binary files in a directory walk.
func TestSecurityWalkDoesNotLeak(t *testing.T) {
	base := t.TempDir()
	secret := "TOKEN-" + strings.Repeat("s3cr3t", 4)
	writeFiles(t, base, map[string]string{
		"outside/creds.yaml": "apiVersion: v1\nkind: Secret\nstringData: {token: " + secret + "}\n",
		"tree/ok.yaml":       findingPod,
		"tree/inside.yaml":   findingPod,
		"tree/binary.yaml":   "apiVersion: " + secret + "\x00\x01",
		"tree/latin1.yaml":   "kind: " + secret + "\xe9\n",
	})
	links := map[string]string{
		"tree/creds.yaml":    filepath.Join(base, "outside", "creds.yaml"),
		"tree/rel.yaml":      "../outside/creds.yaml",
		"tree/env.yaml":      "/proc/self/environ",
		"tree/zero.yaml":     "/dev/zero",
		"tree/same.yaml":     "inside.yaml",
		"tree/dangling.yaml": "nowhere.yaml",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	for _, format := range []string{"text", "junit", "json", "github", "sarif", "markdown", "codeclimate"} {
		code, out, errs := run(t, base, nil, "check", "--no-config", "-f", format, "tree")
		if code != ExitFindings {
			t.Errorf("%s: exit %d, want 1\n%s", format, code, errs)
		}
		for _, leak := range []string{secret, os.Getenv("PATH")} {
			if leak != "" && (strings.Contains(out, leak) || strings.Contains(errs, leak)) {
				t.Errorf("%s: the report leaks %q:\n%s\n%s", format, leak, out, errs)
			}
		}
		for _, want := range []string{`"tree/creds.yaml": skipped: symbolic link to a file outside`, `"tree/rel.yaml": skipped: symbolic link to a file outside`,
			`"tree/env.yaml": skipped`, `"tree/zero.yaml": skipped`, `"tree/dangling.yaml": skipped: broken symbolic link`} {
			if !strings.Contains(errs, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", format, want, errs)
			}
		}
		if format == "json" {
			var rep jsonReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			// ok, inside, same (a link inside the tree), binary, latin1.
			if rep.Summary.Files != 5 {
				t.Errorf("linted %d files, want 5 (links inside the tree are followed)", rep.Summary.Files)
			}
		}
	}
	// A walk of /proc itself reads nothing.
	if _, err := os.Stat("/proc/self"); err == nil {
		code, _, errs := run(t, "", nil, "check", "--no-config", "/proc/self/")
		if code != ExitError || !strings.Contains(errs, "podlint does not walk /proc") {
			t.Errorf("walking /proc/self: exit %d, stderr %s", code, errs)
		}
	}
	// Named on the command line, a link is the user's choice and is read.
	code, out, _ := run(t, base, nil, "check", "--no-config", "tree/creds.yaml")
	if code != ExitOK || !strings.Contains(out, "1 file, 1 object") {
		t.Errorf("explicit link: exit %d\n%s", code, out)
	}
}

// 3. The output path: never through a symbolic link, never onto an input.
func TestSecurityOutputPath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"victim.txt": "precious\n", "repo/pod.yaml": findingPod})
	if err := os.Symlink("../victim.txt", filepath.Join(dir, "repo", "results.sarif")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	code, _, errs := run(t, filepath.Join(dir, "repo"), nil, "check", "--no-config", "-f", "sarif", "-o", "results.sarif", "pod.yaml")
	if code != ExitError || !strings.Contains(errs, "is a symbolic link") {
		t.Errorf("-o through a link: exit %d, stderr %s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "victim.txt")); string(b) != "precious\n" {
		t.Errorf("the victim was overwritten: %q", b)
	}
	for _, o := range []string{"pod.yaml", "./pod.yaml", filepath.Join(dir, "repo", "pod.yaml")} {
		code, _, errs = run(t, filepath.Join(dir, "repo"), nil, "check", "--no-config", "-o", o, ".")
		if code != ExitError || !strings.Contains(errs, "is one of the files being checked") {
			t.Errorf("-o %s (an input): exit %d, stderr %s", o, code, errs)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "repo", "pod.yaml")); string(b) != findingPod {
			t.Errorf("-o %s destroyed the input: %q", o, b)
		}
	}
	// timeline -o DIR/ where DIR is a link.
	if err := os.Symlink(dir, filepath.Join(dir, "repo", "charts")); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, filepath.Join(dir, "repo"), nil, "timeline", "--no-config", "-f", "svg", "-o", "charts/", "pod.yaml")
	if code != ExitError || !strings.Contains(errs, "symbolic link") {
		t.Errorf("timeline -o through a link: exit %d, stderr %s", code, errs)
	}
}

// 4. Reports are written to a temporary file and renamed: a failure keeps
// the previous report, nothing is left behind, and concurrent runs leave
// one whole report.
func TestSecurityOutputIsAtomic(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	if err := os.WriteFile(target, []byte("previous report\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	// A hard link to the old report: writing in place (truncate, write)
	// would change what it reads; a rename does not.
	old := filepath.Join(dir, "old.json")
	if err := os.Link(target, old); err != nil {
		t.Fatal(err)
	}
	out, err := createOutput(target, "--output", nil)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(out.w, "half a rep")
	if err := out.finish(errors.New("disk full")); err == nil {
		t.Fatal("finish hid the write error")
	}
	if b, _ := os.ReadFile(target); string(b) != "previous report\n" {
		t.Errorf("a failed write changed the report to %q", b)
	}
	checkNoTemp(t, dir, 2)

	writeFiles(t, dir, map[string]string{"pod.yaml": findingPod})
	var wg sync.WaitGroup
	codes := make([]int, 4)
	t.Chdir(dir)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var o, e bytes.Buffer
			codes[i] = Run([]string{"podlint", "check", "--no-config", "-f", "json", "-o", "report.json", "pod.yaml"}, strings.NewReader(""), &o, &e)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != ExitFindings {
			t.Errorf("run %d: exit %d", i, c)
		}
	}
	b, _ := os.ReadFile(target)
	var rep jsonReport
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Findings) != 1 {
		t.Errorf("after concurrent runs the report is not one whole report (%v):\n%s", err, b)
	}
	if b, _ := os.ReadFile(old); string(b) != "previous report\n" {
		t.Errorf("the old report was rewritten in place: %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Errorf("the report's mode changed to %v", fi.Mode().Perm())
	}
	checkNoTemp(t, dir, 3)
}

func checkNoTemp(t *testing.T, dir string, want int) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	if len(ents) != want {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the folder holds %v; a temporary file was left behind", names)
	}
}

// hostileNames are file and directory names that try to inject into a
// terminal or a CI log.
var hostileNames = []string{
	"a\n::error file=evil.yaml,line=1::INJECTED\n.yaml",
	"b\x1b]0;pwned\a\x1b[2J.yaml",
	"c\u202eyaml.exe\u2066\u2069.yaml",
	"d\r::warning::INJECTED.yaml",
	"e\u3164\u115f\uffa0\u034f\ufe0f.yaml", // default-ignorable: printable to Go, invisible on screen
}

// rawControl matches what must never reach a terminal or log raw: C0
// controls other than newline, DEL, C1 controls, bidi and line separators,
// default-ignorable fillers, joiners and variation selectors.
var rawControl = regexp.MustCompile("[\x00-\x09\x0b-\x1f\x7f\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\u034f\u115f\u3164\ufe00-\ufe0f\uffa0]")

// 5. Terminal and CI-log injection through names and echoed source lines.
func TestSecurityNoInjection(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for _, n := range hostileNames {
		// Bidi controls are valid YAML, so the snippet echoes them.
		files[n] = strings.Replace(findingPod, "    - name: app\n", "    - name: app # \u202eevil\u2066\n", 1)
	}
	// Escape sequences are not (the parser refuses them) but the snippet
	// of that finding shows the line.
	for _, n := range []string{"esc1.yaml", "esc2.yaml", "esc3.yaml"} {
		files[n] = "apiVersion: v1 # \x1b[31mred\x1b]0;title\a\x1b[0m\nkind: Pod\n"
	}
	// A directory name reaches stderr through the Helm hint (--render=never)
	// and stdout through the render error at its Chart.yaml and the
	// summary's list of rendered charts (the default).
	files["x\n::error::INJECTED-HINT\n/Chart.yaml"] = "name: x\n"
	files["x\n::error::INJECTED-HINT\n/templates/a.yaml"] = findingPod
	writeFiles(t, dir, files)
	for _, mode := range []string{"auto", "never"} {
		securityNoInjection(t, dir, mode)
	}
}

func securityNoInjection(t *testing.T, dir, mode string) {
	for _, format := range []string{"text", "github", "markdown", "junit"} {
		code, out, errs := run(t, dir, nil, "check", "--no-config", "--render="+mode, "--color", "never", "-f", format, ".")
		if code != ExitFindings {
			t.Fatalf("%s: exit %d\n%s", format, code, errs)
		}
		for what, text := range map[string]string{"stdout": out, "stderr": errs} {
			if m := rawControl.FindString(text); m != "" {
				t.Errorf("%s %s: a raw %q reaches the output:\n%q", format, what, m, text)
			}
			for _, l := range strings.Split(text, "\n") {
				if strings.HasPrefix(l, "::error file=evil.yaml") || strings.HasPrefix(l, "::warning::INJECTED") || strings.HasPrefix(l, "::error::INJECTED") {
					t.Errorf("%s %s: injected workflow command: %q", format, what, l)
				}
			}
		}
		// The checks above hold it escaped wherever it appears.
		if mode == "auto" && !strings.Contains(out, "::error::INJECTED-HINT") {
			t.Errorf("%s: the rendered chart's name is not in the output:\n%s", format, out)
		}
		if mode == "never" && !strings.Contains(errs, `hint: "x\n::error::INJECTED-HINT\n" is a Helm chart`) {
			t.Errorf("%s: the hint does not quote the escaped name:\n%s", format, errs)
		}
		switch format {
		case "text":
			for _, want := range []string{`a\n::error file=evil.yaml,line=1::INJECTED\n.yaml:8:`, `b\x1b]0;pwned\x07\x1b[2J.yaml:8:`, `c\u202eyaml.exe\u2066\u2069.yaml:8:`,
				`- name: app # \u202eevil\u2066`, `# \x1b[31mred\x1b]0;title\x07\x1b[0m`} {
				if !strings.Contains(out, want) {
					t.Errorf("text: no visible escape %s in\n%s", want, out)
				}
			}
		case "github":
			if n := strings.Count("\n"+out, "\n::error "); n != 9 {
				t.Errorf("github: %d error commands, want 9 (one per file):\n%s", n, out)
			}
		case "junit":
			var v struct{}
			if err := xml.Unmarshal([]byte(out), &v); err != nil {
				t.Errorf("junit does not parse: %v", err)
			}
		}
	}
	// What the user typed, echoed by urfave/cli or by podlint's own errors.
	for _, args := range [][]string{{"check", "--\x1b[2Jx", "."}, {"\x1b]0;t\acmd"}, {"check", "--kube-version", "1.\x1b[2J", "."}, {"check", "--fail-on", "\u202eerror", "."}} {
		_, out, errs := run(t, dir, nil, args...)
		if m := rawControl.FindString(out + errs); m != "" {
			t.Errorf("%q: a raw %q reaches the output:\n%q", args, m, out+errs)
		}
	}
	// timeline text and stderr.
	code, out, errs := run(t, dir, nil, "timeline", "--no-config", "--color", "never", ".")
	if code != ExitError || !strings.Contains(errs, "esc1.yaml:1:") { // the invalid documents
		t.Fatalf("timeline: exit %d\n%s", code, errs)
	}
	if m := rawControl.FindString(out + errs); m != "" {
		t.Errorf("timeline: a raw %q reaches the output", m)
	}
}

// 6. Configuration discovery: bounded, reported, never excluding a named
// file.
func TestSecurityConfigBoundary(t *testing.T) {
	base := t.TempDir()
	t.Setenv("HOME", filepath.Join(base, "home"))
	excludeAll := "exclude: [\"**\"]\n"
	writeFiles(t, base, map[string]string{
		".podlint.yaml":                       excludeAll, // a shared /tmp
		"home/.podlint.yaml":                  excludeAll, // a runner's home
		"home/work/repo/.git/HEAD":            "ref: refs/heads/main\n",
		"home/work/repo/.git/index":           string(testgit.Index(map[string]uint32{"deploy/pod.yaml": testgit.File, "deploy/other/x.json": testgit.File})),
		"home/work/repo/deploy/pod.yaml":      findingPod,
		"plain/deploy/pod.yaml":               findingPod,
		"cfgrepo/.git/HEAD":                   "ref: refs/heads/main\n",
		"cfgrepo/.git/index":                  string(testgit.Index(map[string]uint32{".podlint.yaml": testgit.File, "sub/pod.yaml": testgit.File})),
		"cfgrepo/.podlint.yaml":               "disable: [PL010]\n",
		"cfgrepo/sub/pod.yaml":                findingPod,
		"multi/.podlint.yaml":                 "fail-on: error\n---\nexclude: [\"**\"]\n",
		"multi/pod.yaml":                      findingPod,
		"excl/.podlint.yaml":                  "exclude: [\"*.yaml\"]\n",
		"excl/pod.yaml":                       findingPod,
		"home/work/repo/deploy/.keep.unused":  "",
		"home/work/repo/deploy/other/x.json":  "{}",
		"plain/deploy/other/not-a-manifest.j": "",
	})
	// Inside a repository below the home folder: no config above the
	// repository root applies.
	code, out, errs := run(t, filepath.Join(base, "home", "work", "repo", "deploy"), nil, "check", ".")
	if code != ExitFindings || !strings.Contains(out, "PL010") || strings.Contains(out, "config") {
		t.Errorf("repository below a configured home: exit %d\n%s\n%s", code, out, errs)
	}
	// Outside any repository, only the working directory counts.
	code, out, errs = run(t, filepath.Join(base, "plain", "deploy"), nil, "check", ".")
	if code != ExitFindings || !strings.Contains(out, "PL010") {
		t.Errorf("outside a repository, below a configured folder: exit %d\n%s\n%s", code, out, errs)
	}
	// Within the repository the config is found and named.
	code, out, _ = run(t, filepath.Join(base, "cfgrepo", "sub"), nil, "check", "pod.yaml")
	if code != ExitOK || !strings.Contains(out, "config ../.podlint.yaml: no findings") {
		t.Errorf("repository config: exit %d\n%s", code, out)
	}
	for format, want := range map[string]string{"json": `"configFile": "../.podlint.yaml"`, "sarif": `"configFile": "../.podlint.yaml"`} {
		_, out, _ = run(t, "", nil, "check", "-f", format, "pod.yaml")
		if !strings.Contains(out, want) {
			t.Errorf("%s does not name the config (%s):\n%s", format, want, out)
		}
	}
	// Several documents: an error.
	code, _, errs = run(t, filepath.Join(base, "multi"), nil, "check", "pod.yaml")
	if code != ExitError || !strings.Contains(errs, "more than one YAML document") {
		t.Errorf("multi-document config: exit %d, stderr %s", code, errs)
	}
	// A named file is linted even when the config excludes it, and the
	// user is told.
	code, out, errs = run(t, filepath.Join(base, "excl"), nil, "check", "pod.yaml")
	if code != ExitFindings || !strings.Contains(out, "PL010") || !strings.Contains(errs, `"pod.yaml" is linted although an exclude pattern matches it`) {
		t.Errorf("explicit file excluded by config: exit %d\n%s\n%s", code, out, errs)
	}
	// An oversized config is refused like an oversized manifest.
	big := filepath.Join(base, "big.yaml")
	if err := os.WriteFile(big, bytes.Repeat([]byte("# x\n"), (1<<20)/4+1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = run(t, "", nil, "check", "--config", big, "pod.yaml")
	if code != ExitError || !strings.Contains(errs, "larger than 1048576 bytes") {
		t.Errorf("1 MB config: exit %d, stderr %s", code, errs)
	}
}

// 7. A path that yields no manifest exits 2 unless --allow-empty.
func TestSecurityEmptyRunsFail(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"hidden/.git/x.yaml":   findingPod,
		"hidden/.github/a.yml": findingPod,
		"excluded/pod.yaml":    findingPod,
		"excluded/sub/p.yaml":  findingPod,
		"other/README.md":      "# nothing",
		"good/pod.yaml":        findingPod,
	})
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
	}{
		{[]string{"empty"}}, {[]string{"hidden"}}, {[]string{"other"}},
		{[]string{"--config", filepath.Join(dir, "excl.yaml"), "excluded"}},
		{[]string{"good", "empty"}},
	} {
		writeFiles(t, dir, map[string]string{"excl.yaml": "exclude: [\"**\"]\n"})
		args := append([]string{"check", "--no-config"}, tc.args...)
		if tc.args[0] == "--config" {
			args = append([]string{"check"}, tc.args...)
		}
		code, _, errs := run(t, dir, nil, args...)
		if code != ExitError || !strings.Contains(errs, "holds no .yaml, .yml or .json file to lint") || !strings.Contains(errs, "--allow-empty") {
			t.Errorf("%v: exit %d, stderr %s", tc.args, code, errs)
		}
		code, _, errs = run(t, dir, nil, append(args[:1:1], append([]string{"--allow-empty"}, args[1:]...)...)...)
		if code == ExitError {
			t.Errorf("%v --allow-empty: exit 2, stderr %s", tc.args, errs)
		}
	}
}

// 8. Small ones.
func TestSecurityMaxFileSizeOverflow(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pod.yaml": findingPod})
	for _, args := range [][]string{
		{"check", "--no-config", "--max-file-size", "9223372036854775807", "pod.yaml"},
		{"check", "--no-config", "--max-file-size", "9223372036854775807", "-"},
		{"check", "--no-config", "--max-file-size", "9223372036854775806", "-"},
	} {
		code, out, errs := run(t, dir, strings.NewReader(findingPod), args...)
		if code != ExitFindings || !strings.Contains(out, "PL010") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
	}
}

func TestSecuritySVGNamesAreUnique(t *testing.T) {
	items := []plot.Item{{Kind: "Pod", Name: "a"}, {Kind: "Pod", Name: "a"}, {Kind: "Pod", Name: "a-2"}, {Kind: "Pod", Name: "A"}, {Kind: "Pod", Name: "a/2"}}
	seen := map[string]bool{}
	for _, n := range svgNames(items) {
		if seen[strings.ToLower(n)] {
			t.Errorf("%s is used twice: %v", n, svgNames(items))
		}
		seen[strings.ToLower(n)] = true
	}
	// End to end: three charts for a, a, a-2.
	dir := t.TempDir()
	pods := ""
	for _, n := range []string{"a", "a", "a-2"} {
		pods += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: " + n + "}\nspec: {containers: [{name: c, image: nginx}]}\n"
	}
	writeFiles(t, dir, map[string]string{"pods.yaml": pods})
	code, _, errs := run(t, dir, nil, "timeline", "--no-config", "-f", "svg", "-o", "out/", "pods.yaml")
	files, _ := filepath.Glob(filepath.Join(dir, "out", "*.svg"))
	if code != ExitOK || len(files) != 3 {
		t.Errorf("exit %d, %d charts for 3 pods: %v\n%s", code, len(files), files, errs)
	}
}

// Standard input from an endless stream peaks near the cap, not at four
// times it.
func TestSecurityStdinPeak(t *testing.T) {
	const limit = 8 << 20
	var code int
	alloc := allocated(func() {
		code, _, _ = check(t, endless{}, "--max-file-size", "8388608", "-")
	})
	t.Logf("allocated %d bytes reading an endless stream capped at %d", alloc, limit)
	if code != ExitError {
		t.Errorf("exit %d, want 2", code)
	}
	if alloc > limit*5/4+4<<20 {
		t.Errorf("allocated %d bytes for a stream capped at %d (want at most 1.25×)", alloc, limit)
	}
}
