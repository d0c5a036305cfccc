package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/podlint/podlint/finding"
	"github.com/podlint/podlint/manifest"
	"github.com/podlint/podlint/render"
	"github.com/sourcegraph/jsonrpc2"
)

// webYAML has a finding (PL101 at byte column 50 of line 12) after
// characters that take 2 bytes and 1 UTF-16 unit (é) and 4 bytes and 2
// units (𝄞), so the two encodings give different columns.
const webYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: "wéb-𝄞", image: "nginx:1.27", livenessProbe: {httpGet: {path: /healthz, port: 8080}, periodSeconds: 5, failureThreshold: 1}, readinessProbe: {httpGet: {path: /ready, port: 8080}, initialDelaySeconds: 30}}
`

func newEngine(t *testing.T) (*Podlint, string) {
	dir := t.TempDir()
	return &Podlint{Configure: defaultConfig}, dir
}

func findDiag(ds []Diagnostic, code string) *Diagnostic {
	for i := range ds {
		if ds[i].Code == code {
			return &ds[i]
		}
	}
	return nil
}

func TestDiagnosticsPositionEncoding(t *testing.T) {
	line := []byte(strings.Split(webYAML, "\n")[11])
	const col = 50 // the byte column check prints (web.yaml:12:50)
	if !bytes.HasPrefix(line[col-1:], []byte("livenessProbe:")) {
		t.Fatalf("fixture moved: %q", line[col-1:])
	}
	for _, tc := range []struct {
		offered []string
		want    string
		start   int
	}{
		{[]string{"utf-16", "utf-8"}, "utf-8", col - 1},
		{nil, "utf-16", manifest.UTF16Column(line, col) - 1},
		{[]string{"utf-32", "utf-16"}, "utf-16", manifest.UTF16Column(line, col) - 1},
	} {
		t.Run(tc.want+"/"+strings.Join(tc.offered, ","), func(t *testing.T) {
			e, dir := newEngine(t)
			c := startServer(t, e, -1, nil)
			res := c.initializeIn(dir, tc.offered...)
			if res.Capabilities.PositionEncoding != tc.want {
				t.Fatalf("positionEncoding %q, want %q", res.Capabilities.PositionEncoding, tc.want)
			}
			uri := c.open(filepath.Join(dir, "web.yaml"), webYAML, 1)
			p := c.waitDiags(uri)
			if p.Version == nil || *p.Version != 1 {
				t.Fatalf("version %v, want 1", p.Version)
			}
			d := findDiag(p.Diagnostics, "PL101")
			if d == nil {
				t.Fatalf("no PL101 in %+v", p.Diagnostics)
			}
			want := Range{Start: Position{11, tc.start}, End: Position{11, tc.start + len("livenessProbe")}}
			if d.Range != want {
				t.Errorf("range %+v, want %+v", d.Range, want)
			}
			if d.Severity != severityError || d.Source != "podlint" || d.CodeDescription == nil || !strings.HasSuffix(d.CodeDescription.Href, "/docs/rules/PL101.md") {
				t.Errorf("diagnostic %+v", d)
			}
			head, detail, ok := strings.Cut(d.Message, "\n\n")
			if !ok || !strings.Contains(head, "liveness probe kills") || !strings.Contains(detail, "startupProbe") {
				t.Errorf("message %q: want the headline, a blank line and the detail", d.Message)
			}
			if len(d.RelatedInformation) != 1 || d.RelatedInformation[0].Location.URI != uri {
				t.Errorf("related %+v", d.RelatedInformation)
			}
			if utf8.RuneCountInString(string(line[:col-1])) == tc.start && tc.want == "utf-8" {
				t.Errorf("the fixture does not tell bytes from characters")
			}
		})
	}
}

func TestWorkspaceObjects(t *testing.T) {
	e, dir := newEngine(t)
	const deploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}, annotations: {podlint.dev/expected-startup: 30s}}
    spec:
      containers:
      - name: api
        image: example/api
        ports: [{containerPort: 8080}]
        resources: {requests: {cpu: 100m, memory: 64Mi}}
`
	writeFile(t, filepath.Join(dir, "api.yaml"), deploy)
	c := startServer(t, e, -1, nil)
	c.initializeIn(dir)
	uri := c.open(filepath.Join(dir, "api.yaml"), deploy, 1)
	if d := findDiag(c.waitDiags(uri).Diagnostics, "PL705"); d != nil {
		t.Fatalf("PL705 without a Service: %+v", d)
	}
	// A Service in another file of the folder, saved: the open file's
	// cross-object finding appears.
	writeFile(t, filepath.Join(dir, "svc.yaml"), `apiVersion: v1
kind: Service
metadata: {name: api}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: 8080}]
`)
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": pathURI(filepath.Join(dir, "svc.yaml"))}})
	p := c.waitDiags(uri)
	if d := findDiag(p.Diagnostics, "PL705"); d == nil {
		t.Fatalf("no PL705 with the Service beside it: %+v", p.Diagnostics)
	}
}

