package kubeconfig

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podlint/podlint/internal/observe"
)

// writeKubeconfig points $KUBECONFIG at server under the context "test"
// with namespace ns, a bearer token and, for https, the server's CA.
func writeKubeconfig(t *testing.T, server, caPEM, ns string) {
	t.Helper()
	ca := ""
	if caPEM != "" {
		ca = ", certificate-authority-data: " + base64.StdEncoding.EncodeToString([]byte(caPEM))
	}
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: %q%s}
- name: other
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: observer
  user: {token: not-a-secret}
contexts:
- name: test
  context: {cluster: c, user: observer, namespace: %q}
- name: second
  context: {cluster: other, user: observer}
current-context: test
`, server, ca, ns)
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", p)
}

func TestConnectContextAndNamespace(t *testing.T) {
	writeKubeconfig(t, "http://127.0.0.1:1", "", "shop")
	for _, tc := range []struct {
		context, namespace string
		all                bool
		wantContext, want  string
	}{
		{"", "", false, "test", "shop"},
		{"", "", true, "test", ""},
		{"", "web", false, "test", "web"},
		{"second", "", false, "second", "default"},
	} {
		c, err := Connect(tc.context, tc.namespace, tc.all)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if c.Context != tc.wantContext || c.Namespace != tc.want {
			t.Errorf("%+v: context %q namespace %q; want %q %q", tc, c.Context, c.Namespace, tc.wantContext, tc.want)
		}
	}
	if _, err := Connect("nope", "", false); err == nil || !strings.Contains(err.Error(), `no context "nope"`) {
		t.Errorf("unknown context: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, []byte("apiVersion: v1\nkind: Config\n"), 0o600)
	t.Setenv("KUBECONFIG", empty)
	if _, err := Connect("", "", false); err == nil || !strings.Contains(err.Error(), "no current context") {
		t.Errorf("no current context: %v", err)
	}
}

// Live reaches the server as the kubeconfig says (its CA, its token, the
// context's namespace), sends GET requests only and records the context.
func TestLiveAuthenticatesAsTheKubeconfigSays(t *testing.T) {
	var mu sync.Mutex
	var requests []string
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests = append(requests, r.Method+" "+r.URL.Path)
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer not-a-secret" || r.Header.Get("User-Agent") != "podlint-observe" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}`)
	}))
	defer ts.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	writeKubeconfig(t, ts.URL, string(ca), "shop")
	p, err := Live(context.Background(), observe.Request{Timeout: time.Minute, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if p.Context != "test" || p.Mode != observe.ModeSnapshot {
		t.Errorf("context %q mode %q; want test, snapshot", p.Context, p.Mode)
	}
	want := []string{"GET /api/v1/namespaces/shop/pods", "GET /api/v1/namespaces/shop/events",
		"GET /apis/apps/v1/namespaces/shop/replicasets", "GET /apis/batch/v1/namespaces/shop/jobs"}
	if !slices.Equal(requests, want) {
		t.Errorf("requests %q; want %q", requests, want)
	}
}
