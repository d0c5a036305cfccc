package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	yaml "go.yaml.in/yaml/v3"

	"github.com/podlint/podlint/internal/version"
)

// goreleaserConfig is the part of .goreleaser.yaml the tests read.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Tags    []string `yaml:"tags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		IDs             []string `yaml:"ids"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		NameTemplate string `yaml:"name_template"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	DockersV2 []struct {
		IDs        []string `yaml:"ids"`
		Dockerfile string   `yaml:"dockerfile"`
		Images     []string `yaml:"images"`
		Platforms  []string `yaml:"platforms"`
	} `yaml:"dockers_v2"`
}

// TestGoreleaserConfig checks .goreleaser.yaml against what the rest of
// the repository assumes: the archive names and checksums file action.yml
// downloads, the platforms, a static and reproducible build, ldflags that
// set variables internal/version has, and a non-root image whose entry
// point is podlint. `goreleaser check` validates the schema; this checks
// the meaning.
func TestGoreleaserConfig(t *testing.T) {
	root := repoRoot(t)
	raw, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 || cfg.ProjectName != "podlint" || len(cfg.Builds) != 3 || len(cfg.Archives) != 1 || len(cfg.DockersV2) != 1 {
		t.Fatalf("want a GoReleaser v2 config for podlint with three builds (podlint, podlint-render, podlint-observe), one archive and one image: %+v", cfg)
	}
	b := cfg.Builds[0]
	if b.Main != "./cmd/podlint" || b.Binary != "podlint" || !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf("the build must be ./cmd/podlint, binary podlint, CGO_ENABLED=0, -trimpath: %+v", b)
	}
	// podlint starts podlint-render from its own folder for every chart
	// and kustomization, and podlint-observe for a live cluster: the three
	// are built alike and shipped together.
	for i, name := range []string{"podlint-render", "podlint-observe"} {
		r := cfg.Builds[1+i]
		if r.Main != "./cmd/"+name || r.Binary != name || !slices.Equal(r.Env, b.Env) || !slices.Equal(r.Flags, b.Flags) ||
			!slices.Equal(r.Tags, b.Tags) || !slices.Equal(r.Ldflags, b.Ldflags) || !slices.Equal(r.Goos, b.Goos) || !slices.Equal(r.Goarch, b.Goarch) {
			t.Errorf("build %d must be ./cmd/%s, binary %s, with podlint's settings: %+v", 2+i, name, name, r)
		}
	}
	for what, ids := range map[string][]string{"the archive": cfg.Archives[0].IDs, "the image": cfg.DockersV2[0].IDs} {
		if want := []string{b.ID, cfg.Builds[1].ID, cfg.Builds[2].ID}; !slices.Equal(ids, want) {
			t.Errorf("%s holds the builds %v; want all three, %v", what, ids, want)
		}
	}
	slices.Sort(b.Goos)
	slices.Sort(b.Goarch)
	if !slices.Equal(b.Goos, []string{"darwin", "linux", "windows"}) || !slices.Equal(b.Goarch, []string{"amd64", "arm64"}) {
		t.Errorf("platforms %v × %v, want darwin, linux, windows × amd64, arm64", b.Goos, b.Goarch)
	}
	// Each -X must name a variable internal/version has: a typo would
	// silently leave releases reporting "devel".
	// (The test does not compile if one of them is renamed.)
	_ = []*string{&version.Version, &version.Commit, &version.Date}
	set := map[string]bool{}
	for _, m := range regexp.MustCompile(`-X (\S+)=`).FindAllStringSubmatch(strings.Join(b.Ldflags, " "), -1) {
		set[m[1]] = true
	}
	for _, v := range []string{"Version", "Commit", "Date"} {
		if !set["github.com/podlint/podlint/internal/version."+v] {
			t.Errorf("ldflags do not set internal/version.%s: %q", v, b.Ldflags)
		}
	}
	if len(set) != 3 {
		t.Errorf("ldflags set %v; internal/version has Version, Commit and Date", set)
	}

	// The archive name for each platform is the one action.yml asks for.
	arc := cfg.Archives[0]
	tmpl, err := template.New("name").Parse(arc.NameTemplate)
	if err != nil {
		t.Fatalf("name_template: %v", err)
	}
	for _, goos := range b.Goos {
		for _, goarch := range b.Goarch {
			var name strings.Builder
			if err := tmpl.Execute(&name, map[string]string{"ProjectName": cfg.ProjectName, "Version": "1.2.3", "Os": goos, "Arch": goarch}); err != nil {
				t.Fatal(err)
			}
			format := arc.Formats
			for _, o := range arc.FormatOverrides {
				if o.Goos == goos {
					format = o.Formats
				}
			}
			want := "podlint_1.2.3_" + goos + "_" + goarch + ".tar.gz"
			if goos == "windows" {
				want = "podlint_1.2.3_windows_" + goarch + ".zip"
			}
			if got := name.String() + "." + strings.Join(format, ","); got != want {
				t.Errorf("GoReleaser names the %s/%s archive %s; action.yml downloads %s", goos, goarch, got, want)
			}
		}
	}
	if got := releaseAsset("v1.2.3"); !strings.HasPrefix(got, "podlint_1.2.3_") {
		t.Errorf("the tests' asset name %s", got)
	}
	action, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`asset="podlint_${tag#v}_${os}_${arch}.$ext"`, "ext=tar.gz", "ext=zip", "fetch checksums.txt"} {
		if !strings.Contains(string(action), want) {
			t.Errorf("action.yml's install step no longer has %s; keep it in step with .goreleaser.yaml", want)
		}
	}
	if cfg.Checksum.NameTemplate != "checksums.txt" || cfg.Checksum.Algorithm != "sha256" {
		t.Errorf("action.yml verifies against a SHA-256 checksums.txt; the config has %+v", cfg.Checksum)
	}

	d := cfg.DockersV2[0]
	if d.Dockerfile != "Dockerfile" || !slices.Contains(d.Images, "ghcr.io/podlint/podlint") || !slices.Equal(d.Platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Errorf("image: %+v", d)
	}
}

