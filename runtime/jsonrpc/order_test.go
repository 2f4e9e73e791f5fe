package jsonrpc

import (
	"context"
	"sync/atomic"
	"testing"
)

// orderServer is a handler whose notification "slow" blocks until release
// is closed (or its context ends), and whose request "get" reports whether
// "slow" had finished.
type orderServer struct {
	entered  chan struct{} // receives when "slow" starts
	release  chan struct{}
	slowDone atomic.Bool
	gets     atomic.Int32
}

func newOrderServer() *orderServer {
	return &orderServer{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (s *orderServer) handler() mux {
	return mux{
		"slow": func(ctx context.Context, _ *Request) (any, error) {
			s.entered <- struct{}{}
			select {
			case <-s.release:
			case <-ctx.Done():
			}
			s.slowDone.Store(true)
			return nil, nil
		},
		"fast": func(context.Context, *Request) (any, error) { return nil, nil },
		"get": func(context.Context, *Request) (any, error) {
			s.gets.Add(1)
			return s.slowDone.Load(), nil
		},
	}
}

// syncRead sends a message the read loop answers itself, and reads the
// answer: every frame sent before it has then been read and dispatched.
func syncRead(t *testing.T, p *rawPeer) {
	t.Helper()
	got := p.exchange(`{"jsonrpc":"2.0","id":"sync"}`).(map[string]any)
	if got["id"] != "sync" || got["error"] == nil {
		t.Fatalf("sync answer = %v, want an error for id sync", got)
	}
}

func TestOrderedRequestWaitsForEarlierNotification(t *testing.T) {
	s := newOrderServer()
	_, p := newRaw(t, Options{Handler: s.handler(), OrderRequestsAfterNotifications: true})
	p.send(`{"jsonrpc":"2.0","method":"slow"}`)
	<-s.entered
	p.send(`{"jsonrpc":"2.0","id":1,"method":"get"}`)
	syncRead(t, p)
	close(s.release)
	if got := p.recvJSON().(map[string]any); got["result"] != true {
		t.Fatalf("get answered %v, want true: it ran before the notification read before it was handled", got)
	}
}

func TestOrderedRequestDoesNotWaitForLaterNotification(t *testing.T) {
	s := newOrderServer()
	_, p := newRaw(t, Options{Handler: s.handler(), OrderRequestsAfterNotifications: true})
	defer close(s.release)
	p.send(`{"jsonrpc":"2.0","method":"fast"}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"get"}`)
	p.send(`{"jsonrpc":"2.0","method":"slow"}`)
	<-s.entered
	// The answer comes while "slow" is still blocked.
	if got := p.recvJSON().(map[string]any); got["id"] != 1.0 || got["result"] != false {
		t.Fatalf("get answered %v, want id 1 and false", got)
	}
}

func TestOrderedRequestCancelledWhileWaiting(t *testing.T) {
	s := newOrderServer()
	_, p := newRaw(t, Options{Handler: s.handler(), OrderRequestsAfterNotifications: true, Cancellation: CancelLSP})
	defer close(s.release)
	p.send(`{"jsonrpc":"2.0","method":"slow"}`)
	<-s.entered
	p.send(`{"jsonrpc":"2.0","id":1,"method":"get"}`)
	p.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	got := p.recvJSON().(map[string]any)
	e, _ := got["error"].(map[string]any)
	if got["id"] != 1.0 || e == nil || e["code"] != float64(CodeRequestCancelled) {
		t.Fatalf("cancelled request answered %v, want error %d", got, CodeRequestCancelled)
	}
	if n := s.gets.Load(); n != 0 {
		t.Fatalf("the handler of a request cancelled while waiting ran %d times", n)
	}
}

func TestOrderedRequestGivesUpOnClose(t *testing.T) {
	s := newOrderServer()
	c, p := newRaw(t, Options{Handler: s.handler(), OrderRequestsAfterNotifications: true})
	p.send(`{"jsonrpc":"2.0","method":"slow"}`)
	<-s.entered
	p.send(`{"jsonrpc":"2.0","id":1,"method":"get"}`)
	syncRead(t, p)
	go func() { // drain what Close may still write
		for {
			if _, err := p.r.Read(); err != nil {
				return
			}
		}
	}()
	c.Close() // cancels "slow", and returns once every handler has
	if n := s.gets.Load(); n != 0 {
		t.Fatalf("a request waiting when the connection closed was handled %d times", n)
	}
}

func TestUnorderedRequestOvertakesNotification(t *testing.T) {
	s := newOrderServer()
	_, p := newRaw(t, Options{Handler: s.handler()})
	defer close(s.release)
	p.send(`{"jsonrpc":"2.0","method":"slow"}`)
	<-s.entered
	if got := p.exchange(`{"jsonrpc":"2.0","id":1,"method":"get"}`).(map[string]any); got["result"] != false {
		t.Fatalf("get answered %v, want false: by default requests do not wait for notifications", got)
	}
}