func TestVersionRace(t *testing.T) {
	e, dir := newEngine(t)
	release := make(chan struct{})
	started := make(chan struct{})
	rec := &recorder{Engine: e, hold: func(n int, text []byte) {
		if n == 1 {
			close(started)
			<-release // version 1 is linted slowly
		}
	}}
	type lintEvent struct {
		version   int
		published bool
	}
	events := make(chan lintEvent, 10)
	c := startServer(t, rec, -1, func(s *Server) {
		s.afterLint = func(uri string, v int, published bool) { events <- lintEvent{v, published} }
	})
	c.initializeIn(dir)
	uri := c.open(filepath.Join(dir, "web.yaml"), webYAML, 1)
	<-started
	fixed := strings.Replace(webYAML, "failureThreshold: 1}", "failureThreshold: 1, initialDelaySeconds: 40}", 1)
	c.change(uri, fixed, 2)
	p := c.waitDiags(uri)
	if *p.Version != 2 || findDiag(p.Diagnostics, "PL101") != nil {
		t.Fatalf("first diagnostics: version %d, %+v; want version 2 without PL101", *p.Version, p.Diagnostics)
	}
	close(release)
	got := map[int]bool{}
	for range 2 {
		ev := <-events
		got[ev.version] = ev.published
	}
	if got[1] || !got[2] {
		t.Fatalf("published %v: want version 2 only", got)
	}
	select {
	case p := <-c.diags:
		t.Fatalf("diagnostics of an old version published: %+v", p)
	default:
	}
}

func TestCancelRequest(t *testing.T) {
	e, dir := newEngine(t)
	held := make(chan struct{}, 1)
	c := startServer(t, e, -1, func(s *Server) {
		s.beforeReply = func(ctx context.Context, method string) {
			if method == "textDocument/hover" {
				held <- struct{}{}
				<-ctx.Done() // a slow request, until cancelled
			}
		}
	})
	c.initializeIn(dir)
	uri := c.open(filepath.Join(dir, "web.yaml"), webYAML, 1)
	c.waitDiags(uri)
	w, err := c.conn.DispatchCall(context.Background(), "textDocument/hover", textDocumentPositionParams{TextDocument: textDocumentIdentifier{uri}, Position: Position{11, 50}}, jsonrpc2.PickID(jsonrpc2.ID{Num: 77}))
	if err != nil {
		t.Fatal(err)
	}
	<-held
	c.notify("$/cancelRequest", map[string]any{"id": 77})
	var res json.RawMessage
	err = w.Wait(context.Background(), &res)
	var rerr *jsonrpc2.Error
	if !errors.As(err, &rerr) || rerr.Code != codeRequestCancelled {
		t.Fatalf("cancelled hover: %v, want error %d", err, codeRequestCancelled)
	}
}

func TestShutdownExit(t *testing.T) {
	for _, shutdown := range []bool{true, false} {
		t.Run(fmt.Sprint("shutdown=", shutdown), func(t *testing.T) {
			e, _ := newEngine(t)
			c := startServer(t, e, -1, nil)
			var res json.RawMessage
			err := c.call("textDocument/hover", map[string]any{}, &res)
			var rerr *jsonrpc2.Error
			if !errors.As(err, &rerr) || rerr.Code != codeServerNotInitialized {
				t.Fatalf("request before initialize: %v", err)
			}
			c.initialize()
			want := 1
			if shutdown {
				want = 0
				if err := c.call("shutdown", nil, &res); err != nil || string(res) != "null" {
					t.Fatalf("shutdown: %s, %v", res, err)
				}
				err := c.call("textDocument/hover", map[string]any{}, &res)
				if !errors.As(err, &rerr) || rerr.Code != codeInvalidRequest {
					t.Fatalf("request after shutdown: %v", err)
				}
			}
			c.notify("exit", nil)
			if code := <-c.done; code != want {
				t.Fatalf("exit code %d, want %d", code, want)
			}
		})
	}
}

