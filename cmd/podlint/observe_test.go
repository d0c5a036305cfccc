package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/podlint/podlint/internal/cli"
	"github.com/podlint/podlint/internal/observe/kubeconfig"
	"github.com/podlint/podlint/internal/observecli"
)

const snapshotJSON = "../../internal/observe/testdata/snapshot.json"

// webDeployment's liveness probe kills from 43 s; the snapshot's web Pods
// took up to 52 s to become Ready, and two runs were killed at 43 s.
const webDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 30
      containers:
        - name: app
          image: example.com/web:1
          resources: {requests: {cpu: 100m, memory: 64Mi}}
          livenessProbe:
            httpGet: {path: /healthz, port: 8080}
            initialDelaySeconds: 13
            periodSeconds: 10
            failureThreshold: 3
`

// run runs podlint in-process, reading a live cluster in-process too
// (podlint starts podlint-observe for it: observe_exec_test.go).
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	observecli.InstallLive(kubeconfig.Live)
	var out, errb bytes.Buffer
	code := cli.Run(append([]string{"podlint"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestObserveFromFileThenCheck(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "observed.yaml")
	code, _, stderr := run(t, "observe", "--from", snapshotJSON, "-o", prof)
	if code != 0 || !strings.Contains(stderr, "wrote "+prof+": 6 workloads") {
		t.Fatalf("observe: exit %d, stderr %q", code, stderr)
	}
	web := filepath.Join(dir, "web.yaml")
	if err := os.WriteFile(web, []byte(webDeployment), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "check", "--no-config", web)
	if code != 0 || strings.Contains(out, "PL101") {
		t.Fatalf("without the profile: exit %d\n%s", code, out)
	}
	code, out, stderr = run(t, "check", "--no-config", "--observed", prof, "--format", "json", web)
	if code != 1 {
		t.Fatalf("with the profile: exit %d, %s\n%s", code, stderr, out)
	}
	// The note names the profile's date; a run more than 30 days after
	// it adds how old it is.
	for _, want := range []string{
		`"PL101".*before its expected start-up of 52s \(observed start-up up to 52s, p95 52s, 2 starts, snapshot of 2026-12-01(, stale: \d+ days old)?\)`,
		`"PL208".*1 of 1 deletions of \\"app\\" ended in SIGKILL, in the cluster`,
	} {
		if !regexp.MustCompile(want).MatchString(strings.ReplaceAll(out, "\n", " ")) {
			t.Errorf("no match for %s in\n%s", want, out)
		}
	}
	// That one shutdown was cut off by SIGKILL at the grace period: a lower
	// bound of what the app needs, not an expected shutdown for PL202.
	if strings.Contains(out, "observed shutdown") {
		t.Errorf("a SIGKILLed shutdown taken as the expected one:\n%s", out)
	}
}

func TestObserveErrorsAreOneLine(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"kind":"List","items":[{"apiVersion":"v1","kind":"Pod","metadata":{"name":["x"]}}]}`), 0o644)
	closed := httptest.NewServer(nil)
	closed.Close()
	kube := filepath.Join(dir, "kubeconfig")
	os.WriteFile(kube, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "+closed.URL+"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: gone, context: {cluster: c, user: u}}]\ncurrent-context: gone\n"), 0o600)
	t.Setenv("KUBECONFIG", kube)
	prof := filepath.Join(dir, "p.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"observe", "--from", bad, "-o", prof}, "podlint: --from " + bad + ": item 1: Pod: json: cannot unmarshal array"},
		{[]string{"observe", "--from", filepath.Join(dir, "none.json"), "-o", prof}, "none.json: no such file or directory"},
		{[]string{"observe", "--from", dir, "-o", prof}, "not a regular file"},
		{[]string{"observe", "-A", "-o", prof}, "podlint: cluster gone: GET /api/v1/pods: cannot reach " + closed.URL},
		{[]string{"observe", "--context", "nope", "-o", prof}, `no context "nope"`},
		{[]string{"observe", "--from", bad, "--watch", "1m"}, "--from reads files"},
		{[]string{"check", "--no-config", "--observed", bad, dir}, "not a podlint observe profile"},
	} {
		code, out, stderr := run(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tc.args, code, stderr, out, tc.want)
		}
	}
	if _, err := os.Stat(prof); err == nil {
		t.Errorf("a failed observe wrote %s", prof)
	}
}

// A profile at --output is merged into: observing the same list twice
// gives the same profile, with its recording once.
func TestObserveMergesIntoOutput(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "observed.yaml")
	if code, _, stderr := run(t, "observe", "--from", snapshotJSON, "-o", prof); code != 0 {
		t.Fatal(stderr)
	}
	first, _ := os.ReadFile(prof)
	if code, _, stderr := run(t, "observe", "--from", snapshotJSON, "-o", prof); code != 0 || !strings.Contains(stderr, "1 recording (snapshot)") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	second, _ := os.ReadFile(prof)
	if !bytes.Equal(first, second) {
		t.Errorf("merging the same recording changed the profile:\n%s\n---\n%s", first, second)
	}
	os.WriteFile(prof, []byte("not: a profile\n"), 0o644)
	if code, _, stderr := run(t, "observe", "--from", snapshotJSON, "-o", prof); code != 2 || !strings.Contains(stderr, "give --fresh") {
		t.Errorf("merging into a file that is no profile: exit %d, %s", code, stderr)
	}
	if code, _, stderr := run(t, "observe", "--fresh", "--from", snapshotJSON, "-o", prof); code != 0 {
		t.Errorf("--fresh: exit %d, %s", code, stderr)
	}
}
