package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// git runs git in dir with a fixed identity and fixed dates, failing the
// test on error. The dates make a commit's hash depend on its content
// alone, so the refs of the action's builds are the same on every run and
// their kept builds are found (builds).
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=podlint test", "-c", "user.email=test@podlint.invalid",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	const date = "2026-01-01T00:00:00Z"
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// hookRepo commits a copy of this checkout's files as they are on disk,
// tracked or not (but not ignored), to a new repository: pre-commit needs a
// commit to clone, and the test must exercise the working tree, not the
// last commit.
func hookRepo(t *testing.T) (dir, rev string) {
	t.Helper()
	root := repoRoot(t)
	list := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Skipf("cannot list the checkout's files with git (%v); the pre-commit test needs a git checkout", err)
	}
	dir = t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		data, err := os.ReadFile(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "podlint under test")
	return dir, git(t, dir, "rev-parse", "HEAD")
}

var (
	summaryLine = regexp.MustCompile(`(?m)^\d+ files?, \d+ objects? `)
	snippetRepo = regexp.MustCompile(`(?m)^(\s*- repo: ).*$`)
	snippetRev  = regexp.MustCompile(`(?m)^(\s*rev: ).*$`)
)

// TestPreCommit installs the hooks of .pre-commit-hooks.yaml with
// pre-commit itself, configured by the snippets of docs/ci.md, and commits
// good and bad manifests.
func TestPreCommit(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	for _, tool := range []string{"pre-commit", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; install it to run the pre-commit hook test (Debian: apt-get install pre-commit)", tool)
		}
	}
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	slowTest(t, "builds podlint from source with pre-commit's golang hook (go install -trimpath)")
	hooks, rev := hookRepo(t)
	compileAsRelease(t)
	// pre-commit's golang language runs `go install ./...` with GOPATH set
	// to its own directory, which would mean an empty module cache and a
	// download. GOMODCACHE wins over GOPATH, so the modules already on this
	// machine are used; GOPROXY=off proves nothing is fetched.
	// The hook repository is a new folder on every run, and without
	// -trimpath a package's folder is part of its key in the build cache:
	// every package of podlint was compiled again (most of the test's
	// 35 s). With -trimpath and without cgo, as the action builds
	// (TestActionInstall), the packages are the ones compileAsRelease
	// compiled for both, in this run or an earlier one; what is left is the
	// link. podlint needs neither cgo nor its source paths at run time
	// (the release is built the same way).
	home := t.TempDir()
	env := append(os.Environ(),
		"PRE_COMMIT_HOME="+home,
		"GOMODCACHE="+strings.TrimSpace(string(modcache)),
		"GOFLAGS=-mod=mod -trimpath",
		"CGO_ENABLED=0",
		"GOPROXY=off",
		"GOTOOLCHAIN=local",
		"SKIP=",
		"PRE_COMMIT_COLOR=never",
	)

	for _, c := range []struct {
		snippet string
		args    []string // after `pre-commit run`
	}{
		{"pre-commit", []string{"podlint", "--all-files"}},
		{"pre-commit-all", []string{"podlint-all"}},
	} {
		t.Run(c.snippet, func(t *testing.T) {
			cfg := snippet(t, c.snippet)
			cfg = snippetRepo.ReplaceAllString(cfg, "${1}"+hooks)
			cfg = snippetRev.ReplaceAllString(cfg, "${1}"+rev)
			if !strings.Contains(cfg, hooks) || !strings.Contains(cfg, rev) {
				t.Fatalf("could not point the snippet at the test's hook repository:\n%s", cfg)
			}
			project := t.TempDir()
			git(t, project, "init", "-q")
			writeFiles(t, project, map[string]string{
				".pre-commit-config.yaml":   cfg,
				"k8s/web.yaml":              goodPod,
				".github/workflows/ci.yaml": notKubernetes, // not Kubernetes: skipped silently
				"k8s/empty.yaml":            "# nothing here yet\n",
			})
			// A chart: rendered, without any step before the hook.
			writeFiles(t, project, shopChart("charts/shop", false))
			git(t, project, "add", "-A")

			run := func() (int, string) {
				cmd := exec.Command("pre-commit", append([]string{"run"}, c.args...)...)
				cmd.Dir = project
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				if ee, ok := err.(*exec.ExitError); ok {
					return ee.ExitCode(), string(out)
				} else if err != nil {
					t.Fatal(err)
				}
				return 0, string(out)
			}
			if code, out := run(); code != 0 {
				t.Fatalf("hook failed on good manifests (exit %d):\n%s", code, out)
			}

			writeFiles(t, project, map[string]string{"k8s/api.yaml": badPod})
			git(t, project, "add", "-A")
			code, out := run()
			if code != 1 {
				t.Fatalf("hook exit %d on a bad manifest, want 1:\n%s", code, out)
			}
			if want := fmt.Sprintf("k8s/api.yaml:%d:", badPodLine); !strings.Contains(out, want) || !strings.Contains(out, "PL113") {
				t.Errorf("hook output lacks %s … PL113:\n%s", want, out)
			}
			if strings.Contains(out, "ci.yaml") || strings.Contains(out, "templates/deployment.yaml") {
				t.Errorf("hook reported a file it should skip:\n%s", out)
			}
			// require_serial: one podlint process gets every file, so one
			// summary line (pre-commit would otherwise split the files
			// between processes, one per CPU).
			if n := len(summaryLine.FindAllString(out, -1)); n != 1 {
				t.Errorf("want one podlint summary line, got %d:\n%s", n, out)
			}
			// go install ./... in the hook repository installs podlint and
			// the podlint-render and podlint-observe it starts, nothing else.
			bins, _ := filepath.Glob(filepath.Join(home, "*", "golangenv-*", "bin", "*"))
			var names []string
			for _, b := range bins {
				names = append(names, filepath.Base(b))
			}
			if slices.Sort(names); !slices.Equal(names, []string{"podlint", "podlint-observe", "podlint-render"}) {
				t.Errorf("pre-commit installed %v, want podlint, podlint-observe and podlint-render alone", bins)
			}

			// A values change breaks the chart: the hook reports it in the
			// template, with the values line.
			writeFiles(t, project, shopChart("charts/shop", true))
			writeFiles(t, project, map[string]string{"k8s/api.yaml": goodPod})
			git(t, project, "add", "-A")
			code, out = run()
			if want := fmt.Sprintf("charts/shop/templates/deployment.yaml:%d:", shopChartLine); code != 1 || !strings.Contains(out, want) ||
				!strings.Contains(out, "charts/shop/values.yaml:5:") || strings.Contains(out, "helm-template") {
				t.Errorf("hook exit %d; want PL113 at %s with values.yaml related:\n%s", code, want, out)
			}
		})
	}
}