// rawSession writes frames to a server and reads its messages.
type rawSession struct {
	t   *testing.T
	w   io.Writer
	in  *stream
	out chan map[string]any
}

func newRawSession(t *testing.T, e Engine) (*rawSession, chan int) {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- Serve(context.Background(), sr, sw, Options{Engine: e, Debounce: -1}) }()
	r := &rawSession{t: t, w: cw, in: newStream(cr, io.Discard, nil), out: make(chan map[string]any, 100)}
	go func() {
		for {
			body, err := r.in.readFrame()
			if err != nil {
				close(r.out)
				return
			}
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
				r.out <- m
			}
		}
	}()
	t.Cleanup(func() { cw.Close(); sw.Close() })
	return r, done
}

func (r *rawSession) send(body string) {
	fmt.Fprintf(r.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// reply returns the next response (not a notification).
func (r *rawSession) reply() map[string]any {
	r.t.Helper()
	for m := range r.out {
		if _, ok := m["method"]; !ok {
			return m
		}
	}
	r.t.Fatal("the server closed its output")
	return nil
}

func errCode(m map[string]any) int {
	e, ok := m["error"].(map[string]any)
	if !ok {
		return 0
	}
	return int(e["code"].(float64))
}

type panicky struct{ Engine }

func (panicky) Hover(string, []byte, int, int) (string, int, int) { panic("hover broke") }

func TestMalformedMessages(t *testing.T) {
	e, dir := newEngine(t)
	r, done := newRawSession(t, panicky{e})
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	if m := r.reply(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	uri := pathURI(filepath.Join(dir, "web.yaml"))
	open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 1, "text": webYAML}}})
	r.send(string(open))
	hover := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{"textDocument":{"uri":%q},"position":{"line":11,"character":50}}}`, id, uri)
	}
	for _, tc := range []struct {
		name string
		send func()
		id   any
		code int
	}{
		{"not JSON", func() { r.send(`{"jsonrpc":"2.0","id":2,"method":`) }, nil, codeParseError},
		{"neither request nor response", func() { r.send(`{"jsonrpc":"2.0","id":3}`) }, 3.0, codeInvalidRequest},
		{"id of the wrong kind", func() { r.send(`{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}`) }, nil, codeInvalidRequest},
		{"no Content-Length", func() { fmt.Fprintf(r.w, "Content-Type: x\r\n\r\n") }, nil, codeInvalidRequest},
		{"bad Content-Length", func() { fmt.Fprintf(r.w, "Content-Length: -4\r\n\r\n") }, nil, codeInvalidRequest},
		{"params of the wrong type", func() {
			r.send(`{"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":"x","position":1}}`)
		}, 4.0, codeInvalidParams},
		{"unknown method", func() { r.send(`{"jsonrpc":"2.0","id":5,"method":"textDocument/formatting","params":{}}`) }, 5.0, codeMethodNotFound},
		// The LSP: a request starting with "$/" must get MethodNotFound;
		// a notification starting with "$/" is ignored (no reply: the next
		// reply read is the request's).
		{"unknown $/ request after an unknown $/ notification", func() {
			r.send(`{"jsonrpc":"2.0","method":"$/podlintNothing","params":{}}`)
			r.send(`{"jsonrpc":"2.0","id":"d","method":"$/podlintNothing","params":{}}`)
		}, "d", codeMethodNotFound},
		{"a panic in the engine", func() { r.send(hover(6)) }, 6.0, codeInternalError},
	} {
		tc.send()
		m := r.reply()
		if errCode(m) != tc.code || m["id"] != tc.id {
			t.Errorf("%s: reply %v, want error %d with id %v", tc.name, m, tc.code, tc.id)
		}
	}
	// The session still serves.
	r.send(`{"jsonrpc":"2.0","id":7,"method":"shutdown"}`)
	if m := r.reply(); m["id"] != 7.0 || errCode(m) != 0 {
		t.Fatalf("shutdown after the bad messages: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if code := <-done; code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

func TestHoverLivenessProbe(t *testing.T) {
	e, dir := newEngine(t)
	c := startServer(t, e, -1, nil)
	c.initializeIn(dir, "utf-8")
	uri := c.open(filepath.Join(dir, "web.yaml"), webYAML, 1)
	c.waitDiags(uri)
	for _, width := range []int{60} {
		var h hoverResult
		if err := c.call("textDocument/hover", textDocumentPositionParams{TextDocument: textDocumentIdentifier{uri}, Position: Position{11, 52}}, &h); err != nil {
			t.Fatal(err)
		}
		v := h.Contents.Value
		if h.Contents.Kind != markupMarkdown || !strings.HasPrefix(v, "```text\n") || !strings.HasSuffix(v, "```\n") {
			t.Errorf("a client that says nothing of hover formats gets kind %q, want markdown with a code block:\n%s", h.Contents.Kind, v)
		}
		for _, want := range []string{"Deployment web", "liveness kill if unhealthy", "first probe", "at the earliest", "at the latest", "start-up budget", "├"} {
			if !strings.Contains(v, want) {
				t.Errorf("hover lacks %q:\n%s", want, v)
			}
		}
		for _, l := range strings.Split(v, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("line of %d columns, wider than %d: %q", n, width, l)
			}
		}
		if h.Range == nil || *h.Range != (Range{Position{11, 49}, Position{11, 49 + len("livenessProbe")}}) {
			t.Errorf("range %+v", h.Range)
		}
	}
	// Not a lifecycle field: no hover.
	var res json.RawMessage
	if err := c.call("textDocument/hover", textDocumentPositionParams{TextDocument: textDocumentIdentifier{uri}, Position: Position{3, 4}}, &res); err != nil || string(res) != "null" {
		t.Errorf("hover on metadata.name: %s, %v", res, err)
	}
}

// TestHoverPlainText: a client whose hover shows only plain text
// (contentFormat ["plaintext"]) gets the chart as plain text, without
// Markdown's code fence, which it would show as it is.
func TestHoverPlainText(t *testing.T) {
	for _, tc := range []struct {
		formats []string
		kind    string
	}{
		{[]string{"plaintext"}, markupPlainText},
		{[]string{"plaintext", "markdown"}, markupPlainText},
		{[]string{"markdown", "plaintext"}, markupMarkdown},
	} {
		e, dir := newEngine(t)
		c := startServer(t, e, -1, nil)
		var res initializeResult
		params := map[string]any{"processId": nil, "rootUri": pathURI(dir), "capabilities": map[string]any{
			"general":      map[string]any{"positionEncodings": []string{"utf-8"}},
			"textDocument": map[string]any{"hover": map[string]any{"contentFormat": tc.formats}}}}
		if err := c.call("initialize", params, &res); err != nil {
			t.Fatal(err)
		}
		c.notify("initialized", map[string]any{})
		uri := c.open(filepath.Join(dir, "web.yaml"), webYAML, 1)
		c.waitDiags(uri)
		var h hoverResult
		if err := c.call("textDocument/hover", textDocumentPositionParams{TextDocument: textDocumentIdentifier{uri}, Position: Position{11, 52}}, &h); err != nil {
			t.Fatal(err)
		}
		fenced := strings.Contains(h.Contents.Value, "```")
		if h.Contents.Kind != tc.kind || fenced != (tc.kind == markupMarkdown) || !strings.Contains(h.Contents.Value, "liveness kill if unhealthy") {
			t.Errorf("contentFormat %q: kind %q (want %q), code fence %v:\n%s", tc.formats, h.Contents.Kind, tc.kind, fenced, h.Contents.Value)
		}
	}
}

