package lsp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/podlint/podlint/analyzer"
	"github.com/podlint/podlint/finding"
	"github.com/sourcegraph/jsonrpc2"
)

// defaultConfig is what check uses without flags or a configuration file.
func defaultConfig(string) (*Config, error) {
	return &Config{Analyzer: analyzer.Default()}, nil
}

// client is an editor talking to an in-process server over pipes.
type client struct {
	t     testing.TB
	srv   *Server
	conn  *jsonrpc2.Conn
	diags chan publishDiagnosticsParams
	// refreshes receives the server's workspace/inlayHint/refresh requests.
	refreshes chan struct{}
	done      chan int // Serve's exit code
	cancel    context.CancelFunc
}

type clientHandler struct{ c *client }

func (h clientHandler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Method == "workspace/inlayHint/refresh" {
		select {
		case h.c.refreshes <- struct{}{}:
		default:
		}
		_ = conn.Reply(ctx, req.ID, nil)
		return
	}
	if req.Method == "textDocument/publishDiagnostics" && req.Params != nil {
		var p publishDiagnosticsParams
		if err := json.Unmarshal(*req.Params, &p); err == nil {
			h.c.diags <- p
		}
	}
}

type pipe struct {
	io.Reader
	io.WriteCloser
}

// startServer runs a server with engine e; setup may change it before it
// reads its first message.
func startServer(t testing.TB, e Engine, debounce time.Duration, setup func(*Server)) *client {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &client{t: t, diags: make(chan publishDiagnosticsParams, 10000), refreshes: make(chan struct{}, 100), done: make(chan int, 1), cancel: cancel}
	s := newServer(Options{Engine: e, Debounce: debounce, Version: "test"})
	if setup != nil {
		setup(s)
	}
	c.srv = s
	go func() {
		conn := s.start(ctx, newStream(sr, sw, sw))
		select {
		case <-conn.DisconnectNotify():
		case <-s.exited:
			conn.Close()
		}
		s.stopTimers()
		s.mu.Lock()
		code := 1
		select {
		case <-s.exited:
			code = s.exitCode
		default:
		}
		s.mu.Unlock()
		c.done <- code
	}()
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(pipe{cr, cw}, jsonrpc2.VSCodeObjectCodec{}), clientHandler{c})
	t.Cleanup(func() {
		c.conn.Close()
		cancel()
	})
	return c
}

func (c *client) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return c.conn.Call(ctx, method, params, result)
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) initialize(encodings ...string) initializeResult {
	c.t.Helper()
	var res initializeResult
	params := map[string]any{"processId": nil, "rootUri": nil,
		"capabilities": map[string]any{"general": map[string]any{"positionEncodings": encodings}}}
	if err := c.call("initialize", params, &res); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	c.notify("initialized", map[string]any{})
	return res
}

func (c *client) initializeIn(root string, encodings ...string) initializeResult {
	c.t.Helper()
	var res initializeResult
	params := map[string]any{"processId": nil, "rootUri": pathURI(root),
		"workspaceFolders": []map[string]string{{"uri": pathURI(root), "name": "ws"}},
		"capabilities":     map[string]any{"general": map[string]any{"positionEncodings": encodings}}}
	if err := c.call("initialize", params, &res); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	c.notify("initialized", map[string]any{})
	return res
}

func (c *client) open(path, text string, version int) string {
	uri := pathURI(path)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": version, "text": text}})
	return uri
}

func (c *client) change(uri, text string, version int) {
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"text": text}}})
}

// waitDiags returns the next diagnostics published for uri.
func (c *client) waitDiags(uri string) publishDiagnosticsParams {
	c.t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case p := <-c.diags:
			if p.URI == uri {
				return p
			}
		case <-timeout:
			c.t.Fatalf("no diagnostics for %s", uri)
		}
	}
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// recorder wraps an engine and counts and can hold Lint calls.
type recorder struct {
	Engine
	mu    sync.Mutex
	calls int
	hold  func(n int, text []byte) // called before the n-th Lint (from 1)
}

func (r *recorder) Lint(path string, text []byte) []finding.Finding {
	r.mu.Lock()
	r.calls++
	n, hold := r.calls, r.hold
	r.mu.Unlock()
	if hold != nil {
		hold(n, text)
	}
	return r.Engine.Lint(path, text)
}
