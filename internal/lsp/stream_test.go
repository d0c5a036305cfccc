package lsp

import (
	"fmt"
	"strings"
	"testing"
)

// TestRefusedHeaderSkipsItsBody: a header block refused for a reason other
// than its length (a header line over 1 KiB here) still says how long its
// body is, and the body is skipped: the next message is answered. Before,
// the body was read as the next header block, and the message after it
// was lost with it.
func TestRefusedHeaderSkipsItsBody(t *testing.T) {
	e, _ := newEngine(t)
	r, _ := newRawSession(t, e)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	if m := r.reply(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	// The body would be answered (id 2) if it were not skipped.
	body := `{"jsonrpc":"2.0","id":2,"method":"x/unknown"}`
	fmt.Fprintf(r.w, "X-Padding: %s\r\nContent-Length: %d\r\n\r\n%s", strings.Repeat("a", 2000), len(body), body)
	if m := r.reply(); errCode(m) != codeInvalidRequest || m["id"] != nil {
		t.Fatalf("reply to the refused header block: %v, want an invalid-request error with id null", m)
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":"x/unknown"}`)
	if m := r.reply(); m["id"] != 3.0 || errCode(m) != codeMethodNotFound {
		t.Fatalf("reply to the message after it: %v, want method-not-found for id 3", m)
	}
}
