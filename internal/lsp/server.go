// Package lsp is `podlint lsp`: a Language Server (LSP 3.17) over standard
// input and output that shows podlint's findings as diagnostics while the
// user types, the computed timeline of a lifecycle field on hover, and
// quick fixes and suppressions as code actions. The JSON-RPC transport is
// github.com/sourcegraph/jsonrpc2; the protocol types are podlint's own
// (protocol.go), only those of the messages the server handles. What the
// server knows of podlint goes through Engine (podlint.go), so the protocol
// side can be tested with an engine of its own.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/internal/safefile"
	"github.com/podlint/podlint/manifest"
	"github.com/sourcegraph/jsonrpc2"
)

// Engine is what the server asks of podlint. Paths are absolute and
// cleaned. The server calls Lint, Hover and Fixes from several goroutines.
type Engine interface {
	// Open starts a session over the workspace folders.
	Open(roots []string)
	// Lint returns the findings of the open document path with text:
	// those check reports for that file, with the other objects of the
	// workspace for the cross-object rules.
	Lint(path string, text []byte) []finding.Finding
	// Hover describes the lifecycle field at byte offset off of text, as
	// plain text fitted to width columns (a chart), and returns the byte
	// range of the field's key; chart is "" when there is nothing to show.
	Hover(path string, text []byte, off, width int) (chart string, from, to int)
	// Saved tells that path was saved: the workspace's objects are read
	// again, and a Helm chart or kustomization that holds path is rendered.
	// It returns the findings of rendered roots by file, for every file
	// that had or has one (an empty list clears a file's).
	Saved(path string) map[string][]finding.Finding
	// Rule returns the help address of a rule ID.
	Rule(id string) (helpURI string)
	// Fixes returns, for each finding of fs (the findings of path with
	// text), the fixes that pass the verification of podlint fix.
	Fixes(path string, text []byte, fs []finding.Finding) [][]finding.Fix
	// FixAll returns text with every safe fix applied as podlint fix
	// applies them, and how many were; 0 and nil when none applies.
	FixAll(path string, text []byte) ([]byte, int)
	// InlayHints returns the computed timeline of the lifecycle fields of
	// text, as notes at byte offsets (probe, preStop and grace period
	// lines).
	InlayHints(path string, text []byte) []Hint
}

// Options configure a server.
type Options struct {
	Engine  Engine
	Version string
	// Debounce is how long the server waits after a change before it
	// lints (150 ms when zero; negative lints at once).
	Debounce time.Duration
	// Log receives the server's own messages (standard error for `podlint
	// lsp`); nil discards them.
	Log io.Writer
}

// Server is one session.
type Server struct {
	opts     Options
	debounce time.Duration
	log      *log.Logger
	conn     *jsonrpc2.Conn

	mu          sync.Mutex
	state       int // stateNew, stateRunning, stateShutdown
	enc         string
	hoverWidth  int
	hoverKind   string               // markupMarkdown or markupPlainText
	hintRefresh bool                 // the client takes workspace/inlayHint/refresh
	docs        map[string]*document // by URI as the client sent it
	rendered    map[string][]finding.Finding
	roots       []string                      // workspace folders, bounding what readText reads
	inflight    map[string]context.CancelFunc // requests by id
	exitCode    int
	exited      chan struct{}
	publishMu   sync.Mutex
	beforeReply func(ctx context.Context, method string)      // tests
	afterLint   func(uri string, version int, published bool) // tests
}

const (
	stateNew = iota
	stateRunning
	stateShutdown
)

type document struct {
	uri, path string
	version   int
	text      *text
	timer     *time.Timer
	// the findings of the last version linted, for code actions
	lintedVersion int
	linted        []finding.Finding
	lintedText    *text
}

// Serve runs a session on r and w until the client sends exit or closes
// its end, and returns the exit code the LSP asks for: 0 after shutdown,
// 1 otherwise.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) int {
	s := newServer(opts)
	conn := s.start(ctx, newStream(r, w, nil))
	select {
	case <-conn.DisconnectNotify():
	case <-s.exited:
		conn.Close()
	}
	s.stopTimers()
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
		return s.exitCode
	default:
		return 1 // the client went away without exit
	}
}

