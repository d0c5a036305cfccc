// Package integration tests podlint where users run it: the GitHub Action,
// the pre-commit hooks, the CI snippets of docs/ci.md, Helm and kustomize
// pipes, shell completion and the generated documentation. The tests run
// the real artifacts (action.yml's shell steps, pre-commit itself, bash
// completion) rather than re-stating them.
package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/podlint/podlint/internal/cli"
	"github.com/podlint/podlint/internal/observecli"
	"github.com/podlint/podlint/internal/testbin"
)

// repoRoot is the checkout this test file is in.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot find the test's source file")
	}
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

var (
	binOnce sync.Once
	binPath string
	binTemp bool // binPath is in a temporary folder, removed by TestMain
	binErr  error
	binOut  []byte
)

// podlintBinary builds cmd/podlint, with the podlint-render and
// podlint-observe it starts beside it, once per test run, for the tests that need a real
// executable (shell completion calls it by name). It keeps the
// executables between runs (testbin), so a run after an unchanged build
// links nothing.
func podlintBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binPath, binTemp, binOut, binErr = testbin.BuildPodlint(repoRoot(t), "integration")
	})
	if binErr != nil {
		t.Fatalf("go build ./cmd/podlint ./cmd/podlint-render ./cmd/podlint-observe: %v\n%s", binErr, binOut)
	}
	return binPath
}

// readBeside reads the podlint-render or podlint-observe (what) that
// podlintBinary built beside podlint, for the fake release archives, which
// hold all three.
func readBeside(t *testing.T, what string) []byte {
	t.Helper()
	bin := podlintBinary(t)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(bin), strings.Replace(filepath.Base(bin), "podlint", "podlint-"+what, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// slowTestsEnv names the environment variable that turns on the tests of
// podlint's packaging that compile a release build of podlint (-trimpath,
// no cgo): on an empty build cache that compiles every dependency a second
// time, minutes of CPU on a small machine, which took go test ./... past
// its 10-minute timeout. .ci/run sets it, so CI runs every test.
const slowTestsEnv = "PODLINT_SLOW_TESTS"

// slowTest skips t unless PODLINT_SLOW_TESTS=1; what says what the test
// builds.
func slowTest(t *testing.T, what string) {
	t.Helper()
	if os.Getenv(slowTestsEnv) != "1" {
		t.Skipf("%s, compiling every dependency again on an empty build cache: run with %s=1 (as .ci/run does) to include it", what, slowTestsEnv)
	}
}

var releaseCompile sync.Once

// compileAsRelease compiles podlint's packages once per run with the flags
// of the action's build from source (-trimpath, no cgo), which
// TestPreCommit's go install uses too: the two start together, and with
// nothing in the build cache each compiled every package itself. go list
// -export compiles without linking, and both builds then find every
// package in the cache. A failure here is left to the builds to report.
func compileAsRelease(t *testing.T) {
	t.Helper()
	releaseCompile.Do(func() {
		cmd := exec.Command("go", "list", "-export", "-trimpath", "-f", "{{.Export}}", "./cmd/podlint")
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("compiling podlint as the action builds it: %v\n%s", err, out)
		}
	})
}

// runCLI calls cli.Run in dir (it reads the working directory for config
// discovery and relative paths), with stdin.
// podlint's main installs podlint observe; so does every in-process run.
func init() { observecli.Install() }

func runCLI(t *testing.T, dir, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if dir != "" {
		t.Chdir(dir)
	}
	var out, errb bytes.Buffer
	code = cli.Run(append([]string{"podlint"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// writeFiles creates files (slash paths relative to dir) with their contents.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Manifests shared by the tests. badPod has one error (PL113) on line 10.
const (
	goodPod = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: app
      image: nginx
      readinessProbe:
        httpGet: {path: /ready, port: 8080}
`
	badPod = `apiVersion: v1
kind: Pod
metadata:
  name: api
spec:
  containers:
    - name: app
      image: nginx
      livenessProbe:
        successThreshold: 3
        httpGet: {path: /healthz, port: 8080}
`
	badPodLine = 10
	// notKubernetes is YAML pre-commit hands to the hook like any other.
	notKubernetes = `name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
`
)

// shopChart is a Helm chart whose liveness probe comes from the values
// (livenessProbe: {{ toYaml … }}, the usual chart style), under dir/. With
// badValues the probe's successThreshold is 3: one PL113 error at the
// template's livenessProbe line (shopChartLine), with values.yaml's
// livenessProbe.successThreshold (line 5) as related location.
func shopChart(dir string, badValues bool) map[string]string {
	threshold := "1"
	if badValues {
		threshold = "3"
	}
	return map[string]string{
		dir + "/Chart.yaml":  "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
		dir + "/values.yaml": "image: nginx\nport: 8080\nlivenessProbe:\n  httpGet: {path: /healthz, port: 8080}\n  successThreshold: " + threshold + "\n",
		dir + "/templates/_helpers.tpl": `{{- define "shop.fullname" -}}{{ .Release.Name }}-shop{{- end }}
`,
		dir + "/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "shop.fullname" . }}
spec:
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
        - name: shop
          image: {{ .Values.image }}
          resources: {requests: {cpu: 10m}}
          readinessProbe:
            httpGet: {path: /ready, port: {{ .Values.port }}}
          livenessProbe: {{ toYaml .Values.livenessProbe | nindent 12 }}
`,
	}
}

const shopChartLine = 18
