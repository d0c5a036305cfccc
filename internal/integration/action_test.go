package integration

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/podlint/podlint/internal/testbin"
)

// action is the part of action.yml's schema the tests read.
// Decoding with KnownFields makes a misspelled key (defualt:) an error.
type action struct {
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	Author      string            `yaml:"author"`
	Branding    map[string]string `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

func loadAction(t *testing.T, path string) (*action, string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &a, string(raw)
}

var (
	expression = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	// A third-party action pinned to a full commit, with the release it is
	// in a comment so that people and Dependabot can read it.
	pinnedUses = regexp.MustCompile(`^\s*(?:- )?uses: ([\w.-]+/[\w./-]+)@([0-9a-f]{40}) # v\d+(\.\d+)*\s*$`)
)

// checkAction returns every rule action.yml breaks; the rules are the
// design's: inputs reach the shell only through env, third-party actions
// are pinned, every input is used, the outputs come from a step that
// exists, and the failing step is the last.
func checkAction(a *action, raw string) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if a.Runs.Using != "composite" {
		bad("runs.using is %q, want composite", a.Runs.Using)
	}
	for _, line := range strings.Split(raw, "\n") {
		if strings.Contains(line, "uses:") && !strings.HasPrefix(strings.TrimSpace(line), "#") && !pinnedUses.MatchString(line) {
			bad("not pinned to a commit SHA with a version comment: %s", strings.TrimSpace(line))
		}
	}
	ids := map[string]bool{}
	var refs []string // every expression in env, with and if
	for i, s := range a.Runs.Steps {
		if s.ID != "" {
			ids[s.ID] = true
		}
		switch {
		case s.Uses != "" && s.Run != "":
			bad("step %d (%s) has both uses and run", i, s.Name)
		case s.Run != "":
			if s.Shell != "bash" {
				bad("step %q: shell is %q, want bash", s.Name, s.Shell)
			}
			// Any expression in a script is pasted in before bash parses it:
			// an input like "$(curl …)" would run. Values go through env.
			if expression.MatchString(s.Run) {
				bad("step %q: run contains an expression %q; pass it through env", s.Name, expression.FindString(s.Run))
			}
			if s.If != "" {
				bad("step %q: run steps must not be conditional (%q); test the input in the script so the step order stays fixed", s.Name, s.If)
			}
		case s.Uses == "":
			bad("step %d (%s) has neither uses nor run", i, s.Name)
		}
		for _, v := range s.Env {
			refs = append(refs, v)
		}
		for _, v := range s.With {
			refs = append(refs, v)
		}
		if s.If != "" {
			refs = append(refs, "${{ "+s.If+" }}")
		}
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			bad("input %s has no description", name)
		}
		used := regexp.MustCompile(`\binputs\.` + regexp.QuoteMeta(name) + `\b(?:[^-]|$)`)
		if !slices.ContainsFunc(refs, used.MatchString) {
			bad("input %s is never used", name)
		}
	}
	for _, r := range refs {
		for _, m := range regexp.MustCompile(`\binputs\.([\w-]+)`).FindAllStringSubmatch(r, -1) {
			if _, ok := a.Inputs[m[1]]; !ok {
				bad("%q uses input %s, which action.yml does not declare", r, m[1])
			}
		}
		for _, m := range regexp.MustCompile(`\bsteps\.([\w-]+)\.`).FindAllStringSubmatch(r, -1) {
			if !ids[m[1]] {
				bad("%q refers to step %s, which does not exist", r, m[1])
			}
		}
	}
	for name, o := range a.Outputs {
		m := regexp.MustCompile(`^\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}$`).FindStringSubmatch(o.Value)
		if m == nil || !ids[m[1]] {
			bad("output %s = %q is not a step output", name, o.Value)
		}
	}
	for _, name := range []string{"sarif-file", "findings", "errors", "exit-code"} {
		if _, ok := a.Outputs[name]; !ok {
			bad("output %s is missing", name)
		}
	}
	steps := a.Runs.Steps
	if len(steps) == 0 {
		return append(problems, "no steps")
	}
	// The caller's later steps must keep their own PATH and environment:
	// actions/setup-go adds its Go to GITHUB_PATH, which a composite
	// action cannot take back.
	for _, st := range steps {
		if strings.HasPrefix(st.Uses, "actions/setup-go@") {
			bad("step %q uses actions/setup-go, which leaves its Go on the PATH of the caller's later steps", st.Name)
		}
		for _, f := range []string{"GITHUB_PATH", "GITHUB_ENV"} {
			if strings.Contains(st.Run, f) {
				bad("step %q writes %s, which changes the caller's later steps", st.Name, f)
			}
		}
	}
	if steps[0].ID != "install" || !strings.Contains(steps[0].Run, "checksums.txt") {
		bad("the first step must be the install step (id install), which downloads a release and checks checksums.txt")
	}
	// A composite action has no post step: actions/cache would never save
	// (and saves only on success, while the job fails on findings). The
	// caches are restored before the build and saved right after it,
	// before linting, under the same key and path.
	usesStep := func(prefix string) int {
		return slices.IndexFunc(steps, func(s actionStep) bool { return strings.HasPrefix(s.Uses, prefix) })
	}
	if i := usesStep("actions/cache@"); i >= 0 {
		bad("step %q uses actions/cache, whose post-step save never runs in a composite action; use actions/cache/restore and actions/cache/save", steps[i].Name)
	}
	restore, save := usesStep("actions/cache/restore@"), usesStep("actions/cache/save@")
	build := slices.IndexFunc(steps, func(s actionStep) bool { return strings.Contains(s.Run, "go\" build") })
	lint := slices.IndexFunc(steps, func(s actionStep) bool { return s.ID == "podlint" })
	const key = "${{ steps.install.outputs.cache-key }}"
	switch {
	case restore < 0 || save < 0:
		bad("no actions/cache/restore and actions/cache/save steps for the build from source")
	case !(restore < build && build < save && save < lint):
		bad("the cache steps must be restore, build, save, lint in that order; got restore %d, build %d, save %d, lint %d", restore, build, save, lint)
	case steps[restore].If != "steps.install.outputs.build == 'true'" || steps[restore].With["key"] != key:
		bad("the cache step must run if steps.install.outputs.build == 'true' with key %s, got if %q, key %q", key, steps[restore].If, steps[restore].With["key"])
	case steps[save].If != "steps.install.outputs.build == 'true' && steps."+steps[restore].ID+".outputs.cache-hit != 'true'" ||
		steps[save].With["key"] != key || steps[save].With["path"] != steps[restore].With["path"]:
		bad("the save step must run if the build ran and the restore missed, with the restore's key and path; got if %q, key %q, path %q", steps[save].If, steps[save].With["key"], steps[save].With["path"])
	}
	last := steps[len(steps)-1]
	if last.Run == "" || !strings.Contains(last.Run, `exit "${PODLINT_EXIT`) {
		bad("the last step must fail the job with the recorded exit code, got %q", last.Run)
	}
	for _, s := range steps[:len(steps)-1] {
		if strings.Contains(s.Run, "PODLINT_EXIT") {
			bad("step %q fails the job before the last step", s.Name)
		}
	}
	upload := slices.IndexFunc(steps, func(s actionStep) bool { return strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") })
	if upload < 0 {
		bad("no github/codeql-action/upload-sarif step")
	} else if s := steps[upload]; s.If != "steps.podlint.outputs.upload == 'true'" || s.With["sarif_file"] != "${{ steps.podlint.outputs.sarif-file }}" ||
		s.With["category"] != "${{ inputs.category }}" {
		bad("the upload step must run if steps.podlint.outputs.upload == 'true' and upload steps.podlint.outputs.sarif-file with category inputs.category, got if %q, sarif_file %q, category %q",
			s.If, s.With["sarif_file"], s.With["category"])
	}
	return problems
}

func TestActionRules(t *testing.T) {
	a, raw := loadAction(t, filepath.Join(repoRoot(t), "action.yml"))
	for _, p := range checkAction(a, raw) {
		t.Error(p)
	}
}

// TestActionRulesCatchBreakage shows checkAction is not vacuous: each
// mutation of the real action.yml is a mistake it must report.
func TestActionRulesCatchBreakage(t *testing.T) {
	_, raw := loadAction(t, filepath.Join(repoRoot(t), "action.yml"))
	for _, c := range []struct{ name, old, new, want string }{
		{"input renamed where it is used", "${{ inputs.fail-on }}", "${{ inputs.failon }}", "input fail-on is never used"},
		{"expression in run", `exit "${PODLINT_EXIT:-2}"`, `exit ${{ steps.podlint.outputs.exit-code }}`, "run contains an expression"},
		{"tag instead of SHA", "actions/cache/restore@5a3ec84eff668545956fd18022155c47e93e2684 # v4.2.3", "actions/cache/restore@v4", "not pinned"},
		{"cache with a post step", "actions/cache/restore@", "actions/cache@", "post-step save never runs"},
		{"save after linting", "    - name: Save podlint's Go caches\n", "    - name: Save podlint's Go caches\n      id: podlint\n", "restore, build, save, lint"},
		{"save on a hit", "&& steps.restore-cache.outputs.cache-hit != 'true'", "", "the save step must run if"},
		{"setup-go", "    - name: Restore podlint's Go caches\n", "    - uses: actions/setup-go@d35c59abb061a4a6fb18e82ac0862c26744d6ab5 # v5.5.0\n    - name: Restore podlint's Go caches\n", "leaves its Go on the PATH"},
		{"PATH for later steps", "        \"$PODLINT_BIN\" version\n", "        \"$PODLINT_BIN\" version\n        dirname \"$go\" >>\"$GITHUB_PATH\"\n", "writes GITHUB_PATH"},
		{"cache on every ref", "if: steps.install.outputs.build == 'true'", "if: inputs.summary == 'true'", "the cache step must run if"},
		{"upload on a fork", "if: steps.podlint.outputs.upload == 'true'", "if: inputs.upload-sarif == 'true'", "the upload step must run if"},
		{"output from a missing step", "value: ${{ steps.podlint.outputs.findings }}", "value: ${{ steps.lint.outputs.findings }}", "output findings"},
		{"failing early", "        exit 0\n\n    - name: Write the job summary", "        exit \"$code\"\n        # PODLINT_EXIT\n\n    - name: Write the job summary", "fails the job before the last step"},
	} {
		mutated := strings.Replace(raw, c.old, c.new, 1)
		if mutated == raw {
			t.Fatalf("%s: action.yml no longer contains %q; update the test", c.name, c.old)
		}
		var a action
		if err := yaml.Unmarshal([]byte(mutated), &a); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		problems := checkAction(&a, mutated)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, c.want) }) {
			t.Errorf("%s: checkAction did not report %q; it said %q", c.name, c.want, problems)
		}
	}
}

