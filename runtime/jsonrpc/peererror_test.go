package jsonrpc

import (
	"errors"
	"strings"
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