func newServer(opts Options) *Server {
	s := &Server{opts: opts, debounce: opts.Debounce, enc: encodingUTF16, hoverWidth: 60, hoverKind: markupMarkdown,
		docs: map[string]*document{}, rendered: map[string][]finding.Finding{}, inflight: map[string]context.CancelFunc{},
		exited: make(chan struct{})}
	if s.debounce == 0 {
		s.debounce = 150 * time.Millisecond
	}
	out := opts.Log
	if out == nil {
		out = io.Discard
	}
	s.log = log.New(out, "podlint lsp: ", 0)
	return s
}

func (s *Server) start(ctx context.Context, st jsonrpc2.ObjectStream) *jsonrpc2.Conn {
	// The connection reads at once: the handler records it (under s.mu)
	// before anything uses it.
	return jsonrpc2.NewConn(ctx, st, handler{s}, jsonrpc2.SetLogger(s.log))
}

// connection returns the session's connection.
func (s *Server) connection() *jsonrpc2.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

// handler replies to what handle returns, except for the requests that
// reply themselves (errAsync).
type handler struct{ s *Server }

func (h handler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	h.s.mu.Lock()
	h.s.conn = conn
	h.s.mu.Unlock()
	result, err := h.s.handle(ctx, conn, req)
	if req.Notif || errors.Is(err, errAsync) {
		return
	}
	h.s.reply(req, result, err)
}

func (s *Server) reply(req *jsonrpc2.Request, result any, err error) {
	resp := &jsonrpc2.Response{ID: req.ID}
	if err == nil {
		err = resp.SetResult(result)
	}
	if err != nil {
		var e *jsonrpc2.Error
		if !errors.As(err, &e) {
			e = rpcError(codeInternalError, "%v", err)
		}
		resp.Error = e
	}
	if serr := s.connection().SendResponse(context.Background(), resp); serr != nil && !errors.Is(serr, jsonrpc2.ErrClosed) {
		s.log.Printf("replying to %s: %v", req.Method, serr)
	}
}

// readText reads a file that is not open, for the positions of its
// diagnostics; a file it may not read is empty text (the diagnostic
// then sits at the file's start).
//
// The file is named by a finding of a rendered chart or kustomization, and
// a chart from a pull request can make it anything: a link to a FIFO (the
// open never returns), to /dev/zero (read until memory runs out) or to
// /proc/self/environ. So it is read as check reads a file it derives
// (internal/safefile): a regular file inside the repository holding the
// workspace folder it is in, links followed only inside it, nothing when
// it is in no workspace folder.
func (s *Server) readText(path string) *text {
	s.mu.Lock()
	roots := s.roots
	s.mu.Unlock()
	for _, ws := range roots {
		if path != ws && !strings.HasPrefix(path, strings.TrimSuffix(ws, string(filepath.Separator))+string(filepath.Separator)) {
			continue
		}
		repo, err := safefile.RepoRoot(ws)
		if err != nil {
			continue
		}
		r, err := safefile.Open(repo, filepath.Dir(path))
		if err != nil {
			continue
		}
		data, err := r.ReadFile(path, manifest.DefaultLimits.MaxFileSize)
		r.Close()
		if err == nil {
			return newText(data)
		}
	}
	return newText(nil)
}

func (s *Server) stopTimers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		if d.timer != nil {
			d.timer.Stop()
		}
	}
}

// rpcError is a JSON-RPC error response.
func rpcError(code int, format string, args ...any) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: int64(code), Message: fmt.Sprintf(format, args...)}
}