// runner plays a GitHub Actions runner for a composite action: each run
// step is written to a file and executed like `shell: bash` on GitHub
// (bash --noprofile --norc -eo pipefail FILE) in the workspace, with its
// env expanded from the inputs and earlier step outputs, a fresh
// GITHUB_OUTPUT and GITHUB_ENV per step, and a shared GITHUB_STEP_SUMMARY
// and GITHUB_PATH. uses steps are not run: actions/cache/restore is played
// as a cache hit, or a miss with cacheMiss (its path gets this machine's
// Go module and build caches either way, as a restore would bring a
// runner's), and the save and upload are checked through the arguments
// they would get.
type runner struct {
	t          *testing.T
	a          *action
	inputs     map[string]string
	actionPath string
	workspace  string
	temp       string
	summary    string
	pathFile   string                       // GITHUB_PATH; must stay empty
	ref        string                       // github.action_ref
	github     map[string]string            // other github.* expressions
	extraEnv   []string                     // the job's env; later entries win
	env        map[string]string            // from GITHUB_ENV
	outputs    map[string]map[string]string // step id → outputs
	skipped    []actionStep                 // uses steps that would have run
	cacheMiss  bool                         // actions/cache/restore finds no cache
	log        strings.Builder
	failedStep string
	exitCode   int
}

