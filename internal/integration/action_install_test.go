package integration

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// releaseAsset is the archive name goreleaser gives this machine's build of
// version (see .goreleaser.yaml; TestGoreleaserConfig checks they agree).
func releaseAsset(version string) string {
	ext := "tar.gz"
	if runtime.GOOS == "windows" {
		ext = "zip"
	}
	return fmt.Sprintf("podlint_%s_%s_%s.%s", strings.TrimPrefix(version, "v"), runtime.GOOS, runtime.GOARCH, ext)
}

// archive packs files (name → content; executables end in "podlint" or
// "podlint.exe") the way goreleaser does for this OS.
func archive(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if runtime.GOOS == "windows" {
		zw := zip.NewWriter(&buf)
		for name, data := range files {
			w, err := zw.Create(name)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(data)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	// The fastest compression: the tests read what they pack at once, and
	// the default level took seconds for the 60 MB executable.
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(gz)
	for name, data := range files {
		mode := int64(0o644)
		if strings.HasPrefix(name, "podlint") {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fakeRelease serves release assets the way GitHub does
// (BASE/TAG/ASSET) from files on a local HTTP server, and logs the
// requests it gets. The tests point the action at it with
// PODLINT_RELEASE_BASE_URL.
type fakeRelease struct {
	URL      string
	requests []string
}

func serveRelease(t *testing.T, assets map[string][]byte) *fakeRelease {
	t.Helper()
	fr := &fakeRelease{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fr.requests = append(fr.requests, req.URL.Path)
		data, ok := assets[strings.TrimPrefix(req.URL.Path, "/")]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	fr.URL = srv.URL
	return fr
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestActionInstall runs the action's install and build steps for each way
// it can get podlint: the release binary of a tag (downloaded from a fake
// release on localhost, checked against checksums.txt), a tampered
// download, a tag without an asset for this runner, and a ref that is not
// a release, which builds from source with a cache keyed on podlint's
// go.mod and go.sum.
func TestActionInstall(t *testing.T) {
	t.Parallel() // runs programs in folders of its own; never changes the working directory or the environment
	for _, tool := range []string{"bash", "curl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed; the action's install step needs it", tool)
		}
	}
	if runtime.GOOS == "windows" {
		t.Skip("the action's steps are run here on Linux and macOS; .github/workflows/action.yml runs them on a Windows runner")
	}
	root := repoRoot(t)
	a, _ := loadAction(t, filepath.Join(root, "action.yml"))
	if os.Getenv(slowTestsEnv) == "1" {
		compileAsRelease(t)
	}
	bin, err := os.ReadFile(podlintBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	const tag = "v1.2.3"
	asset := releaseAsset(tag)
	good := archive(t, map[string][]byte{"podlint" + exe: bin, "podlint-render" + exe: readBeside(t, "render"),
		"podlint-observe" + exe: readBeside(t, "observe"), "README.md": []byte("# podlint\n")})
	checksums := func(sum string) []byte {
		// goreleaser's format: "<sha256>  <name>", one line per asset.
		return []byte(fmt.Sprintf("%s  podlint_1.2.3_plan9_mips.tar.gz\n%s  %s\n", strings.Repeat("0", 64), sum, asset))
	}
	goMod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	goSum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	wantKey := fmt.Sprintf("podlint-go-%s-%s-%s", runnerOS(), runnerArch(), sha256Hex(append(append([]byte{}, goMod...), goSum...)))

	// The action's repository as git ls-remote sees it: v1.2.3 is an
	// annotated tag on one commit, v1.2.4 a lightweight tag on the next.
	tags := t.TempDir()
	git(t, tags, "init", "-q")
	git(t, tags, "commit", "-q", "--allow-empty", "-m", "one")
	git(t, tags, "tag", "-a", "-m", "release", tag)
	annotated := git(t, tags, "rev-parse", "HEAD")
	git(t, tags, "commit", "-q", "--allow-empty", "-m", "two")
	git(t, tags, "tag", "v1.2.4")
	lightweight := git(t, tags, "rev-parse", "HEAD")
	git(t, tags, "commit", "-q", "--allow-empty", "-m", "three")
	untagged := git(t, tags, "rev-parse", "HEAD")

	cacheMiss := false
	run := func(t *testing.T, ref string, assets map[string][]byte) (*runner, *fakeRelease) {
		t.Helper()
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"k8s/api.yaml": badPod})
		fr := serveRelease(t, assets)
		r := newRunner(t, a, root, ws, map[string]string{"paths": "k8s"})
		r.ref = ref
		r.cacheMiss = cacheMiss
		r.extraEnv = append(r.extraEnv, "PODLINT_RELEASE_BASE_URL="+fr.URL, "PODLINT_RELEASE_GIT_URL="+tags)
		r.run()
		t.Logf("requests to the fake release: %q\n%s", fr.requests, r.stepLog("Install podlint"))
		return r, fr
	}
	// linted checks that podlint ran on the manifests: the job fails on
	// the finding in the last step, as it should.
	linted := func(t *testing.T, r *runner) {
		t.Helper()
		if r.failedStep != "Fail on findings" || r.exitCode != 1 || r.output("findings") != "1" {
			t.Errorf("want podlint to run and the last step to fail with 1; step %q exited %d, findings %q:\n%s",
				r.failedStep, r.exitCode, r.output("findings"), &r.log)
		}
		r.checkCallerEnv()
	}

	t.Run("release tag: download and verify", func(t *testing.T) {
		r, fr := run(t, tag, map[string][]byte{tag + "/checksums.txt": checksums(sha256Hex(good)), tag + "/" + asset: good})
		linted(t, r)
		installed, err := os.ReadFile(r.outputs["install"]["podlint"])
		if err != nil || !bytes.Equal(installed, bin) {
			t.Errorf("the installed podlint is not the release's binary (%v)", err)
		}
		if _, ok := r.used("actions/cache/restore"); ok || r.outputs["install"]["build"] != "false" {
			t.Errorf("a verified download must not build from source; build=%q", r.outputs["install"]["build"])
		}
		if want := []string{"/" + tag + "/checksums.txt", "/" + tag + "/" + asset}; !slices.Equal(fr.requests, want) {
			t.Errorf("requests %q, want %q", fr.requests, want)
		}
		if log := r.log.String(); !strings.Contains(log, "verified its SHA-256 "+sha256Hex(good)) {
			t.Errorf("the log does not say the download was verified:\n%s", log)
		}
	})

	t.Run("release tag: checksum mismatch stops the job", func(t *testing.T) {
		tampered := archive(t, map[string][]byte{"podlint" + exe: []byte("#!/bin/sh\ntouch pwned\n"), "README.md": []byte("# podlint\n")})
		r, _ := run(t, tag, map[string][]byte{tag + "/checksums.txt": checksums(sha256Hex(good)), tag + "/" + asset: tampered})
		if r.failedStep != "Install podlint" || r.exitCode != 1 {
			t.Fatalf("want the install step to fail with 1; step %q exited %d:\n%s", r.failedStep, r.exitCode, &r.log)
		}
		log := r.log.String()
		if want := fmt.Sprintf("::error title=podlint::checksum mismatch for %s of podlint %s: checksums.txt says %s, the download is %s", asset, tag, sha256Hex(good), sha256Hex(tampered)); !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
		if fileExists(filepath.Join(r.workspace, "pwned")) || fileExists(filepath.Join(r.temp, "podlint")) {
			t.Errorf("the tampered binary was installed or run")
		}
	})

	t.Run("release tag: asset missing from checksums.txt stops the job", func(t *testing.T) {
		other := []byte(strings.Repeat("0", 64) + "  podlint_1.2.3_plan9_mips.tar.gz\n")
		r, _ := run(t, tag, map[string][]byte{tag + "/checksums.txt": other, tag + "/" + asset: good})
		if r.failedStep != "Install podlint" || r.exitCode != 1 || !strings.Contains(r.log.String(), "has no line for "+asset) {
			t.Errorf("want the install step to refuse an unlisted asset; step %q exited %d:\n%s", r.failedStep, r.exitCode, &r.log)
		}
	})

	t.Run("release tag: missing asset falls back to the build", func(t *testing.T) {
		slowTest(t, "the fallback builds podlint from source as the action does (-trimpath)")
		// A release with a checksums file but no archive for this runner
		// (or a tag pushed before its release is published).
		r, fr := run(t, tag, map[string][]byte{tag + "/checksums.txt": checksums(sha256Hex(good))})
		linted(t, r)
		log := r.log.String()
		if want := fmt.Sprintf("::warning title=podlint::could not download %s of podlint %s from %s/%s", asset, tag, fr.URL, tag); !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
		cache, ok := r.used("actions/cache/restore")
		if !ok || cache.With["key"] != wantKey {
			t.Errorf("the build must restore the cache keyed %s, got %+v", wantKey, cache)
		}
		out, err := exec.Command(filepath.Join(r.temp, "podlint"+exe), "version").Output()
		if err != nil || !strings.HasPrefix(string(out), "podlint "+tag) {
			t.Errorf("the podlint built for %s says %q (%v)", tag, out, err)
		}
	})

	for kind, c := range map[string]struct{ sha, tag string }{"annotated": {annotated, tag}, "lightweight": {lightweight, "v1.2.4"}} {
		t.Run("commit of a release ("+kind+" tag): download", func(t *testing.T) {
			name := releaseAsset(c.tag)
			r, fr := run(t, c.sha, map[string][]byte{
				c.tag + "/checksums.txt": []byte(sha256Hex(good) + "  " + name + "\n"),
				c.tag + "/" + name:       good,
			})
			linted(t, r)
			if r.outputs["install"]["build"] != "false" || !strings.Contains(r.log.String(), "podlint "+c.sha+" is release "+c.tag) {
				t.Errorf("the commit %s tagged %s must get the release binary; requests %q:\n%s", c.sha, c.tag, fr.requests, &r.log)
			}
		})
	}

	t.Run("commit ref: build from source with a cache", func(t *testing.T) {
		slowTest(t, "builds podlint from source as the action does (-trimpath)")
		sha := untagged
		r, fr := run(t, sha, nil)
		linted(t, r)
		if len(fr.requests) != 0 {
			t.Errorf("a commit ref must not look for a release: %q", fr.requests)
		}
		cache, ok := r.used("actions/cache/restore")
		if !ok || cache.With["key"] != wantKey || cache.With["path"] != filepath.Join(r.temp, "podlint-go") {
			t.Fatalf("want actions/cache/restore of %s keyed %s, got %+v", filepath.Join(r.temp, "podlint-go"), wantKey, cache)
		}
		if log := r.log.String(); !strings.Contains(log, "cache key "+wantKey) {
			t.Errorf("the log does not show the cache key:\n%s", log)
		}
		if save, ok := r.used("actions/cache/save"); ok {
			t.Errorf("a cache hit must not be saved again: %+v", save)
		}
		t.Logf("cache key for the build from source: %s", cache.With["key"])
		out, err := exec.Command(filepath.Join(r.temp, "podlint"+exe), "version").Output()
		if err != nil || !strings.HasPrefix(string(out), "podlint devel (commit "+sha[:12]) {
			t.Errorf("the podlint built at %s says %q (%v)", sha, out, err)
		}
	})

	// The job fails on findings; the caches must be saved all the same,
	// or every run would build from nothing.
	t.Run("commit ref: cache miss is saved on a run with findings", func(t *testing.T) {
		slowTest(t, "builds podlint from source as the action does (-trimpath)")
		cacheMiss = true
		defer func() { cacheMiss = false }()
		r, _ := run(t, untagged, nil)
		linted(t, r)
		save, ok := r.used("actions/cache/save")
		if !ok || save.With["key"] != wantKey || save.With["path"] != filepath.Join(r.temp, "podlint-go") {
			t.Fatalf("want actions/cache/save of %s keyed %s on a failing run, got %+v (%v)", filepath.Join(r.temp, "podlint-go"), wantKey, save, ok)
		}
	})

	// uses: podlint/podlint@v1 gets the newest v1 release (v1.2.4 here,
	// not v1.2.3), whatever commit the moving tag v1 points at.
	for _, pin := range []string{"v1", "v1.2"} {
		t.Run("major pin "+pin+": newest matching release", func(t *testing.T) {
			name := releaseAsset("v1.2.4")
			r, fr := run(t, pin, map[string][]byte{
				"v1.2.4/checksums.txt": []byte(sha256Hex(good) + "  " + name + "\n"),
				"v1.2.4/" + name:       good,
			})
			linted(t, r)
			if r.outputs["install"]["build"] != "false" || !strings.Contains(r.log.String(), "podlint "+pin+" is release v1.2.4") {
				t.Errorf("the pin %s must get release v1.2.4; requests %q:\n%s", pin, fr.requests, &r.log)
			}
		})
	}

	// Hosted runners keep Go in the tool cache; the build finds it there
	// when no go is on the PATH, and says what to do when there is none.
	t.Run("Go from the tool cache", func(t *testing.T) {
		slowTest(t, "builds podlint from source as the action does (-trimpath)")
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Skip("no go on PATH")
		}
		var path []string
		for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
			if _, err := os.Stat(filepath.Join(dir, "go")); err != nil {
				path = append(path, dir)
			}
		}
		goroot, err := exec.Command(goBin, "env", "GOROOT").Output()
		if err != nil {
			t.Fatal(err)
		}
		toolCache := t.TempDir()
		arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
		if err := os.MkdirAll(filepath.Join(toolCache, "go", "1.26.8"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(strings.TrimSpace(string(goroot)), filepath.Join(toolCache, "go", "1.26.8", arch)); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ name, cache, want string }{
			{"found", toolCache, "go version go"},
			{"missing", t.TempDir(), "::error title=podlint::building podlint from source needs a Go toolchain on the runner, and there is none"},
		} {
			ws := t.TempDir()
			writeFiles(t, ws, map[string]string{"k8s/api.yaml": badPod})
			r := newRunner(t, a, root, ws, nil)
			r.extraEnv = append(r.extraEnv, "PATH="+strings.Join(path, string(filepath.ListSeparator)), "RUNNER_TOOL_CACHE="+c.cache)
			r.run()
			if log := r.stepLog("Build podlint"); !strings.Contains(log, c.want) {
				t.Errorf("%s: the build step's log lacks %q:\n%s", c.name, c.want, log)
			}
			if want := map[string]string{"found": "Fail on findings", "missing": "Build podlint"}[c.name]; r.failedStep != want {
				t.Errorf("%s: step %q failed, want %q:\n%s", c.name, r.failedStep, want, &r.log)
			}
		}
	})

	t.Run("unsupported runner", func(t *testing.T) {
		ws := t.TempDir()
		r := newRunner(t, a, root, ws, nil)
		r.extraEnv = append(r.extraEnv, "RUNNER_ARCH=X86")
		r.run()
		if r.failedStep != "Install podlint" || !strings.Contains(r.log.String(), "::error title=podlint::podlint's action runs on X64 and ARM64 runners, not on 'X86'") {
			t.Errorf("want a clear refusal of a 32-bit runner; step %q:\n%s", r.failedStep, &r.log)
		}
	})
}

// released is the archive of the test's podlint that releasedRunner
// serves, packed once: packing the 60 MB executable took seconds per test.
var released struct {
	sync.Once
	arc []byte
}

// releasedRunner is a runner for the action pinned to a release tag, served
// by a fake release of the test's podlint binary: the tests of what the
// action does with podlint's output use it, because a download takes a
// moment where a build from source takes many seconds on a busy machine,
// and minutes on an empty build cache (slowTestsEnv).
func releasedRunner(t *testing.T, a *action, actionPath, workspace string, inputs map[string]string) *runner {
	t.Helper()
	const tag = "v0.0.1"
	asset := releaseAsset(tag)
	released.Do(func() {
		bin, err := os.ReadFile(podlintBinary(t))
		if err != nil {
			t.Fatal(err)
		}
		name := "podlint"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		released.arc = archive(t, map[string][]byte{name: bin, strings.Replace(name, "podlint", "podlint-render", 1): readBeside(t, "render"),
			strings.Replace(name, "podlint", "podlint-observe", 1): readBeside(t, "observe")})
	})
	arc := released.arc
	if arc == nil {
		t.Fatal("no release archive (see the first test that asked for one)")
	}
	fr := serveRelease(t, map[string][]byte{
		tag + "/checksums.txt": []byte(sha256Hex(arc) + "  " + asset + "\n"),
		tag + "/" + asset:      arc,
	})
	r := newRunner(t, a, actionPath, workspace, inputs)
	r.ref = tag
	r.extraEnv = append(r.extraEnv, "PODLINT_RELEASE_BASE_URL="+fr.URL)
	return r
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
