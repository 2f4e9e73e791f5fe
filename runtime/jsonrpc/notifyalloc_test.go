package jsonrpc

import (
	"bytes"
	"context"
	"io"
	"sync"
	"testing"
)

// sinkStream is a stream whose reads wait for Close and whose writes are
// kept: a peer that never says anything.
type sinkStream struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	closed chan struct{}
	once   sync.Once
}

func newSinkStream() *sinkStream { return &sinkStream{closed: make(chan struct{})} }

func (s *sinkStream) Read([]byte) (int, error) {
	<-s.closed
	return 0, io.EOF
}

func (s *sinkStream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.buf.Len() > 1<<20 {
		s.buf.Reset()
	}
	return s.buf.Write(p)
}

func (s *sinkStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// TestNotifyAllocatesNothing checks that a notification sent without
// Outgoing middleware allocates nothing of its own: no Outgoing escapes,
// and the message buffer is recycled. It sent one allocation per
// notification when Notify passed a pointer to an Outgoing down.
func TestNotifyAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	s := newSinkStream()
	c := NewConn(s, Options{})
	defer func() {
		c.Close()
		<-c.Done()
	}()
	ctx := context.Background()
	if err := c.Notify(ctx, "tick", nil); err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(1000, func() {
		if err := c.Notify(ctx, "tick", nil); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("Notify: %v allocations, want 0", n)
	}
	s.mu.Lock()
	got := bytes.Count(s.buf.Bytes(), []byte(`{"jsonrpc":"2.0","method":"tick"}`+"\n"))
	s.mu.Unlock()
	if got == 0 {
		t.Errorf("no notification written, want some")
	}
}