// apply applies non-overlapping edits given in UTF-8 positions.
func apply(t *testing.T, src string, edits []textEdit) string {
	tx := newText([]byte(src))
	out := src
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		a, b := tx.offset(e.Range.Start, encodingUTF8), tx.offset(e.Range.End, encodingUTF8)
		out = out[:a] + e.NewText + out[b:]
	}
	return out
}

func TestSuppressHere(t *testing.T) {
	e, dir := newEngine(t)
	c := startServer(t, e, -1, nil)
	c.initializeIn(dir, "utf-8")
	path := filepath.Join(dir, "web.yaml")
	uri := c.open(path, webYAML, 1)
	c.waitDiags(uri)
	var actions []codeAction
	if err := c.call("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{uri}, Range: Range{Position{11, 50}, Position{11, 50}}}, &actions); err != nil {
		t.Fatal(err)
	}
	var sup *codeAction
	for i := range actions {
		if strings.HasPrefix(actions[i].Title, "Suppress PL101 ") {
			sup = &actions[i]
		}
	}
	if sup == nil || sup.Kind != kindQuickFix || sup.Edit == nil {
		t.Fatalf("no suppression of PL101 among %+v", actions)
	}
	fixed := apply(t, webYAML, sup.Edit.Changes[uri])
	if !strings.Contains(fixed, "\n      # podlint:ignore PL101 \n      - {name:") {
		t.Fatalf("edited text:\n%s", fixed)
	}
	fs := e.Lint(path, []byte(fixed))
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.RuleID)
	}
	if got := strings.Join(ids, " "); strings.Contains(got, "PL101") || !strings.Contains(got, "PL011") {
		t.Fatalf("after the suppression: %s; want PL011 (the reason to write) and no PL101", got)
	}
}