// handle serves one message in the order they arrive. Notifications (the
// document's text) are handled at once, so they stay in order; requests
// that read a document (hover, code actions) run on their own goroutine
// so that $/cancelRequest can reach them. A panic becomes an error
// response (or a log line for a notification) and the session goes on.
func (s *Server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Printf("internal error in %s: %v\n%s", req.Method, p, debug.Stack())
			result, err = nil, rpcError(codeInternalError, "podlint: internal error in %s: %v", req.Method, p)
		}
	}()
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	switch {
	case req.Method == "exit":
		s.exit()
		return nil, nil
	case state == stateNew && req.Method != "initialize":
		if req.Notif {
			return nil, nil // dropped, as the LSP says
		}
		return nil, rpcError(codeServerNotInitialized, "%s before initialize", req.Method)
	case state == stateShutdown:
		if req.Notif {
			return nil, nil
		}
		return nil, rpcError(codeInvalidRequest, "%s after shutdown", req.Method)
	}
	params := []byte("null")
	if req.Params != nil {
		params = *req.Params
	}
	decode := func(v any) error {
		if err := json.Unmarshal(params, v); err != nil {
			return rpcError(codeInvalidParams, "%s: %v", req.Method, err)
		}
		return nil
	}
	switch req.Method {
	case "initialize":
		if state != stateNew {
			return nil, rpcError(codeInvalidRequest, "initialize sent twice")
		}
		var p initializeParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return s.initialize(&p), nil
	case "initialized":
		return nil, nil
	case "shutdown":
		s.mu.Lock()
		s.state = stateShutdown
		s.mu.Unlock()
		s.stopTimers()
		return nil, nil
	case "$/cancelRequest":
		var p cancelParams
		var id jsonrpc2.ID
		if decode(&p) == nil && id.UnmarshalJSON(p.ID) == nil {
			s.mu.Lock()
			if cancel := s.inflight[id.String()]; cancel != nil {
				cancel()
			}
			s.mu.Unlock()
		}
		return nil, nil
	case "textDocument/didOpen":
		var p didOpenParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		s.open(&p)
		return nil, nil
	case "textDocument/didChange":
		var p didChangeParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		s.change(&p)
		return nil, nil
	case "textDocument/didSave":
		var p didSaveParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		go s.saved(p.TextDocument.URI)
		return nil, nil
	case "textDocument/didClose":
		var p didCloseParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		s.close(p.TextDocument.URI)
		return nil, nil
	case "textDocument/hover":
		var p textDocumentPositionParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		s.async(ctx, req, func(ctx context.Context) (any, error) { return s.hover(&p), nil })
		return nil, errAsync
	case "textDocument/inlayHint":
		var p inlayHintParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		s.async(ctx, req, func(ctx context.Context) (any, error) { return s.inlayHints(&p), nil })
		return nil, errAsync
	case "textDocument/codeAction":
		var p codeActionParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		s.async(ctx, req, func(ctx context.Context) (any, error) { return s.codeActions(&p), nil })
		return nil, errAsync
	}
	if req.Notif {
		// Unknown notifications are dropped: those starting with "$/"
		// may be ignored, as the LSP says, and a reply to any other is
		// not allowed.
		return nil, nil
	}
	// The LSP: "If a server or client receives a request starting with
	// '$/' it must error the request with error code MethodNotFound".
	return nil, rpcError(codeMethodNotFound, "method %q is not supported", req.Method)
}

// errAsync tells the handler wrapper that the reply is sent later.
var errAsync = errors.New("reply sent asynchronously")

// async runs a request on its own goroutine; $/cancelRequest cancels its
// context, and a cancelled request gets RequestCancelled instead of its
// result.
func (s *Server) async(ctx context.Context, req *jsonrpc2.Request, run func(context.Context) (any, error)) {
	ctx, cancel := context.WithCancel(ctx)
	key := req.ID.String()
	s.mu.Lock()
	s.inflight[key] = cancel
	hook := s.beforeReply
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.inflight, key)
			s.mu.Unlock()
			cancel()
		}()
		var result any
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					s.log.Printf("internal error in %s: %v\n%s", req.Method, p, debug.Stack())
					err = rpcError(codeInternalError, "podlint: internal error in %s: %v", req.Method, p)
				}
			}()
			if hook != nil {
				hook(ctx, req.Method)
			}
			if ctx.Err() == nil {
				result, err = run(ctx)
			}
		}()
		if ctx.Err() != nil && err == nil {
			err = rpcError(codeRequestCancelled, "%s was cancelled", req.Method)
		}
		s.reply(req, result, err)
	}()
}

func (s *Server) exit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.exited:
		return
	default:
	}
	if s.state != stateShutdown {
		s.exitCode = 1
	}
	close(s.exited)
}

