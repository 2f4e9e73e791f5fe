package lsp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// errCutOff marks a stream that ends inside a message.
var errCutOff = errors.New("the stream ends inside a message")

// parseFrames splits a Content-Length framed stream into message bodies,
// independently of the runtime, checking that every header counts the
// bytes of a body that is one JSON-RPC 2.0 object in valid UTF-8.
func parseFrames(stream []byte) ([]json.RawMessage, error) {
	var bodies []json.RawMessage
	for len(stream) > 0 {
		n := len(bodies) + 1
		end := bytes.Index(stream, []byte("\r\n\r\n"))
		if end < 0 {
			return bodies, fmt.Errorf("message %d: no end of header section in %q: %w", n, stream, errCutOff)
		}
		length := -1
		for line := range strings.SplitSeq(string(stream[:end]), "\r\n") {
			name, value, ok := strings.Cut(line, ":")
			if !ok {
				return bodies, fmt.Errorf("message %d: malformed header line %q", n, line)
			}
			if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
				v, err := strconv.Atoi(strings.TrimSpace(value))
				if err != nil || v < 0 {
					return bodies, fmt.Errorf("message %d: Content-Length %q is not a length", n, value)
				}
				length = v
			}
		}
		if length < 0 {
			return bodies, fmt.Errorf("message %d: no Content-Length in %q", n, stream[:end])
		}
		rest := stream[end+4:]
		if len(rest) < length {
			return bodies, fmt.Errorf("message %d: Content-Length %d but only %d bytes follow (%q): %w", n, length, len(rest), rest, errCutOff)
		}
		body := rest[:length]
		var msg struct {
			JSONRPC string `json:"jsonrpc"`
		}
		if !utf8.Valid(body) {
			return bodies, fmt.Errorf("message %d: body is not valid UTF-8: %q", n, body)
		}
		if err := json.Unmarshal(body, &msg); err != nil || msg.JSONRPC != "2.0" {
			return bodies, fmt.Errorf("message %d: Content-Length %d does not delimit one JSON-RPC 2.0 message (%v): %q", n, length, err, body)
		}
		bodies = append(bodies, json.RawMessage(body))
		stream = rest[length:]
	}
	return bodies, nil
}

// The parser the gopls checks rely on accepts well-framed streams and
// rejects a header that counts characters instead of bytes.
func TestParseFrames(t *testing.T) {
	good := "Content-Length: 41\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"x\":\"Zoë\"}" +
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: 29\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"\"}"
	bodies, err := parseFrames([]byte(good))
	if err != nil || len(bodies) != 2 || string(bodies[1]) != `{"jsonrpc":"2.0","method":""}` {
		t.Fatalf("parseFrames(good) = %q, %v; want 2 messages", bodies, err)
	}
	if _, err := parseFrames([]byte("Content-Length: 10\r\n\r\n{}")); !errors.Is(err, errCutOff) {
		t.Errorf("a stream ending inside a body: %v, want errCutOff", err)
	}
	for _, bad := range []string{
		"Content-Length: 40\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"x\":\"Zoë\"}",
		"Content-Length: 10\r\n\r\n{}",
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: x\r\n\r\n{}",
		"Content-Type: a\r\n\r\n{}",
		"Content-Length: 2\r\n{}",
	} {
		if _, err := parseFrames([]byte(bad)); err == nil {
			t.Errorf("parseFrames(%q) accepted it", bad)
		}
	}
}