// dupYAML has a duplicate container name (PL010) and a suppression that
// matches nothing (PL008).
const dupYAML = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
    - name: app
      image: nginx
    # podlint:ignore PL113 no probe here to be wrong
    - name: app
      image: nginx
`

// TestSuppressHereByRule: a duplicate container (PL010) can be suppressed
// here; an unused suppression (PL008) and a missing reason (PL011) cannot
// (suppressing a suppression's finding with another suppression is
// pointless). The actions once named PL010 where they meant PL008.
func TestSuppressHereByRule(t *testing.T) {
	e, dir := newEngine(t)
	c := startServer(t, e, -1, nil)
	c.initializeIn(dir, "utf-8")
	uri := c.open(filepath.Join(dir, "pod.yaml"), dupYAML, 1)
	diags := c.waitDiags(uri).Diagnostics
	for _, want := range []struct {
		code     string
		suppress bool
	}{{"PL010", true}, {"PL008", false}} {
		d := findDiag(diags, want.code)
		if d == nil {
			t.Fatalf("no %s among %+v", want.code, diags)
		}
		var actions []codeAction
		if err := c.call("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{uri}, Range: Range{d.Range.Start, d.Range.Start}}, &actions); err != nil {
			t.Fatal(err)
		}
		got := false
		for _, a := range actions {
			if strings.HasPrefix(a.Title, "Suppress "+want.code+" ") {
				got = true
			}
		}
		if got != want.suppress {
			t.Errorf("%s: a suppress-here action: %v, want %v (actions %+v)", want.code, got, want.suppress, actions)
		}
	}
}

// probeJSON is a Pod in JSON whose liveness probe times out after its
// period (PL106, whose fixes set or insert a field).
const probeJSON = `{
  "apiVersion": "v1",
  "kind": "Pod",
  "metadata": {"name": "web"},
  "spec": {
    "containers": [
      {"name": "web", "image": "nginx:1.27",
       "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "timeoutSeconds": 20},
       "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}}}
    ]
  }
}
`

// TestJSONCodeActions: in a .json manifest every code action leaves JSON
// (checked with encoding/json on the edited text): the quick fixes and
// the fix-all, and no "suppress here", since JSON has no comments.
func TestJSONCodeActions(t *testing.T) {
	e, dir := newEngine(t)
	c := startServer(t, e, -1, nil)
	c.initializeIn(dir, "utf-8")
	uri := c.open(filepath.Join(dir, "pod.json"), probeJSON, 1)
	d := findDiag(c.waitDiags(uri).Diagnostics, "PL106")
	if d == nil {
		t.Fatal("no PL106")
	}
	var actions []codeAction
	if err := c.call("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{uri}, Range: Range{d.Range.Start, d.Range.Start}}, &actions); err != nil {
		t.Fatal(err)
	}
	fixes := 0
	for _, a := range actions {
		if strings.HasPrefix(a.Title, "Suppress") {
			t.Errorf("%q offered in a JSON file", a.Title)
		}
		if a.Edit == nil {
			continue
		}
		fixes++
		fixed := apply(t, probeJSON, a.Edit.Changes[uri])
		var v map[string]any
		if err := json.Unmarshal([]byte(fixed), &v); err != nil {
			t.Errorf("%s: the edited file is not JSON: %v\n%s", a.Title, err, fixed)
		}
	}
	if fixes < 2 {
		t.Errorf("%d actions with edits, want PL106's two fixes at least: %+v", fixes, actions)
	}
}

func TestTokenEnd(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`  livenessProbe:`, "livenessProbe"},
		{`  periodSeconds: 5 # every 5s`, "periodSeconds"},
		{`  image: "a:b # c"`, `"a:b # c"`},
		{`  - {name: x, image: y}`, "-"},
		{`  name: 'it''s' # x`, `'it''s'`},
		{`  value: plain text here  # comment`, "plain text here"},
	} {
		l := []byte(tc.line)
		start := bytes.IndexAny(l, `"'-`+"abcdefghijklmnopqrstuvwxyz")
		if tc.want == `"a:b # c"` || tc.want == "'it''s'" || tc.want == "plain text here" {
			start = bytes.Index(l, []byte(tc.want))
		}
		if got := string(l[start:tokenEnd(l, start)]); got != tc.want {
			t.Errorf("%q from %d: %q, want %q", tc.line, start, got, tc.want)
		}
	}
}