// TestGoInstallInstallsOnlyPodlint: pre-commit's golang language installs a
// hook with `go install ./...`, so cmd/podlint and the executables it
// starts, cmd/podlint-render and cmd/podlint-observe, must be the only
// commands the pattern matches. bench/gencorpus, the benchmark tools (bench/floor,
// bench/perfdoc) and internal/gendocs/cmd are kept out by build tags; they
// must still compile with them. (go list -export compiles without linking
// or vetting: go vet computed its facts for every dependency again, a
// minute of CPU on an empty build cache, and linking the four tools took
// another twenty seconds; .ci/run vets them with their tags.)
func TestGoInstallInstallsOnlyPodlint(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	list := exec.Command("go", "list", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./...")
	list.Dir = repoRoot(t)
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	want := []string{"github.com/podlint/podlint/cmd/podlint", "github.com/podlint/podlint/cmd/podlint-observe", "github.com/podlint/podlint/cmd/podlint-render"}
	if got := strings.Fields(string(out)); !slices.Equal(got, want) {
		t.Errorf("go install ./... would install %v; want %v alone (put other commands behind a build tag)", got, want)
	}
	for tag, pkg := range map[string]string{"gencorpus": "./bench/gencorpus", "benchtools": "./bench/...", "gendocs": "./internal/gendocs/cmd"} {
		build := exec.Command("go", "list", "-export", "-tags", tag, "-f", "{{.Export}}", pkg)
		build.Dir = repoRoot(t)
		if out, err := build.CombinedOutput(); err != nil {
			t.Errorf("go list -export -tags %s %s (compiling): %v\n%s", tag, pkg, err, out)
		}
	}
}

// preCommitHook is the part of a .pre-commit-hooks.yaml entry the tests
// compare.
type preCommitHook struct {
	ID            string   `yaml:"id"`
	Name          string   `yaml:"name"`
	Description   string   `yaml:"description"`
	Language      string   `yaml:"language"`
	Entry         string   `yaml:"entry"`
	Types         []string `yaml:"types"`
	RequireSerial bool     `yaml:"require_serial"`
	PassFilenames *bool    `yaml:"pass_filenames"`
	AlwaysRun     bool     `yaml:"always_run"`
	Args          []string `yaml:"args"`
}

// TestPreCommitSystemHook: the podlint-system hook (for machines whose Go
// cannot build podlint) is the podlint hook with language: system, so it
// runs the podlint on the PATH on the same files; the docs/ci.md snippet
// uses it. pre-commit runs a system hook as entry, args, then the file
// names, which is played here with the binary on the PATH, so the test
// needs no pre-commit (TestPreCommit runs the real thing where it is
// installed).
func TestPreCommitSystemHook(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(raw, &hooks); err != nil {
		t.Fatal(err)
	}
	byID := map[string]preCommitHook{}
	for _, h := range hooks {
		byID[h.ID] = h
	}
	golang, system := byID["podlint"], byID["podlint-system"]
	if golang.Language != "golang" || system.Language != "system" {
		t.Fatalf("want hook podlint with language golang and podlint-system with language system, got %+v and %+v", golang, system)
	}
	same := func(h preCommitHook) preCommitHook {
		h.ID, h.Name, h.Description, h.Language = "", "", "", ""
		return h
	}
	if !reflect.DeepEqual(same(golang), same(system)) {
		t.Errorf("podlint-system must lint the same files as podlint:\n%+v\n%+v", golang, system)
	}
	if cfg := snippet(t, "pre-commit-system"); !strings.Contains(cfg, "id: podlint-system") {
		t.Errorf("the docs/ci.md snippet does not use podlint-system:\n%s", cfg)
	}

	bin := podlintBinary(t)
	project := t.TempDir()
	writeFiles(t, project, map[string]string{"k8s/web.yaml": goodPod, "k8s/api.yaml": badPod, ".github/workflows/ci.yaml": notKubernetes})
	entry := strings.Fields(system.Entry)
	cmd := exec.Command(filepath.Join(filepath.Dir(bin), entry[0]), append(entry[1:], "k8s/web.yaml", "k8s/api.yaml", ".github/workflows/ci.yaml")...)
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(filepath.ListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), fmt.Sprintf("k8s/api.yaml:%d:", badPodLine)) {
		t.Errorf("the system hook's command: %v, want exit 1 with the finding in k8s/api.yaml:\n%s", err, out)
	}
}

