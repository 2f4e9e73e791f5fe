package jsonrpc

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// relatedStream feeds a Conn lines and records what it writes, with the
// request each message relates to.
type relatedStream struct {
	in      chan string
	rest    string
	mu      sync.Mutex
	written []relatedWrite
	wrote   chan struct{}
	closed  chan struct{}
	once    sync.Once
}

type relatedWrite struct{ msg, related string }

func newRelatedStream() *relatedStream {
	return &relatedStream{in: make(chan string, 4), wrote: make(chan struct{}, 16), closed: make(chan struct{})}
}

func (s *relatedStream) Read(p []byte) (int, error) {
	if s.rest == "" {
		select {
		case s.rest = <-s.in:
		case <-s.closed:
			return 0, io.EOF
		}
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

func (s *relatedStream) Write(p []byte) (int, error) {
	panic("a Conn over a RelatedWriter must not write through the framing")
}

func (s *relatedStream) WriteRelated(msg []byte, related ID) error {
	s.mu.Lock()
	s.written = append(s.written, relatedWrite{string(msg), related.String()})
	s.mu.Unlock()
	s.wrote <- struct{}{}
	return nil
}

func (s *relatedStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

func TestRelatedWriterGetsRequestOfHandler(t *testing.T) {
	stream := newRelatedStream()
	var seen ID
	var inHandler bool
	c := NewConn(stream, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		seen, inHandler = RequestID(ctx)
		conn := ConnFromContext(ctx)
		if err := conn.Notify(ctx, "related", nil); err != nil {
			return nil, err
		}
		if err := conn.Notify(context.Background(), "unrelated", nil); err != nil {
			return nil, err
		}
		return "done", nil
	})})
	defer c.Close()
	if c.Stream() != stream {
		t.Fatal("Stream does not return the connection's stream")
	}
	if _, ok := RequestID(context.Background()); ok {
		t.Fatal("RequestID outside a handler reports a request")
	}
	stream.in <- `{"jsonrpc":"2.0","id":"r7","method":"work"}` + "\n"
	for range 3 {
		select {
		case <-stream.wrote:
		case <-time.After(10 * time.Second):
			t.Fatal("the connection wrote fewer than 3 messages")
		}
	}
	if !inHandler || seen.String() != `"r7"` {
		t.Fatalf("RequestID in the handler: %v %v", seen, inHandler)
	}
	stream.mu.Lock()
	defer stream.mu.Unlock()
	want := []struct{ method, related string }{{"related", `"r7"`}, {"unrelated", ""}, {`"result":"done"`, ""}}
	for i, w := range want {
		got := stream.written[i]
		if !strings.Contains(got.msg, w.method) || got.related != w.related || strings.HasSuffix(got.msg, "\n") {
			t.Errorf("write %d: %q related %q; want %s related %q, unframed", i, got.msg, got.related, w.method, w.related)
		}
	}
}