func TestPositionRoundTrip(t *testing.T) {
	tx := newText([]byte("a: é𝄞x\r\nb: 1\rc: 2\n"))
	if tx.lines() != 4 || string(tx.line(1)) != "b: 1" || string(tx.line(2)) != "c: 2" {
		t.Fatalf("lines %d %q %q", tx.lines(), tx.line(1), tx.line(2))
	}
	for _, enc := range []string{encodingUTF8, encodingUTF16} {
		for off := range len(tx.line(0)) + 1 {
			if !utf8.RuneStart(append(tx.line(0), 'x')[off]) {
				continue
			}
			p := tx.position(0, off, enc)
			if got := tx.offset(p, enc); got != off {
				t.Errorf("%s: byte %d → %+v → %d", enc, off, p, got)
			}
		}
	}
	if p := tx.position(0, len("a: é𝄞"), encodingUTF16); p.Character != 6 {
		t.Errorf("UTF-16 column of x: %d, want 6", p.Character)
	}
}

// pl113YAML has a finding with a safe fix (PL113: successThreshold of a
// liveness probe must be 1), from rules/testdata/PL113.
const pl113YAML = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
    - name: app
      image: nginx
      livenessProbe:
        httpGet: {path: /healthz, port: 8080}
        successThreshold: 2
      readinessProbe:
        httpGet: {path: /ready, port: 8080}