// TestPreCommitFixHook: the podlint-fix hook runs podlint fix on the staged
// files: it writes the safe fixes (pre-commit then fails the commit, since
// the hook changed a file) and exits as the fix gate does. Played with the
// binary on the PATH, as TestPreCommitSystemHook plays its hook.
func TestPreCommitFixHook(t *testing.T) {
	t.Parallel() // runs programs in folders of its own
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []preCommitHook
	if err := yaml.Unmarshal(raw, &hooks); err != nil {
		t.Fatal(err)
	}
	var hook *preCommitHook
	for i := range hooks {
		if hooks[i].ID == "podlint-fix" {
			hook = &hooks[i]
		}
	}
	if hook == nil || !strings.HasPrefix(hook.Entry, "podlint fix --pre-commit") || !hook.RequireSerial || !slices.Contains(hook.Types, "yaml") {
		t.Fatalf("want a hook podlint-fix running podlint fix --pre-commit on YAML files, serially: %+v", hook)
	}
	if cfg := snippet(t, "pre-commit-fix"); !strings.Contains(cfg, "id: podlint-fix") {
		t.Errorf("the docs/ci.md snippet does not use podlint-fix:\n%s", cfg)
	}
	const fixable = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n    - name: app\n      image: nginx\n      livenessProbe:\n        httpGet: {path: /healthz, port: 8080}\n        successThreshold: 3\n      readinessProbe:\n        httpGet: {path: /ready, port: 8080}\n"
	bin := podlintBinary(t)
	project := t.TempDir()
	writeFiles(t, project, map[string]string{"k8s/pod.yaml": fixable})
	entry := strings.Fields(hook.Entry)
	cmd := exec.Command(filepath.Join(filepath.Dir(bin), entry[0]), append(entry[1:], "k8s/pod.yaml")...)
	cmd.Dir = project
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("the fix hook's command: %v, want exit 0 (the only error is fixed):\n%s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(project, "k8s", "pod.yaml"))
	if want := strings.Replace(fixable, "successThreshold: 3", "successThreshold: 1", 1); string(got) != want {
		t.Errorf("the hook left:\n%s\nwant:\n%s", got, want)
	}
}