// runnerOS and runnerArch are RUNNER_OS and RUNNER_ARCH of a GitHub runner
// like this machine.
func runnerOS() string {
	return map[string]string{"linux": "Linux", "darwin": "macOS", "windows": "Windows"}[runtime.GOOS]
}

func runnerArch() string {
	return map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
}

func newRunner(t *testing.T, a *action, actionPath, workspace string, inputs map[string]string) *runner {
	if runtime.GOOS == "windows" {
		t.Skip("the action's steps are run here on Linux and macOS; .github/workflows/action.yml runs them on a Windows runner")
	}
	r := &runner{t: t, a: a, actionPath: actionPath, workspace: workspace, temp: t.TempDir(),
		inputs: map[string]string{}, env: map[string]string{}, outputs: map[string]map[string]string{},
		github: map[string]string{
			"github.event_name": "push", "github.actor": "octocat", "github.repository": "octocat/manifests",
			"github.event.pull_request.head.repo.full_name": "",
		},
		// No test reaches the real releases: tests that download serve
		// their own (see action_install_test.go).
		extraEnv: []string{
			"PODLINT_RELEASE_BASE_URL=http://127.0.0.1:9/no-release",
			"PODLINT_RELEASE_GIT_URL=" + filepath.Join(workspace, "no-such-repository"),
		}}
	for name, in := range a.Inputs {
		r.inputs[name] = in.Default
	}
	for name, v := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("the test sets input %s, which action.yml does not declare", name)
		}
		r.inputs[name] = v
	}
	r.summary = filepath.Join(r.temp, "step_summary.md")
	r.pathFile = filepath.Join(r.temp, "path")
	for _, f := range []string{r.summary, r.pathFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// eval expands the expressions the action uses; anything else is an error,
// so the test cannot silently pass an unknown expression as "".
func (r *runner) eval(s string) string {
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		e := expression.FindStringSubmatch(m)[1]
		switch {
		case strings.HasPrefix(e, "inputs."):
			v, ok := r.inputs[strings.TrimPrefix(e, "inputs.")]
			if !ok {
				r.t.Errorf("expression %s: no such input", m)
			}
			return v
		case strings.HasPrefix(e, "steps."):
			parts := strings.Split(e, ".")
			if len(parts) != 4 || parts[2] != "outputs" {
				r.t.Errorf("unsupported expression %s", m)
				return ""
			}
			return r.outputs[parts[1]][parts[3]]
		case e == "github.action_path":
			return r.actionPath
		case e == "github.action_ref":
			return r.ref
		}
		if v, ok := r.github[e]; ok {
			return v
		}
		r.t.Errorf("the test runner does not know the expression %s", m)
		return ""
	})
}