// TestDockerfile checks the image is minimal, runs as a non-root user and
// has podlint as its entry point (docker build needs a daemon, which the
// tests cannot assume; the release workflow builds it).
func TestDockerfile(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var from, user, entrypoint []string
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch strings.ToUpper(f[0]) {
		case "FROM":
			from = append(from, f[1])
		case "USER":
			user = append(user, f[1])
		case "ENTRYPOINT":
			entrypoint = append(entrypoint, strings.Join(f[1:], " "))
		}
	}
	if len(from) != 1 || from[0] != "scratch" && !strings.HasPrefix(from[0], "gcr.io/distroless/static") {
		t.Errorf("FROM %v: want one stage on scratch or distroless static", from)
	}
	if len(user) != 1 || regexp.MustCompile(`^(0|root)(:|$)`).MatchString(user[0]) {
		t.Errorf("USER %v: want a non-root user", user)
	}
	if !slices.Equal(entrypoint, []string{`["podlint"]`}) {
		t.Errorf(`ENTRYPOINT %v, want ["podlint"]`, entrypoint)
	}
	for _, name := range []string{"podlint", "podlint-render", "podlint-observe"} {
		if !strings.Contains(string(raw), "COPY $TARGETPLATFORM/"+name+" /usr/local/bin/"+name+"\n") {
			t.Errorf("the image must get goreleaser's %s for its platform ($TARGETPLATFORM/%s) in podlint's folder", name, name)
		}
	}
}

// workflow is the part of a GitHub workflow the tests read.
type workflow struct {
	Name        string            `yaml:"name"`
	On          yaml.Node         `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]struct {
		RunsOn      string            `yaml:"runs-on"`
		Permissions map[string]string `yaml:"permissions"`
		Strategy    struct {
			FailFast *bool               `yaml:"fail-fast"`
			Matrix   map[string][]string `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

type workflowStep struct {
	Name            string            `yaml:"name"`
	ID              string            `yaml:"id"`
	If              string            `yaml:"if"`
	Uses            string            `yaml:"uses"`
	With            map[string]string `yaml:"with"`
	Env             map[string]string `yaml:"env"`
	Shell           string            `yaml:"shell"`
	Run             string            `yaml:"run"`
	ContinueOnError bool              `yaml:"continue-on-error"`
}

func loadWorkflow(t *testing.T, name string) (*workflow, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), ".github", "workflows", name))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&wf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &wf, string(raw)
}

