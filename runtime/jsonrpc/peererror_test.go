package jsonrpc

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// authRequired is what the Autohand CLI (autohandai/code-cli 0.8.2,
// src/modes/rpc/index.ts at d24c4e6) writes on stdout when it starts in
// RPC mode signed out, before it exits with status 1: an error response
// with id null, members in that order.
const authRequired = `{"jsonrpc":"2.0","error":{"code":-32011,"message":"Authentication required. Run ` + "`autohand login`" + ` first.","data":{"kind":"authentication_required","stage":"startup","retryable":true,"providerId":"openrouter"}},"id":null}`

// TestPeerErrorReachesOnPeerError: an error response with id null goes to
// Options.OnPeerError, is not answered, and the connection goes on.
func TestPeerErrorReachesOnPeerError(t *testing.T) {
	got := make(chan *Error, 1)
	var log logBuffer
	_, p := newRaw(t, Options{Handler: relHandler, Logger: log.logger(), OnPeerError: func(e *Error) { got <- e }})
	p.send(authRequired)
	assertContinues(t, p) // no reply came before the answer to the next request
	select {
	case e := <-got:
		if e.Code != -32011 || e.Message != "Authentication required. Run `autohand login` first." {
			t.Errorf("OnPeerError got %d %q", e.Code, e.Message)
		}
		assertSameJSON(t, "data", string(e.Data), `{"kind":"authentication_required","stage":"startup","retryable":true,"providerId":"openrouter"}`)
	default:
		t.Fatal("OnPeerError was not called before the next request was answered")
	}
	if logged := log.String(); !strings.Contains(logged, "the peer reported an error") || strings.Contains(logged, "unknown or already answered") {
		t.Errorf("log: %s", logged)
	}
}

// TestPeerErrorReachesPendingCall: the peer reports an error with id null
// and exits; the call it never answered fails with an error that carries
// the peer's, and so does Err.
func TestPeerErrorReachesPendingCall(t *testing.T) {
	c, p := newRaw(t, Options{Handler: relHandler})
	errc, _ := callPending(t, c, p)
	p.send(authRequired)
	p.conn.Close()
	err := <-errc
	var pe *PeerError
	if !errors.As(err, &pe) || pe.Err.Code != -32011 {
		t.Fatalf("call error %v does not carry the peer's error", err)
	}
	if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrPeerClosed) {
		t.Errorf("call error %v does not wrap ErrClosed and ErrPeerClosed", err)
	}
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32011 {
		t.Errorf("errors.As(*Error) on %v: %v", err, rpcErr)
	}
	<-c.Done()
	if err := c.Err(); !errors.As(err, &pe) || !errors.Is(err, ErrPeerClosed) {
		t.Errorf("Err() = %v; want ErrPeerClosed and the peer's error", err)
	}
}

// TestClosedWithoutPeerError: with no error reported, a pending call and
// Err say only that the peer closed.
func TestClosedWithoutPeerError(t *testing.T) {
	c, p := newRaw(t, Options{Handler: relHandler})
	errc, _ := callPending(t, c, p)
	p.conn.Close()
	err := <-errc
	var pe *PeerError
	if errors.As(err, &pe) || !errors.Is(err, ErrPeerClosed) {
		t.Errorf("call error %v", err)
	}
	<-c.Done()
	if err := c.Err(); err != ErrPeerClosed {
		t.Errorf("Err() = %v; want ErrPeerClosed itself", err)
	}
}

// TestSendError: a server's SendError writes an error response with id
// null, which a Conn on the other side hands to OnPeerError.
func TestSendError(t *testing.T) {
	c, p := newRaw(t, Options{Handler: relHandler})
	e := NewError(-32011, "Authentication required.", map[string]any{"kind": "authentication_required", "stage": "startup"})
	if err := c.SendError(ctxLimit(t), e); err != nil {
		t.Fatal(err)
	}
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":null,"error":{"code":-32011,"message":"Authentication required.","data":{"kind":"authentication_required","stage":"startup"}}}`; got != want {
		t.Errorf("wrote %s\nwant  %s", got, want)
	}
	if err := c.SendError(ctxLimit(t), nil); err == nil {
		t.Error("SendError(nil) succeeded")
	}

	got := make(chan *Error, 1)
	server, client := pair(t, Options{}, Options{OnPeerError: func(e *Error) { got <- e }})
	if err := server.SendError(ctxLimit(t), e); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.Code != e.Code || r.Message != e.Message {
			t.Errorf("received %v", r)
		}
	case <-client.Done():
		t.Fatal("connection ended")
	case <-ctxLimit(t).Done():
		t.Fatal("OnPeerError not called")
	}
	_ = server.Close()
	<-client.Done()
	var pe *PeerError
	if err := client.Err(); !errors.As(err, &pe) {
		t.Errorf("Err() = %v; want the reported error", err)
	}
	_ = c.Close()
	if err := c.SendError(ctxLimit(t), e); !errors.Is(err, ErrClosed) {
		t.Errorf("SendError after Close: %v", err)
	}
}

// exitedPeer is a stream whose peer has written its last words and
// stopped reading: every write fails, and its output (lines) can be read
// only once a write has failed, as when a child exits between our write
// and our next read. Closing it discards what was not read, as closing a
// pipe does.
type exitedPeer struct {
	lines  string
	failed chan struct{} // closed by the first failed write
	once   sync.Once
	mu     sync.Mutex
	closed bool
	read   bool
}

func (p *exitedPeer) Write([]byte) (int, error) {
	p.once.Do(func() { close(p.failed) })
	return 0, syscall.EPIPE
}

func (p *exitedPeer) Read(b []byte) (int, error) {
	<-p.failed
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, io.ErrClosedPipe
	}
	if p.read {
		return 0, io.EOF
	}
	p.read = true
	return copy(b, p.lines), nil
}

func (p *exitedPeer) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.once.Do(func() { close(p.failed) })
	return nil
}

// TestPeerErrorReadAfterWriteFails: the peer wrote why it exits, then
// stopped reading; our next write fails before we read its words. The
// Conn still reads them before it ends, so Err and the failed call carry
// the peer's error rather than only "broken pipe".
func TestPeerErrorReadAfterWriteFails(t *testing.T) {
	peer := &exitedPeer{lines: authRequired + "\n", failed: make(chan struct{})}
	got := make(chan *Error, 1)
	c := NewConn(peer, Options{OnPeerError: func(e *Error) { got <- e }})
	err := c.Call(context.Background(), "session.start", nil, nil)
	var pe *PeerError
	if !errors.As(err, &pe) || pe.Err.Code != -32011 {
		t.Errorf("call error %v does not carry the peer's error", err)
	}
	<-c.Done()
	if err := c.Err(); !errors.As(err, &pe) {
		t.Errorf("Err() = %v; want the peer's error", err)
	}
	select {
	case e := <-got:
		if e.Code != -32011 {
			t.Errorf("OnPeerError got %d", e.Code)
		}
	default:
		t.Error("OnPeerError was not called")
	}
}