// cond evaluates the if: forms the action uses on uses steps: an input or
// a step output compared with a word (== or !=), terms joined by &&.
func (r *runner) cond(s string) bool {
	if s == "" {
		return true
	}
	for _, term := range strings.Split(s, " && ") {
		m := regexp.MustCompile(`^((?:inputs|steps\.[\w-]+\.outputs)\.[\w-]+) (==|!=) '(\w+)'$`).FindStringSubmatch(term)
		if m == nil {
			r.t.Fatalf("the test runner cannot evaluate if: %s", s)
		}
		if (r.eval("${{ "+m[1]+" }}") == m[3]) != (m[2] == "==") {
			return false
		}
	}
	return true
}

// restoreCache plays a restore of actions/cache/restore: the cached directory
// gets this machine's Go module and build caches, so that the build from
// source is as quick as on a runner whose cache hits, and needs no network.
func (r *runner) restoreCache(s actionStep) {
	dir := s.With["path"]
	if !filepath.IsAbs(dir) || !strings.HasPrefix(dir, r.temp) {
		r.t.Fatalf("actions/cache path %q is not inside RUNNER_TEMP", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	for name, v := range map[string]string{"mod": "GOMODCACHE", "build": "GOCACHE"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			r.t.Fatalf("go env %s: %v", v, err)
		}
		if err := os.Symlink(strings.TrimSpace(string(out)), filepath.Join(dir, name)); err != nil {
			r.t.Fatal(err)
		}
	}
}

func (r *runner) run() {
	t := r.t
	for i, s := range r.a.Runs.Steps {
		if r.failedStep != "" {
			break // no step uses if: always()
		}
		if s.Uses != "" {
			if r.cond(s.If) {
				with := map[string]string{}
				for k, v := range s.With {
					with[k] = r.eval(v)
				}
				s.With = with
				if strings.HasPrefix(s.Uses, "actions/cache/restore@") {
					r.restoreCache(s)
					if s.ID != "" {
						r.outputs[s.ID] = map[string]string{"cache-hit": strconv.FormatBool(!r.cacheMiss)}
					}
				}
				r.skipped = append(r.skipped, s)
			}
			continue
		}
		script := filepath.Join(r.temp, fmt.Sprintf("step%d.sh", i))
		output := filepath.Join(r.temp, fmt.Sprintf("output%d", i))
		envFile := filepath.Join(r.temp, fmt.Sprintf("env%d", i))
		for _, f := range []string{script, output, envFile} {
			content := ""
			if f == script {
				content = s.Run
			}
			if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		built := r.seedBuild(s)
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
		cmd.Dir = r.workspace
		cmd.Env = append(os.Environ(),
			"GITHUB_ACTIONS=true",
			"GITHUB_ACTION_PATH="+r.actionPath,
			"GITHUB_WORKSPACE="+r.workspace,
			"RUNNER_TEMP="+r.temp,
			"GITHUB_OUTPUT="+output,
			"GITHUB_ENV="+envFile,
			"GITHUB_STEP_SUMMARY="+r.summary,
			"GITHUB_PATH="+r.pathFile,
			"RUNNER_OS="+runnerOS(),
			"RUNNER_ARCH="+runnerArch(),
			// Nothing may be downloaded but from the tests' own servers.
			"GOPROXY=off",
			"GOTOOLCHAIN=local",
			"no_proxy=127.0.0.1,localhost",
			"NO_PROXY=127.0.0.1,localhost",
		)
		cmd.Env = append(cmd.Env, r.extraEnv...)
		for _, k := range slices.Sorted(maps.Keys(r.env)) {
			cmd.Env = append(cmd.Env, k+"="+r.env[k])
		}
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			cmd.Env = append(cmd.Env, k+"="+r.eval(s.Env[k]))
		}
		out, err := cmd.CombinedOutput()
		fmt.Fprintf(&r.log, "##[group]%s\n%s##[endgroup]\n", s.Name, out)
		if s.ID != "" {
			r.outputs[s.ID] = readCommandFile(t, output)
		}
		maps.Copy(r.env, readCommandFile(t, envFile))
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("step %q: %v", s.Name, err)
			}
			r.failedStep, r.exitCode = s.Name, ee.ExitCode()
		}
		if built != "" && err == nil {
			keepBuild(t, r.ref, built)
		}
	}
}

