package lsp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hintPod has a liveness probe, a preStop hook and a grace period, one
// per line, for the inline timeline.
const hintPod = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 30
  containers:
    - name: app
      image: nginx
      livenessProbe:
        httpGet: {path: /healthz, port: 8080}
        periodSeconds: 10
        failureThreshold: 3
      lifecycle:
        preStop:
          sleep: {seconds: 5}
`

// TestInlayHintsFollowTheText: the inline timeline at the protocol level
// (Neovim 0.7 has no inlay hints): the liveness probe's line says when it
// kills, and after an edit of periodSeconds the hint says the new window;
// the preStop and grace period lines say when SIGTERM and SIGKILL come.
// The server asks the client to refresh its hints after each lint.
func TestInlayHintsFollowTheText(t *testing.T) {
	e, dir := newEngine(t)
	c := startServer(t, e, -1, nil)
	var res initializeResult
	params := map[string]any{"processId": nil, "rootUri": pathURI(dir), "capabilities": map[string]any{
		"general":   map[string]any{"positionEncodings": []string{"utf-8"}},
		"workspace": map[string]any{"inlayHint": map[string]any{"refreshSupport": true}}}}
	if err := c.call("initialize", params, &res); err != nil {
		t.Fatal(err)
	}
	c.notify("initialized", map[string]any{})
	if !res.Capabilities.InlayHintProvider {
		t.Fatal("the server does not announce inlay hints")
	}
	uri := c.open(filepath.Join(dir, "pod.yaml"), hintPod, 1)
	c.waitDiags(uri)
	hints := func() map[int]string {
		t.Helper()
		var hs []inlayHint
		if err := c.call("textDocument/inlayHint", inlayHintParams{TextDocument: textDocumentIdentifier{uri}, Range: Range{Position{0, 0}, Position{100, 0}}}, &hs); err != nil {
			t.Fatal(err)
		}
		out := map[int]string{}
		for _, h := range hs {
			out[h.Position.Line] = h.Label
		}
		return out
	}
	before := hints()
	want := map[int]string{
		// SIGKILL at the grace period, delivered by the runtime up to
		// 1 s later (the default --stop-latency, T-9).
		4:  "SIGKILL at 30s–31s after delete",
		8:  "kills at 20s–31s if never healthy",
		13: "SIGTERM at 5s, SIGKILL at 30s–31s after delete",
	}
	for line, label := range want {
		if before[line] != label {
			t.Errorf("line %d: hint %q, want %q (all: %v)", line+1, before[line], label, before)
		}
	}
	select {
	case <-c.refreshes:
	case <-time.After(2 * time.Minute):
		t.Fatal("no workspace/inlayHint/refresh after the lint")
	}
	c.change(uri, strings.Replace(hintPod, "periodSeconds: 10", "periodSeconds: 20", 1), 2)
	c.waitDiags(uri)
	after := hints()
	if got, want := after[8], "kills at 40s–61s if never healthy"; got != want {
		t.Errorf("after periodSeconds 10 → 20: liveness hint %q, want %q", got, want)
	}
}
