package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// TestReadmeInstallRelease runs the README's install-from-a-release
// commands with bash against a fake release on localhost (the real one
// would need the network), once as published and once with a tampered
// archive, which the checksum step must refuse.
func TestReadmeInstallRelease(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	for _, tool := range []string{"bash", "curl", "sha256sum", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; the README's release install needs it", tool)
		}
	}
	if runtime.GOOS == "windows" {
		t.Skip("the README's release install is for Linux and macOS shells")
	}
	const releases = "https://github.com/podlint/podlint/releases/download"
	script := docSnippet(t, "README.md", "install-release")
	version := regexp.MustCompile(`(?m)^version=(\S+)$`).FindStringSubmatch(script)
	if version == nil || !strings.Contains(script, releases+"/v$version") || !strings.Contains(script, "_linux_amd64.tar.gz") {
		t.Fatalf("the snippet no longer sets version= and downloads from %s/v$version:\n%s", releases, script)
	}
	tag := "v" + version[1]
	bin, err := os.ReadFile(podlintBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	asset := releaseAsset(tag) // this machine's; the snippet shows linux_amd64
	good := archive(t, map[string][]byte{"podlint": bin, "podlint-render": readBeside(t, "render"), "podlint-observe": readBeside(t, "observe"), "README.md": []byte("# podlint\n")})
	sums := sha256Hex(good) + "  " + asset + "\n" + strings.Repeat("1", 64) + "  podlint_" + version[1] + "_windows_arm64.zip\n"

	run := func(t *testing.T, archiveBytes []byte) (string, error) {
		fr := serveRelease(t, map[string][]byte{tag + "/checksums.txt": []byte(sums), tag + "/" + asset: archiveBytes})
		s := strings.ReplaceAll(script, releases, fr.URL)
		s = strings.ReplaceAll(s, "linux_amd64", runtime.GOOS+"_"+runtime.GOARCH)
		dir := t.TempDir()
		cmd := exec.Command("bash", "-e", "-c", s)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "no_proxy=127.0.0.1", "NO_PROXY=127.0.0.1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Run("published", func(t *testing.T) {
		out, err := run(t, good)
		if err != nil || !strings.Contains(out, asset+": OK") || !regexp.MustCompile(`(?m)^podlint \S+`).MatchString(out) {
			t.Errorf("the README's commands failed (%v) or did not verify and run podlint:\n%s", err, out)
		}
	})
	t.Run("tampered", func(t *testing.T) {
		out, err := run(t, archive(t, map[string][]byte{"podlint": []byte("#!/bin/sh\necho pwned\n")}))
		if err == nil || strings.Contains(out, "pwned") || !strings.Contains(out, "FAILED") {
			t.Errorf("the README's commands accepted a tampered archive (%v):\n%s", err, out)
		}
	})
}