func (s *Server) initialize(p *initializeParams) *initializeResult {
	enc := encodingUTF16
	for _, e := range p.Capabilities.General.PositionEncodings {
		if e == encodingUTF8 {
			enc = encodingUTF8
		}
	}
	var roots []string
	for _, f := range p.WorkspaceFolders {
		if path, ok := uriPath(f.URI); ok {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 {
		if path, ok := uriPath(p.RootURI); ok {
			roots = append(roots, path)
		} else if p.RootPath != "" {
			roots = append(roots, filepath.Clean(p.RootPath))
		}
	}
	hoverKind := markupMarkdown
	for _, k := range p.Capabilities.TextDocument.Hover.ContentFormat {
		// The first kind the server can write, as the client prefers it.
		if k == markupMarkdown || k == markupPlainText {
			hoverKind = k
			break
		}
	}
	s.mu.Lock()
	s.enc = enc
	s.hoverKind = hoverKind
	s.hintRefresh = p.Capabilities.Workspace.InlayHint.RefreshSupport
	if o := p.InitializationOptions; o != nil && o.HoverWidth > 0 {
		s.hoverWidth = max(o.HoverWidth, 40)
	}
	s.state = stateRunning
	s.roots = roots
	s.mu.Unlock()
	s.opts.Engine.Open(roots)
	res := &initializeResult{ServerInfo: serverInfo{Name: "podlint", Version: s.opts.Version}}
	c := &res.Capabilities
	c.PositionEncoding = enc
	c.TextDocumentSync = textDocumentSync{OpenClose: true, Change: 1, Save: saveOptions{IncludeText: false}}
	c.HoverProvider = true
	c.InlayHintProvider = true
	c.CodeActionProvider.CodeActionKinds = []string{kindQuickFix, kindSourceFix}
	return res
}

// uriPath returns the path of a file: URI.
func uriPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), true
}

// pathURI is the file: URI of an absolute path.
func pathURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func (s *Server) open(p *didOpenParams) {
	path, ok := uriPath(p.TextDocument.URI)
	if !ok {
		return // not a file: nothing to lint it against
	}
	s.mu.Lock()
	d := &document{uri: p.TextDocument.URI, path: path, version: p.TextDocument.Version, text: newText([]byte(p.TextDocument.Text)), lintedVersion: -1 << 31}
	if old := s.docs[d.uri]; old != nil && old.timer != nil {
		old.timer.Stop()
	}
	s.docs[d.uri] = d
	s.schedule(d, 0)
	s.mu.Unlock()
}

func (s *Server) change(p *didChangeParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[p.TextDocument.URI]
	if d == nil || len(p.ContentChanges) == 0 {
		return
	}
	// Full-text sync: the last change is the whole text.
	c := p.ContentChanges[len(p.ContentChanges)-1]
	if c.Range != nil {
		s.log.Printf("%s: ignoring an incremental change (the server asked for full text)", d.uri)
		return
	}
	d.version = p.TextDocument.Version
	d.text = newText([]byte(c.Text))
	s.schedule(d, s.debounce)
}

// schedule lints d after delay, replacing a lint scheduled before.
// s.mu is held.
func (s *Server) schedule(d *document, delay time.Duration) {
	if d.timer != nil {
		d.timer.Stop()
	}
	if delay < 0 {
		delay = 0
	}
	uri := d.uri
	d.timer = time.AfterFunc(delay, func() { s.lint(uri) })
}

// lint lints the current version of a document and publishes its
// diagnostics, unless a newer version arrived meanwhile (its own lint
// publishes then).
func (s *Server) lint(uri string) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Printf("internal error linting %s: %v\n%s", uri, p, debug.Stack())
		}
	}()
	s.mu.Lock()
	d := s.docs[uri]
	if d == nil || s.state != stateRunning {
		s.mu.Unlock()
		return
	}
	version, t, path := d.version, d.text, d.path
	hook := s.afterLint
	s.mu.Unlock()
	fs := s.opts.Engine.Lint(path, t.data)
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	s.mu.Lock()
	if s.docs[uri] != d || d.version != version {
		s.mu.Unlock()
		if hook != nil {
			hook(uri, version, false)
		}
		return
	}
	d.lintedVersion, d.linted, d.lintedText = version, fs, t
	all := append(fs[:len(fs):len(fs)], s.rendered[path]...)
	enc := s.enc
	s.mu.Unlock()
	v := version
	s.notify("textDocument/publishDiagnostics", &publishDiagnosticsParams{URI: uri, Version: &v, Diagnostics: s.diagnostics(all, t, enc)})
	s.refreshHints()
	if hook != nil {
		hook(uri, version, true)
	}
}