// TestWorkflows parses the repository's workflows and checks what each is
// for; every action they use is pinned to a commit with its version in a
// comment, like action.yml's.
func TestWorkflows(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoRoot(t), ".github", "workflows", "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflows (%v)", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		wf, raw := loadWorkflow(t, name)
		for _, line := range strings.Split(raw, "\n") {
			if strings.Contains(line, "uses:") && !strings.HasPrefix(strings.TrimSpace(line), "#") &&
				!pinnedUses.MatchString(line) && strings.TrimSpace(line) != "uses: ./" {
				t.Errorf("%s: not pinned to a commit SHA with a version comment: %s", name, strings.TrimSpace(line))
			}
		}
		if wf.Permissions["contents"] != "read" || len(wf.Permissions) != 1 {
			t.Errorf("%s: the workflow's token should only read contents by default, has %v", name, wf.Permissions)
		}
		for id, job := range wf.Jobs {
			if job.RunsOn == "" || len(job.Steps) == 0 {
				t.Errorf("%s: job %s has no runs-on or no steps", name, id)
			}
			for _, s := range job.Steps {
				if (s.Uses == "") == (s.Run == "") {
					t.Errorf("%s: job %s step %q needs exactly one of uses and run", name, id, s.Name)
				}
				if expression.MatchString(s.Run) {
					t.Errorf("%s: job %s step %q has an expression in run; pass it through env", name, id, s.Name)
				}
			}
		}
	}

	runs := func(wf *workflow, job, script string) bool {
		for _, s := range wf.Jobs[job].Steps {
			if strings.Contains(s.Run, script) {
				return true
			}
		}
		return false
	}
	ci, _ := loadWorkflow(t, "ci.yml")
	if !runs(ci, "linux", "bash .ci/run") || ci.Jobs["linux"].RunsOn != "ubuntu-latest" {
		t.Errorf("ci.yml: the linux job must run .ci/run on ubuntu-latest")
	}
	if oses := ci.Jobs["unit"].Strategy.Matrix["os"]; !slices.Equal(oses, []string{"macos-latest", "windows-latest"}) || !runs(ci, "unit", "go test ./...") {
		t.Errorf("ci.yml: the unit job must run go test ./... on macOS and Windows, has os %v", oses)
	}

	rel, raw := loadWorkflow(t, "release.yml")
	if !strings.Contains(raw, "tags: [\"v*.*.*\"]") {
		t.Errorf("release.yml must run on vX.Y.Z tags")
	}
	job := rel.Jobs["release"]
	if job.Permissions["contents"] != "write" || job.Permissions["packages"] != "write" {
		t.Errorf("release.yml: publishing the release and the image needs contents and packages write, has %v", job.Permissions)
	}
	i := slices.IndexFunc(job.Steps, func(s workflowStep) bool {
		return strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@")
	})
	if i < 0 || job.Steps[i].With["args"] != "release --clean" || job.Steps[i].With["version"] != goreleaserVersion(t) {
		t.Errorf("release.yml must run goreleaser release --clean at the version .goreleaser.yaml names (%s)", goreleaserVersion(t))
	}
	if !runs(rel, "release", "go test ./...") {
		t.Errorf("release.yml must test before it releases")
	}

	self, _ := loadWorkflow(t, "action.yml")
	a, _ := loadAction(t, filepath.Join(repoRoot(t), "action.yml"))
	st := self.Jobs["self-test"]
	if oses := st.Strategy.Matrix["os"]; !slices.Equal(oses, []string{"ubuntu-latest", "macos-latest", "windows-latest"}) {
		t.Errorf("the action's self-test must run on Linux, macOS and Windows, runs on %v", oses)
	}
	found := false
	for _, s := range st.Steps {
		if s.Uses != "./" {
			continue
		}
		found = true
		if s.With["paths"] != "testdata/examples" || !s.ContinueOnError {
			t.Errorf("the self-test must lint testdata/examples and let the next step check the failure: %+v", s)
		}
		for in := range s.With {
			if _, ok := a.Inputs[in]; !ok {
				t.Errorf("the self-test passes input %s, which action.yml does not declare", in)
			}
		}
	}
	if !found {
		t.Error("the self-test does not run the action from the checkout (uses: ./)")
	}
}

// goreleaserVersion is the GoReleaser version .goreleaser.yaml's comment
// says to install; the release workflow must use the same.
func goreleaserVersion(t *testing.T) string {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`go install github.com/goreleaser/goreleaser/v2@(v[\d.]+)`).FindSubmatch(raw)
	if m == nil {
		t.Fatal(".goreleaser.yaml does not say which GoReleaser to install")
	}
	return string(m[1])
}

// TestFileNamesPortable: every file name in the repository must be valid
// in a Go module zip and on Windows. One that is not (testdata/nul.yaml
// once) makes `go install …@vX.Y.Z` fail for everyone, because the module
// proxy refuses the whole version, and breaks checkouts on Windows.
func TestFileNamesPortable(t *testing.T) {
	root := repoRoot(t)
	reserved := regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])$`)
	folded := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (d.Name() == ".git" || rel == "dist") {
			return filepath.SkipDir
		}
		if rel == "." {
			return nil
		}
		for _, elem := range strings.Split(rel, "/") {
			base, _, _ := strings.Cut(elem, ".")
			if reserved.MatchString(base) {
				t.Errorf("%s: %q is a reserved name on Windows", rel, elem)
			}
			if strings.ContainsAny(elem, `"*:<>?\|`) || strings.HasSuffix(elem, ".") || strings.HasSuffix(elem, " ") {
				t.Errorf("%s: %q is not a valid file name on Windows", rel, elem)
			}
		}
		if other, ok := folded[strings.ToLower(rel)]; ok {
			t.Errorf("%s and %s differ only in case", rel, other)
		}
		folded[strings.ToLower(rel)] = rel
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
