package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzClientEvents feeds an event stream answering a POST that owes the
// answer to request 1 through the client's reading path: whatever the
// server sends, the client does not panic, every line Read yields is one
// valid JSON message with no newline inside, no line passes
// MaxMessageBytes, and the reading ends.
func FuzzClientEvents(f *testing.F) {
	for _, s := range []string{
		"id: 1\nretry: 10\ndata: \n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"data: {\"jsonrpc\":\"2.0\",\r\ndata: \"method\":\"n\"}\r\n\r\n",
		"data: [1,\rdata: 2]\r\rdata: not json\n\n",
		"data: {\"a\":\"x\\ny\"}\n\ndata: " + strings.Repeat("[", 70) + "\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const max = 64
		s, err := Dial(context.Background(), "http://127.0.0.1:1/", testProto, ClientOptions{MaxMessageBytes: max, MaxReconnects: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st := &eventStream{kind: "POST", post: true, pending: *pendingOf("1")}
		done := make(chan error, 1)
		go func() { done <- s.consume(io.NopCloser(bytes.NewReader(in)), st) }()
		check := func(line []byte) {
			if len(line) == 0 || line[len(line)-1] != '\n' || bytes.Count(line, []byte("\n")) != 1 {
				t.Fatalf("line %q is not one line", line)
			}
			if !json.Valid(line) {
				t.Fatalf("line %q is not JSON", line)
			}
			if len(line) > max+1 {
				t.Fatalf("line of %d bytes past the limit %d", len(line), max)
			}
		}
		for {
			select {
			case line := <-s.incoming:
				check(line)
				continue
			case <-done:
			}
			break
		}
		for {
			select {
			case line := <-s.incoming:
				check(line)
				continue
			default:
			}
			break
		}
	})
}