// refreshHints asks a client that supports it to request the inlay hints
// again: the timeline changes with the text, and a client may otherwise
// keep showing the hints of the text before the edit. The reply is not
// waited for.
func (s *Server) refreshHints() {
	s.mu.Lock()
	ok := s.hintRefresh
	s.mu.Unlock()
	if !ok {
		return
	}
	conn := s.connection()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := conn.Call(ctx, "workspace/inlayHint/refresh", nil, nil); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
			s.log.Printf("workspace/inlayHint/refresh: %v", err)
		}
	}()
}

func (s *Server) notify(method string, params any) {
	if err := s.connection().Notify(context.Background(), method, params); err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		s.log.Printf("sending %s: %v", method, err)
	}
}

// saved re-reads the workspace, renders the root that holds the file and
// lints every open document again.
func (s *Server) saved(uri string) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Printf("internal error after saving %s: %v\n%s", uri, p, debug.Stack())
		}
	}()
	path, ok := uriPath(uri)
	if !ok {
		return
	}
	byFile := s.opts.Engine.Saved(path)
	s.mu.Lock()
	if s.state != stateRunning {
		s.mu.Unlock()
		return
	}
	open := map[string]bool{}
	for _, d := range s.docs {
		open[d.path] = true
		s.schedule(d, 0)
	}
	var files []string
	for f, fs := range byFile {
		if len(fs) == 0 {
			delete(s.rendered, f)
		} else {
			s.rendered[f] = fs
		}
		if !open[f] {
			files = append(files, f)
		}
	}
	enc := s.enc
	s.mu.Unlock()
	sort.Strings(files)
	s.publishMu.Lock()
	defer s.publishMu.Unlock()
	for _, f := range files {
		t := s.readText(f)
		s.notify("textDocument/publishDiagnostics", &publishDiagnosticsParams{URI: pathURI(f), Diagnostics: s.diagnostics(byFile[f], t, enc)})
	}
}

func (s *Server) close(uri string) {
	s.mu.Lock()
	d := s.docs[uri]
	if d != nil && d.timer != nil {
		d.timer.Stop()
	}
	delete(s.docs, uri)
	keep := d != nil && len(s.rendered[d.path]) > 0
	s.mu.Unlock()
	if d != nil && !keep {
		// A closed file's diagnostics go away with it (those of a
		// rendered root stay until the next render).
		s.publishMu.Lock()
		s.notify("textDocument/publishDiagnostics", &publishDiagnosticsParams{URI: uri, Diagnostics: []Diagnostic{}})
		s.publishMu.Unlock()
	}
}

// diagnostics converts findings of the file whose text is t.
func (s *Server) diagnostics(fs []finding.Finding, t *text, enc string) []Diagnostic {
	out := make([]Diagnostic, 0, len(fs))
	for i := range fs {
		out = append(out, s.diagnostic(&fs[i], t, enc))
	}
	return out
}

func (s *Server) diagnostic(f *finding.Finding, t *text, enc string) Diagnostic {
	d := Diagnostic{Range: findingRange(f.Line, f.Column, t, enc), Code: f.RuleID, Source: "podlint", Message: f.Headline()}
	switch f.Severity {
	case finding.Error:
		d.Severity = severityError
	case finding.Warning:
		d.Severity = severityWarning
	default:
		d.Severity = severityInformation
	}
	if e := f.Explanation(); e != "" {
		d.Message += "\n\n" + e
	}
	if href := s.opts.Engine.Rule(f.RuleID); href != "" {
		d.CodeDescription = &codeDescription{Href: href}
	}
	for _, r := range f.Related {
		rt := t
		if r.File != "" && r.File != f.File {
			rt = s.readText(r.File)
		}
		file := r.File
		if file == "" {
			file = f.File
		}
		d.RelatedInformation = append(d.RelatedInformation, diagnosticRelatedInformation{
			Location: Location{URI: pathURI(file), Range: findingRange(r.Line, r.Column, rt, enc)}, Message: r.Message})
	}
	return d
}

// findingRange is the range of the token a finding's 1-based line and
// byte column point at.
func findingRange(line, col int, t *text, enc string) Range {
	n := max(line-1, 0)
	l := t.line(n)
	start := max(col-1, 0)
	end := tokenEnd(l, start)
	return Range{Start: t.position(n, start, enc), End: t.position(n, end, enc)}
}
