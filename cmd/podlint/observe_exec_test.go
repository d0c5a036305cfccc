package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/podlint/podlint/internal/testbin"
)

// buildPodlint builds podlint with podlint-render and podlint-observe
// beside it, as go install ./cmd/... installs them.
func buildPodlint(t *testing.T) string {
	t.Helper()
	bin, temporary, out, err := testbin.BuildPodlint("../..", "cmd-podlint")
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if temporary {
		t.Cleanup(func() { os.RemoveAll(filepath.Dir(bin)) })
	}
	return bin
}

// fakeCluster serves snapshotJSON's Pods, core events, ReplicaSets and
// Jobs as an API server lists them, over TLS, to the bearer token "t"; a
// watch is held
// open until the client goes, and announced on watching.
func fakeCluster(t *testing.T) (url string, watching <-chan struct{}) {
	t.Helper()
	return fakeClusterAs(t, "{token: t}")
}

// fakeClusterAs is fakeCluster with user as the kubeconfig's user entry.
func fakeClusterAs(t *testing.T, user string) (url string, watching <-chan struct{}) {
	t.Helper()
	data, err := os.ReadFile(snapshotJSON)
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Items []map[string]any }
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"v1/Pod": "/api/v1/pods", "v1/Event": "/api/v1/events", "apps/v1/ReplicaSet": "/apis/apps/v1/replicasets", "batch/v1/Job": "/apis/batch/v1/jobs"}
	items := map[string][]map[string]any{}
	for _, it := range list.Items {
		if p := paths[fmt.Sprint(it["apiVersion"], "/", it["kind"])]; p != "" {
			items[p] = append(items[p], it)
		}
	}
	w := make(chan struct{}, 16)
	var once sync.Once
	ts := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			rw.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(rw, `{"kind":"Status","message":"Unauthorized","code":401}`)
			return
		}
		if r.URL.Query().Get("watch") == "1" {
			once.Do(func() { close(w) })
			<-r.Context().Done()
			return
		}
		page := items[r.URL.Path]
		if page == nil {
			page = []map[string]any{}
		}
		json.NewEncoder(rw).Encode(map[string]any{"kind": "List", "apiVersion": "v1", "metadata": map[string]any{"resourceVersion": "100"}, "items": page})
	}))
	t.Cleanup(ts.Close)
	// clientcmd applies a user's credentials only over TLS.
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}))
	kube := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: " + ts.URL + ", certificate-authority-data: " + ca + "}}]\nusers: [{name: u, user: " + user + "}]\n" +
		"contexts: [{name: fake, context: {cluster: c, user: u}}]\ncurrent-context: fake\n"
	if err := os.WriteFile(kube, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kube)
	return ts.URL, w
}

// snapshotTime is the one line of a profile that depends on the clock:
// when the snapshot was taken.
var snapshotTime = regexp.MustCompile(`(?m)^(\s+to: ).*$`)

// podlint reads a live cluster with the podlint-observe beside it, and
// writes what the in-process client writes; merging into the profile at
// --output stays podlint's.
func TestObserveStartsPodlintObserve(t *testing.T) {
	bin := buildPodlint(t)
	fakeCluster(t)
	dir := t.TempDir()
	inProcess, viaChild := filepath.Join(dir, "in.yaml"), filepath.Join(dir, "child.yaml")
	if code, _, stderr := run(t, "observe", "-A", "-o", inProcess); code != 0 {
		t.Fatalf("in-process: exit %d: %s", code, stderr)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "observe", "-A", "-o", viaChild)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("podlint observe: %v: %s", err, stderr.String())
	}
	if want := "podlint: wrote " + viaChild + ": 6 workloads, "; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr %q; want it to start %q", stderr.String(), want)
	}
	a, _ := os.ReadFile(inProcess)
	b, _ := os.ReadFile(viaChild)
	a, b = snapshotTime.ReplaceAll(a, []byte("${1}T")), snapshotTime.ReplaceAll(b, []byte("${1}T"))
	if !bytes.Equal(a, b) || !bytes.Contains(a, []byte("context: fake")) {
		t.Errorf("the profile through podlint-observe differs from the in-process one (or names no context):\n%s\n---\n%s", a, b)
	}
	stderr.Reset()
	cmd = exec.Command(bin, "observe", "-A", "-o", viaChild)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || !strings.Contains(stderr.String(), ": 6 workloads, ") || !strings.Contains(stderr.String(), "2 recordings (snapshot)") {
		t.Errorf("observing again into the profile: %v: %s; want the two recordings merged", err, stderr.String())
	}
}

