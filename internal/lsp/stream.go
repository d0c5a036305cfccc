package lsp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds one message's body: a document of the largest file
// podlint lints (--max-file-size, 64 MiB by default) fits, JSON-escaped.
const maxMessage = 256 << 20

// stream frames JSON-RPC messages with Content-Length headers, as
// jsonrpc2.VSCodeObjectCodec does, but a message that is not JSON or not
// a request or response does not end the session: the client gets an error
// response (id null, as JSON-RPC says when the id cannot be read) and the
// next message is read. Only the end of the input or a broken frame (no
// way to find the next message) ends it.
type stream struct {
	r  *bufio.Reader
	w  io.Writer
	c  io.Closer
	mu sync.Mutex // writes
}

func newStream(r io.Reader, w io.Writer, c io.Closer) *stream {
	return &stream{r: bufio.NewReaderSize(r, 64<<10), w: w, c: c}
}

func (s *stream) WriteObject(obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := fmt.Fprintf(s.w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = s.w.Write(data)
	return err
}

func (s *stream) ReadObject(v any) error {
	for {
		body, err := s.readFrame()
		if err != nil {
			var bad *badFrame
			if errors.As(err, &bad) {
				s.replyError(nil, codeInvalidRequest, bad.Error())
				continue
			}
			return err
		}
		if err := json.Unmarshal(body, v); err != nil {
			code := codeInvalidRequest
			var syn *json.SyntaxError
			if errors.As(err, &syn) || !json.Valid(body) {
				code = codeParseError
			}
			s.replyError(requestID(body), code, "malformed message: "+err.Error())
			continue
		}
		return nil
	}
}

// badFrame is a header block the server can skip: the next message can
// still be found.
type badFrame struct{ msg string }

func (e *badFrame) Error() string { return e.msg }

// readFrame reads the header lines and the body of one message.
func (s *stream) readFrame() ([]byte, error) {
	length := -1
	var bad error // the rest of the header block is read first
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && line != "" {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(line) > 1024 {
			bad = &badFrame{"header line too long"}
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				bad = &badFrame{fmt.Sprintf("bad Content-Length %q", strings.TrimSpace(value))}
				continue
			}
			length = n
		}
	}
	switch {
	case bad != nil && length >= 0:
		// A header block refused for another reason that still says how
		// long its body is: skip the body, or it would be read as the
		// next header block and every message after it would be lost.
		if _, err := s.r.Discard(length); err != nil {
			return nil, err
		}
		return nil, bad
	case bad != nil:
		return nil, bad
	case length < 0:
		return nil, &badFrame{"message without a Content-Length header"}
	case length > maxMessage:
		// Skip it so that the next message is found.
		if _, err := s.r.Discard(length); err != nil {
			return nil, err
		}
		return nil, &badFrame{fmt.Sprintf("message of %d bytes is larger than the limit of %d", length, maxMessage)}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// requestID returns the id of a message that could not be decoded as a
// whole, when it has one of the kinds JSON-RPC allows.
func requestID(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

func (s *stream) replyError(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	_ = s.WriteObject(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}

func (s *stream) Close() error {
	if s.c != nil {
		return s.c.Close()
	}
	return nil
}