// TestReadmeGoInstall checks the go install and go build commands, which
// are what works until a release exists: they name this module's command
// and build it as the release does (.goreleaser.yaml's CGO_ENABLED and
// tags); the command reports the version go install asked for (see
// internal/version's tests for @v1.2.3 → v1.2.3).
func TestReadmeGoInstall(t *testing.T) {
	root := repoRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(gomod)
	raw, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil || len(cfg.Builds) == 0 {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	b := cfg.Builds[0]
	env := strings.Join(b.Env, " ")
	tags := "-tags " + strings.Join(b.Tags, ",")
	install := strings.TrimSpace(docSnippet(t, "README.md", "go-install"))
	if want := env + " go install " + tags + " " + string(module[1]) + "/cmd/...@latest"; install != want {
		t.Errorf("README: %q, want the release's build %q", install, want)
	}
	// The release builds every command the pattern installs: podlint and
	// the podlint-render and podlint-observe it starts, with the same
	// settings.
	var mains []string
	for _, rb := range cfg.Builds {
		mains = append(mains, "./"+strings.TrimPrefix(rb.Main, "./"))
		if !slices.Equal(rb.Env, b.Env) || !slices.Equal(rb.Tags, b.Tags) {
			t.Errorf(".goreleaser.yaml builds %s with %v %v, %s with %v %v; podlint-render and podlint-observe must be built as podlint is", rb.Main, rb.Env, rb.Tags, b.Main, b.Env, b.Tags)
		}
	}
	cmds := exec.Command("go", "list", "./cmd/...")
	cmds.Dir = root
	m := string(module[1])
	if out, err := cmds.Output(); err != nil || strings.Join(strings.Fields(string(out)), " ") != m+"/cmd/podlint "+m+"/cmd/podlint-observe "+m+"/cmd/podlint-render" {
		t.Errorf("go list ./cmd/... = %q (%v); want cmd/podlint, cmd/podlint-observe and cmd/podlint-render, which the README installs together", out, err)
	}
	if !slices.Equal(mains, []string{"./cmd/podlint", "./cmd/podlint-render", "./cmd/podlint-observe"}) {
		t.Errorf(".goreleaser.yaml builds %v; want ./cmd/podlint, ./cmd/podlint-render and ./cmd/podlint-observe", mains)
	}
	build := strings.Split(strings.TrimSpace(docSnippet(t, "README.md", "go-build")), "\n")
	if want := env + " go build " + tags + " -o . " + strings.Join(mains, " "); len(build) != 2 || build[0] != want || build[1] != "./podlint version" {
		t.Fatalf("README go-build block %q, want %q then ./podlint version", build, want)
	}
	// The packages resolve with those settings (building them again
	// without cgo would double the suite's compile time).
	list := exec.Command("go", "list", "-deps", "-tags", strings.Join(b.Tags, ","), "./cmd/podlint")
	list.Dir = root
	list.Env = append(os.Environ(), b.Env...)
	if out, err := list.CombinedOutput(); err != nil {
		t.Errorf("go list with the README's build settings: %v\n%s", err, out)
	}
}

// TestReadmeDocker checks the docker run line against the image the
// release builds (.goreleaser.yaml, Dockerfile) and runs its podlint
// arguments, which the image's entry point receives, in a directory of
// manifests mounted as the line mounts the working directory.
func TestReadmeDocker(t *testing.T) {
	line := strings.TrimSpace(docSnippet(t, "README.md", "docker"))
	m := regexp.MustCompile(`^docker run --rm -v "\$PWD:(/\w+)" -w (/\w+) (\S+) (.+)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("README docker line %q is not `docker run --rm -v \"$PWD:DIR\" -w DIR IMAGE ARGS`", line)
	}
	if m[1] != m[2] {
		t.Errorf("the working directory %s is not the mounted %s", m[2], m[1])
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg goreleaserConfig
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	image, _, _ := strings.Cut(m[3], ":")
	if len(cfg.DockersV2) == 0 || !slices.Contains(cfg.DockersV2[0].Images, image) {
		t.Errorf("README runs %s; the release publishes %v", m[3], cfg.DockersV2)
	}
	dockerfile, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	if err != nil || !strings.Contains(string(dockerfile), `ENTRYPOINT ["podlint"]`) {
		t.Fatalf("the image's entry point is not podlint (%v)", err)
	}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"k8s/api.yaml": badPod, "k8s/web.yaml": goodPod})
	code, stdout, stderr := runCLI(t, ws, "", strings.Fields(m[4])...)
	if code != 1 || !strings.Contains(stdout, "k8s/api.yaml:") {
		t.Errorf("podlint %s in the mounted directory: exit %d, want 1 with the finding:\n%s%s", m[4], code, stdout, stderr)
	}
}

// TestGoFloor: go.mod asks for the newest go directive of the
// dependencies and no more (a higher one makes every Go older than it
// download a toolchain, or fail with GOTOOLCHAIN=local), and the README
// states that floor.
func TestGoFloor(t *testing.T) {
	root := repoRoot(t)
	list := exec.Command("go", "list", "-m", "-f", "{{.Main}} {{.GoVersion}}", "all")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -m all: %v", err)
	}
	var own, deps string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		main, v, _ := strings.Cut(line, " ")
		if main == "true" {
			own = v
		} else if v != "" && gover(v) > gover(deps) {
			deps = v
		}
	}
	if own != deps {
		t.Errorf("go.mod says go %s; the dependencies need go %s", own, deps)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "**Go " + own + " or newer**"; !strings.Contains(string(readme), want) {
		t.Errorf("README does not state the floor %q", want)
	}
}

// gover turns a go directive (1.26 or 1.26.0) into a comparable string.
func gover(v string) string {
	var b strings.Builder
	parts := strings.Split(v, ".")
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	for _, p := range parts {
		fmt.Fprintf(&b, "%06s", p)
	}
	return b.String()
}