// builds holds, by github.action_ref (the one input of the build step that
// changes the binary: its -ldflags), a podlint the action's build step
// made, in a folder kept between test runs (testbin). Every test that
// builds from source runs the step, but linking the same 60 MB executable
// again took 10 to 20 s each (most of TestAction's time): seedBuild puts
// the earlier output where the step writes, and go build, which finds it up
// to date (the build ID in the file matches what the sources and flags
// give), links nothing; when the sources changed, it links again. The
// refs are the same on every run (the test's tag repository is made with
// fixed dates, see git), so a run after an unchanged build links nothing.
var builds struct {
	sync.Mutex
	dir       string
	temporary bool            // dir is removed by TestMain
	kept      map[string]bool // refs whose build this run has kept
}

// buildPath is where the build of ref is kept.
func buildPath(t *testing.T, ref string) string {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	if builds.dir == "" {
		dir, temporary, err := testbin.Dir(repoRoot(t), "integration-action")
		if err != nil {
			t.Fatal(err)
		}
		builds.dir, builds.temporary, builds.kept = dir, temporary, map[string]bool{}
	}
	sum := sha256.Sum256([]byte(ref))
	return filepath.Join(builds.dir, "podlint-"+hex.EncodeToString(sum[:8]))
}

// seedBuild copies an earlier build of the same ref to the build step's
// output when s is that step and it is to build; it returns the output's
// path ("" for other steps).
func (r *runner) seedBuild(s actionStep) string {
	if s.Name != "Build podlint" || r.outputs["install"]["build"] != "true" {
		return ""
	}
	target := r.outputs["install"]["podlint"]
	if target == "" {
		return ""
	}
	if prev := buildPath(r.t, r.ref); fileExists(prev) && fileExists(prev+"-render") && fileExists(prev+"-observe") {
		for _, f := range [][2]string{{prev, target}, {prev + "-render", beside(target, "render")}, {prev + "-observe", beside(target, "observe")}} {
			if err := copyFile(f[0], f[1]); err != nil {
				r.t.Fatal(err)
			}
		}
	}
	return target
}

// beside is the podlint-render or podlint-observe (what) the action builds
// beside podlint.
func beside(podlint, what string) string {
	return filepath.Join(filepath.Dir(podlint), strings.Replace(filepath.Base(podlint), "podlint", "podlint-"+what, 1))
}

// keepBuild keeps the build step's output for ref, once per run. It
// writes a new file and renames it, so a test of another package or run
// that copies the kept build never reads half a file.
func keepBuild(t *testing.T, ref, built string) {
	kept := buildPath(t, ref)
	builds.Lock()
	defer builds.Unlock()
	if builds.kept[ref] {
		return
	}
	for _, f := range [][2]string{{beside(built, "render"), kept + "-render"}, {beside(built, "observe"), kept + "-observe"}, {built, kept}} {
		tmp := fmt.Sprintf("%s.%d.tmp", f[1], os.Getpid())
		if err := copyFile(f[0], tmp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, f[1]); err != nil {
			t.Fatal(err)
		}
	}
	builds.kept[ref] = true
}

// copyFile copies an executable.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

// readCommandFile parses GITHUB_OUTPUT and GITHUB_ENV: name=value lines and
// name<<DELIMITER blocks.
func readCommandFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vals := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var body []string
			for sc.Scan() && sc.Text() != delim {
				body = append(body, sc.Text())
			}
			vals[name] = strings.Join(body, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("%s: malformed line %q", path, line)
			continue
		}
		vals[name] = value
	}
	return vals
}

// checkCallerEnv fails the test when the action changed what the caller's
// later steps see: their PATH or environment.
func (r *runner) checkCallerEnv() {
	if b, err := os.ReadFile(r.pathFile); err != nil || len(b) > 0 {
		r.t.Errorf("the action wrote GITHUB_PATH (%v): %q", err, b)
	}
	if len(r.env) > 0 {
		r.t.Errorf("the action wrote GITHUB_ENV: %v", r.env)
	}
}

// stepLog returns what the named run step printed.
func (r *runner) stepLog(name string) string {
	_, after, _ := strings.Cut(r.log.String(), "##[group]"+name+"\n")
	before, _, _ := strings.Cut(after, "##[endgroup]")
	return before
}

// used returns the uses step with the given action that would have run.
func (r *runner) used(action string) (actionStep, bool) {
	i := slices.IndexFunc(r.skipped, func(s actionStep) bool { return strings.HasPrefix(s.Uses, action+"@") })
	if i < 0 {
		return actionStep{}, false
	}
	return r.skipped[i], true
}

func (r *runner) output(name string) string {
	return r.eval(r.a.Outputs[name].Value)
}

func (r *runner) summaryText() string {
	b, err := os.ReadFile(r.summary)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// sarifResults reads the SARIF file and returns its results' rule IDs.
func sarifResults(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("SARIF file: %v", err)
	}
	var doc struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != "2.1.0" || len(doc.Runs) != 1 {
		t.Fatalf("%s is not a one-run SARIF 2.1.0 log (%v):\n%s", path, err, b)
	}
	ids := []string{}
	for _, res := range doc.Runs[0].Results {
		ids = append(ids, res.RuleID)
	}
	return ids
}