// A kubeconfig whose user is an exec credential plugin (as EKS and GKE
// write) authenticates through podlint-observe as it did in podlint: the
// plugin runs with podlint's environment and its token reaches the server.
func TestObserveExecCredentialPlugin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the plugin is a shell script")
	}
	bin := buildPodlint(t)
	plugin := filepath.Join(t.TempDir(), "credential-plugin")
	script := "#!/bin/sh\n[ \"$PODLINT_TEST_PLUGIN\" = yes ] || exit 3\n" +
		`echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'` + "\n"
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	fakeClusterAs(t, "{exec: {apiVersion: client.authentication.k8s.io/v1, command: "+plugin+", interactiveMode: Never}}")
	t.Setenv("PODLINT_TEST_PLUGIN", "yes")
	prof := filepath.Join(t.TempDir(), "observed.yaml")
	out, err := exec.Command(bin, "observe", "-A", "-o", prof).CombinedOutput()
	if err != nil || !strings.Contains(string(out), ": 6 workloads, ") {
		t.Errorf("observe with an exec credential plugin: %v: %s", err, out)
	}
}

// An interrupt that reaches podlint alone ends the child's --watch, and the
// profile of what it recorded is written, as when podlint read the cluster
// itself.
func TestObserveInterruptEndsTheWatch(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signal to send to one process; the console's Ctrl-C reaches the child itself")
	}
	bin := buildPodlint(t)
	_, watching := fakeCluster(t)
	prof := filepath.Join(t.TempDir(), "observed.yaml")
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "observe", "-A", "--watch", "10m", "-o", prof)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-watching:
	case err := <-exited:
		t.Fatalf("podlint observe --watch ended before it watched: %v: %s", err, stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil || !strings.Contains(stderr.String(), "(watch)") {
		t.Fatalf("interrupted watch: %v: %s", err, stderr.String())
	}
	if data, _ := os.ReadFile(prof); !bytes.Contains(data, []byte("mode: watch")) {
		t.Errorf("the profile of the interrupted watch:\n%s", data)
	}
}

// Without podlint-observe beside it, podlint says which file it looked for
// in one line; --from needs no cluster and still works. podlint-observe run
// by hand refuses.
func TestObserveWithoutPodlintObserve(t *testing.T) {
	bin := buildPodlint(t)
	fakeCluster(t)
	alone := filepath.Join(t.TempDir(), filepath.Base(bin))
	copyFile(t, bin, alone)
	var stderr bytes.Buffer
	cmd := exec.Command(alone, "observe", "-A")
	cmd.Stderr = &stderr
	err := cmd.Run()
	want := filepath.Join(filepath.Dir(alone), "podlint-observe")
	if code := exitCode(err); code != 2 || !strings.Contains(stderr.String(), want) || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
		t.Errorf("exit %d, stderr %q; want exit 2 and one line naming %s", code, stderr.String(), want)
	}
	cmd = exec.Command(alone, "observe", "--from", snapshotJSON, "-o", filepath.Join(t.TempDir(), "p.yaml"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("observe --from without podlint-observe: %v: %s", err, out)
	}
	observeBin := filepath.Join(filepath.Dir(bin), filepath.Base(want))
	if runtime.GOOS == "windows" {
		observeBin += ".exe"
	}
	out, err := exec.Command(observeBin).CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), "run podlint observe instead") {
		t.Errorf("podlint-observe by hand: exit %d: %s", code, out)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