`

func TestQuickFixes(t *testing.T) {
	e, dir := newEngine(t)
	c := startServer(t, e, -1, nil)
	c.initializeIn(dir, "utf-8")
	path := filepath.Join(dir, "pod.yaml")
	uri := c.open(path, pl113YAML, 1)
	if findDiag(c.waitDiags(uri).Diagnostics, "PL113") == nil {
		t.Fatal("no PL113")
	}
	var actions []codeAction
	if err := c.call("textDocument/codeAction", codeActionParams{TextDocument: textDocumentIdentifier{uri}, Range: Range{Position{9, 0}, Position{9, 0}}}, &actions); err != nil {
		t.Fatal(err)
	}
	var quick, all *codeAction
	var titles []string
	for i := range actions {
		a := &actions[i]
		titles = append(titles, a.Kind+": "+a.Title)
		switch {
		case a.Kind == kindQuickFix && len(a.Diagnostics) == 1 && a.Diagnostics[0].Code == "PL113" && !strings.HasPrefix(a.Title, "Suppress"):
			quick = a
		case a.Kind == kindSourceFix:
			all = a
		}
	}
	if quick == nil || all == nil {
		t.Fatalf("actions %q: want a quick fix of PL113 and a fix-all", titles)
	}
	if !quick.IsPreferred || strings.Contains(quick.Title, "unsafe") {
		t.Errorf("the safe fix %+v is not preferred, or is labelled unsafe", quick)
	}
	for _, a := range []*codeAction{quick, all} {
		fixed := apply(t, pl113YAML, a.Edit.Changes[uri])
		if findings := e.Lint(path, []byte(fixed)); hasRule(findings, "PL113") {
			t.Errorf("%s: PL113 still there:\n%s", a.Title, fixed)
		}
		if !strings.Contains(fixed, "successThreshold: 1") && strings.Contains(fixed, "successThreshold: 2\n      readinessProbe") {
			t.Errorf("%s: edited text:\n%s", a.Title, fixed)
		}
	}
	// Only fixes that pass podlint fix's verification are offered.
	fs := e.Lint(path, []byte(pl113YAML))
	for i := range fs {
		if fs[i].RuleID == "PL113" {
			bad := fs[i]
			bad.Fixes = []finding.Fix{{Title: "Break the file", Safety: finding.Safe, Edits: []finding.Edit{{File: path, Start: 0, End: 5, NewText: "{{{"}}}}
			if got := e.Fixes(path, []byte(pl113YAML), []finding.Finding{bad}); len(got[0]) != 0 {
				t.Errorf("a fix that breaks the file was verified: %+v", got)
			}
		}
	}
}

func hasRule(fs []finding.Finding, id string) bool {
	for _, f := range fs {
		if f.RuleID == id {
			return true
		}
	}
	return false
}

// TestRenderOnSave: a file of a kustomization has no findings of its own
// while typed; when it is saved the kustomization is rendered, as check
// renders it, and the findings land on the file that sets the field.
func TestRenderOnSave(t *testing.T) {
	dir := t.TempDir()
	e := &Podlint{Configure: func(path string) (*Config, error) {
		c, err := defaultConfig(path)
		c.Analyzer.Open = (&render.Options{}).Open
		return c, err
	}}
	writeFile(t, filepath.Join(dir, "app", "kustomization.yaml"), "resources: [pod.yaml]\nnamespace: shop\n")
	path := filepath.Join(dir, "app", "pod.yaml")
	writeFile(t, path, pl113YAML)
	c := startServer(t, e, -1, nil)
	c.initializeIn(dir)
	uri := c.open(path, pl113YAML, 1)
	if p := c.waitDiags(uri); len(p.Diagnostics) != 0 {
		t.Fatalf("diagnostics before the first save: %+v", p.Diagnostics)
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	p := c.waitDiags(uri)
	d := findDiag(p.Diagnostics, "PL113")
	if d == nil || d.Range.Start.Line != 9 {
		t.Fatalf("after the save: %+v; want PL113 on line 10 of pod.yaml", p.Diagnostics)
	}
}

// TestHoverTopics: each lifecycle field shows its part of the timeline,
// on the shipped examples. (Words only: how durations are printed is the
// chart package's business.)
func TestHoverTopics(t *testing.T) {
	e := &Podlint{Configure: defaultConfig}
	e.Open(nil)
	for _, tc := range []struct {
		file, field string
		want        []string
	}{
		{"healthy-deployment.yaml", "startupProbe", []string{"startup budget", "start-up budget:", "guaranteed", "if it never starts, it is killed"}},
		{"healthy-deployment.yaml", "readinessProbe", []string{"start → ready", "api is Ready between", "taken out of Service endpoints"}},
		{"healthy-deployment.yaml", "preStop", []string{"shutdown, seconds after delete request", "preStop", "SIGTERM → SIGKILL", "grace period "}},
		{"healthy-deployment.yaml", "terminationGracePeriodSeconds", []string{"SIGTERM → SIGKILL", "grace period ", "Pod gone"}},
		{"healthy-deployment.yaml", "replicas", []string{"progress deadline", "RollingUpdate", "a rollout of 2 replicas takes"}},
		{"nightly-job.yaml", "backoffLimit", []string{"retries used up", "backoffLimit 6", "• activeDeadlineSeconds ", "the Job gives up"}},
		{"nightly-job.yaml", "restartPolicy", []string{"restartPolicy Never", "is not restarted"}},
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		at := bytes.Index(data, []byte(tc.field+":"))
		if at < 0 {
			t.Fatalf("%s has no %s", tc.file, tc.field)
		}
		md, from, to := e.Hover("/ws/"+tc.file, data, at+1, 60)
		if string(data[from:to]) != tc.field {
			t.Errorf("%s %s: range %q", tc.file, tc.field, data[from:to])
		}
		for _, w := range tc.want {
			if !strings.Contains(md, w) {
				t.Errorf("%s %s: hover lacks %q:\n%s", tc.file, tc.field, w, md)
			}
		}
	}
}