// TestAction runs action.yml's steps against manifest sets and checks what
// a workflow would see: the outputs, the SARIF file the upload step gets,
// the annotations in the log, the job summary and the job's result.
// TestActionLintsOnce checks that the action reads, renders and lints the
// manifests once: one podlint check writes the log, the SARIF file, the
// annotations and the job summary (its timelines included); only the
// optional fix gate runs podlint again.
func TestActionLintsOnce(t *testing.T) {
	a, _ := loadAction(t, filepath.Join(repoRoot(t), "action.yml"))
	call := regexp.MustCompile(`"\$(?:podlint|PODLINT_BIN)"[ \t]+(\w+)`)
	var lints []string
	for _, st := range a.Runs.Steps {
		for _, m := range call.FindAllStringSubmatch(st.Run, -1) {
			if m[1] != "version" && m[1] != "fix" {
				lints = append(lints, st.Name+": podlint "+m[1])
			}
		}
	}
	if len(lints) != 1 || !strings.HasSuffix(lints[0], "podlint check") {
		t.Errorf("want one podlint check in the action's steps, got %q", lints)
	}
}

func TestAction(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the action's steps are run here on Linux and macOS; .github/workflows/action.yml runs them on a Windows runner")
	}
	root := repoRoot(t)
	a, _ := loadAction(t, filepath.Join(root, "action.yml"))

	t.Run("clean", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"k8s/web.yaml": goodPod, ".github/workflows/ci.yaml": notKubernetes})
		r := releasedRunner(t, a, root, ws, map[string]string{"upload-sarif": "true"})
		r.run()
		if r.failedStep != "" {
			t.Fatalf("step %q failed with %d on clean manifests:\n%s", r.failedStep, r.exitCode, &r.log)
		}
		if got := [3]string{r.output("exit-code"), r.output("findings"), r.output("sarif-file")}; got != [3]string{"0", "0", filepath.Join(r.temp, "podlint.sarif")} {
			t.Errorf("outputs exit-code, findings, sarif-file = %q", got)
		}
		if ids := sarifResults(t, r.output("sarif-file")); len(ids) != 0 {
			t.Errorf("SARIF has results %v", ids)
		}
		if up, ok := r.used("github/codeql-action/upload-sarif"); !ok || up.With["sarif_file"] != r.output("sarif-file") || up.With["category"] != "podlint" {
			t.Errorf("the upload step would not upload the SARIF file with category podlint: %+v", r.skipped)
		}
		r.checkCallerEnv()
		if s := r.summaryText(); !strings.Contains(s, "## podlint\n") || !strings.Contains(s, "no findings") {
			t.Errorf("summary:\n%s", s)
		}
	})

	t.Run("failing", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"k8s/web.yaml": goodPod, "k8s/api.yaml": badPod})
		r := releasedRunner(t, a, root, ws, map[string]string{"paths": "k8s/api.yaml\nk8s/web.yaml"})
		r.run()
		if r.failedStep != "Fail on findings" || r.exitCode != 1 {
			t.Fatalf("want only the last step to fail, with 1; step %q failed with %d:\n%s", r.failedStep, r.exitCode, &r.log)
		}
		if r.output("exit-code") != "1" || r.output("findings") != "1" {
			t.Errorf("outputs exit-code %q, findings %q; want 1, 1", r.output("exit-code"), r.output("findings"))
		}
		if ids := sarifResults(t, r.output("sarif-file")); !slices.Equal(ids, []string{"PL113"}) {
			t.Errorf("SARIF results %v, want [PL113]", ids)
		}
		if _, ok := r.used("github/codeql-action/upload-sarif"); ok {
			t.Errorf("upload-sarif defaults to false, but the upload step would run")
		}
		if r.output("errors") != "1" {
			t.Errorf("output errors %q, want 1", r.output("errors"))
		}
		log := r.log.String()
		if want := fmt.Sprintf("::error file=k8s/api.yaml,line=%d,", badPodLine); !strings.Contains(log, want) {
			t.Errorf("log lacks the annotation %s:\n%s", want, log)
		}
		if want := fmt.Sprintf("k8s/api.yaml:%d:", badPodLine); !strings.Contains(log, want) {
			t.Errorf("log lacks the text report line %s:\n%s", want, log)
		}
		s := r.summaryText()
		if !strings.Contains(s, "### Errors (1)") || !strings.Contains(s, fmt.Sprintf("| k8s/api.yaml:%d:", badPodLine)) || !strings.Contains(s, "[PL113](") {
			t.Errorf("summary lacks the finding's row:\n%s", s)
		}
		// The summary ends with the workload's timeline, the chart `podlint
		// timeline -f mermaid` draws.
		tl := exec.Command(filepath.Join(r.temp, "podlint"), "timeline", "-f", "mermaid", "--", "k8s/api.yaml")
		tl.Dir = ws
		chart, err := tl.Output()
		if err != nil || !strings.Contains(s, "<details><summary>Pod api (<code>k8s/api.yaml:1</code>)</summary>\n\n"+strings.TrimSpace(string(chart))) {
			t.Errorf("the summary lacks the timeline podlint timeline draws (%v):\n%s", err, s)
		}
	})

	t.Run("inputs", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{
			"k8s/api.yaml": badPod,
			// A config the action must pick up through the config input.
			"ci/podlint.yaml": "disable: [PL113]\n",
		})
		r := releasedRunner(t, a, root, ws, map[string]string{
			"config": "ci/podlint.yaml", "kube-version": "1.29", "sarif-file": "reports/podlint.sarif",
			"annotations": "false", "summary": "false", "format": "json", "fail-on": "info", "args": "--enable PL113",
		})
		r.run()
		if r.failedStep != "Fail on findings" || r.exitCode != 1 {
			t.Fatalf("want only the last step to fail, with 1 (--enable in args wins over the config's disable); step %q exited %d:\n%s", r.failedStep, r.exitCode, &r.log)
		}
		if r.output("sarif-file") != "reports/podlint.sarif" {
			t.Errorf("sarif-file output %q", r.output("sarif-file"))
		}
		if ids := sarifResults(t, filepath.Join(ws, "reports", "podlint.sarif")); len(ids) != 1 {
			t.Errorf("SARIF results %v, want one", ids)
		}
		if log := r.log.String(); strings.Contains(log, "::error") || !strings.Contains(log, `"id": "PL113"`) {
			t.Errorf("want a json report and no annotations in the log:\n%s", log)
		}
		if s := r.summaryText(); s != "" {
			t.Errorf("summary: false, but the summary is:\n%s", s)
		}
	})

	t.Run("inputs are data", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"k8s/web.yaml": goodPod})
		r := releasedRunner(t, a, root, ws, map[string]string{
			"paths": "k8s $(touch pwned-paths) `touch pwned-backtick` *", "args": "--disable=PL113;touch${IFS}pwned-args",
		})
		r.run()
		for _, f := range []string{"pwned-paths", "pwned-backtick", "pwned-args", "touch"} {
			if _, err := os.Stat(filepath.Join(ws, f)); err == nil {
				t.Errorf("an input ran as shell code: %s exists", f)
			}
		}
		// "$(touch" is a path that does not exist: a usage/I-O error, exit 2.
		if r.output("exit-code") != "2" || r.failedStep != "Fail on findings" || r.exitCode != 2 {
			t.Errorf("exit-code %q, step %q exited %d; want 2 from the last step:\n%s", r.output("exit-code"), r.failedStep, r.exitCode, &r.log)
		}
	})

	t.Run("working-directory and category", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{
			"deploy/k8s/api.yaml":  badPod,
			"deploy/.podlint.yaml": "kube-version: \"1.29\"\n",
			"k8s/api.yaml":         badPod, // outside the working directory: not linted
		})
		r := releasedRunner(t, a, root, ws, map[string]string{
			"working-directory": "deploy", "paths": "k8s", "category": "podlint-prod", "upload-sarif": "true", "sarif-file": "out/podlint.sarif",
		})
		r.run()
		if r.failedStep != "Fail on findings" || r.exitCode != 1 || r.output("findings") != "1" || r.output("errors") != "1" {
			t.Fatalf("want one error and the last step failing with 1; step %q exited %d, findings %q errors %q:\n%s",
				r.failedStep, r.exitCode, r.output("findings"), r.output("errors"), &r.log)
		}
		// Paths in every report are relative to the repository root, where
		// code scanning and annotations resolve them.
		if want := fmt.Sprintf("::error file=deploy/k8s/api.yaml,line=%d,", badPodLine); !strings.Contains(r.log.String(), want) {
			t.Errorf("log lacks the annotation %s:\n%s", want, &r.log)
		}
		sarifPath := filepath.Join(ws, "out", "podlint.sarif")
		raw, err := os.ReadFile(sarifPath)
		if err != nil {
			t.Fatalf("a relative sarif-file is relative to the workspace: %v", err)
		}
		var doc struct {
			Runs []struct {
				AutomationDetails struct {
					ID string `json:"id"`
				} `json:"automationDetails"`
				Results []struct {
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Runs) != 1 || len(doc.Runs[0].Results) != 1 {
			t.Fatalf("SARIF (%v):\n%s", err, raw)
		}
		run := doc.Runs[0]
		if run.AutomationDetails.ID != "podlint-prod/" || run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI != "deploy/k8s/api.yaml" {
			t.Errorf("SARIF automationDetails.id %q, uri %q; want podlint-prod/ and deploy/k8s/api.yaml",
				run.AutomationDetails.ID, run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI)
		}
		up, ok := r.used("github/codeql-action/upload-sarif")
		if !ok || up.With["category"] != "podlint-prod" || up.With["sarif_file"] != "out/podlint.sarif" {
			t.Errorf("the upload would not use category podlint-prod and out/podlint.sarif: %+v", up)
		}
		s := r.summaryText()
		if !strings.Contains(s, fmt.Sprintf("deploy/k8s/api.yaml:%d:", badPodLine)) {
			t.Errorf("summary lacks the finding:\n%s", s)
		}
		// The timeline is drawn in the working directory, with its config.
		tl := exec.Command(r.outputs["install"]["podlint"], "timeline", "-f", "mermaid", "--", "k8s/api.yaml")
		tl.Dir = filepath.Join(ws, "deploy")
		if chart, err := tl.Output(); err != nil || !strings.Contains(s, "<details><summary>Pod api (<code>deploy/k8s/api.yaml:1</code>)</summary>\n\n"+strings.TrimSpace(string(chart))) {
			t.Errorf("the summary lacks the timeline of deploy/k8s/api.yaml drawn in deploy/ (%v):\n%s", err, s)
		}
		r.checkCallerEnv()
	})

	t.Run("format names one format", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"k8s/web.yaml": goodPod})
		r := releasedRunner(t, a, root, ws, map[string]string{"format": "sarif=k8s/web.yaml"})
		r.run()
		if r.failedStep != "Fail on findings" || r.exitCode != 2 || !strings.Contains(r.log.String(), "::error title=podlint::format is the log's format alone") {
			t.Errorf("want an error and exit 2 from the last step; step %q exited %d:\n%s", r.failedStep, r.exitCode, &r.log)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "k8s", "web.yaml")); string(b) != goodPod {
			t.Errorf("the format input wrote a report over a manifest")
		}
	})

	t.Run("missing working-directory", func(t *testing.T) {
		r := releasedRunner(t, a, root, t.TempDir(), map[string]string{"working-directory": "nope"})
		r.run()
		if r.failedStep != "Fail on findings" || r.exitCode != 2 || !strings.Contains(r.log.String(), "::error title=podlint::working-directory 'nope' does not exist") {
			t.Errorf("want an error and exit 2 from the last step; step %q exited %d:\n%s", r.failedStep, r.exitCode, &r.log)
		}
	})

	// GitHub gives these runs a read-only token: the upload would fail.
	for name, github := range map[string]map[string]string{
		"fork pull request": {"github.event_name": "pull_request", "github.event.pull_request.head.repo.full_name": "someone/manifests"},
		"Dependabot":        {"github.event_name": "pull_request", "github.actor": "dependabot[bot]", "github.event.pull_request.head.repo.full_name": "octocat/manifests"},
	} {
		t.Run("no upload on a "+name, func(t *testing.T) {
			ws := t.TempDir()
			writeFiles(t, ws, map[string]string{"k8s/web.yaml": goodPod})
			r := releasedRunner(t, a, root, ws, map[string]string{"upload-sarif": "true"})
			maps.Copy(r.github, github)
			r.run()
			if r.failedStep != "" {
				t.Fatalf("step %q failed with %d:\n%s", r.failedStep, r.exitCode, &r.log)
			}
			if _, ok := r.used("github/codeql-action/upload-sarif"); ok {
				t.Errorf("the upload step would run with a read-only token")
			}
			if !strings.Contains(r.log.String(), "::notice title=podlint::SARIF not uploaded:") {
				t.Errorf("no notice that the upload was skipped:\n%s", &r.log)
			}
		})
	}
	t.Run("upload on a pull request from a branch", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"k8s/web.yaml": goodPod})
		r := releasedRunner(t, a, root, ws, map[string]string{"upload-sarif": "true"})
		maps.Copy(r.github, map[string]string{"github.event_name": "pull_request", "github.event.pull_request.head.repo.full_name": "octocat/manifests"})
		r.run()
		if _, ok := r.used("github/codeql-action/upload-sarif"); !ok || strings.Contains(r.log.String(), "::notice") {
			t.Errorf("a pull request from a branch of the repository must upload, silently:\n%s", &r.log)
		}
	})

	// The examples the README shows; the summary is what a user sees.
	examples := filepath.Join(root, "testdata", "examples")
	if _, err := os.Stat(examples); err == nil {
		t.Run("examples", func(t *testing.T) {
			ws := t.TempDir()
			if err := os.CopyFS(filepath.Join(ws, "examples"), os.DirFS(examples)); err != nil {
				t.Fatal(err)
			}
			r := releasedRunner(t, a, root, ws, map[string]string{"paths": "examples"})
			r.run()
			if r.output("exit-code") != "1" || r.exitCode != 1 {
				t.Errorf("exit-code %q, job exit %d; the examples are there to show findings", r.output("exit-code"), r.exitCode)
			}
			t.Logf("job summary for testdata/examples:\n%s", r.summaryText())
		})
	}
}
