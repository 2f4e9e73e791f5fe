package jsonrpc

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// noteContext returns a connection serving notifications and the context
// its handler received for one, with the peer that sent it.
func noteContext(t *testing.T) (server, client *Conn, ctx context.Context) {
	t.Helper()
	got := make(chan context.Context, 1)
	server, client = pair(t, Options{Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		got <- ctx
		return nil, nil
	})}, Options{})
	if err := client.Notify(ctxLimit(t), "note", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case ctx = <-got:
	case <-time.After(waitLimit):
		t.Fatal("the notification was not handled")
	}
	return server, client, ctx
}

// TestConnContextEndsWithConn checks the context a notification handler
// gets (the connection's own): it carries the connection, and it and
// what derives from it end when the connection does.
func TestConnContextEndsWithConn(t *testing.T) {
	server, _, ctx := noteContext(t)
	if ConnFromContext(ctx) != server || ctx.Err() != nil {
		t.Fatalf("ConnFromContext %p (want %p), Err %v (want nil)", ConnFromContext(ctx), server, ctx.Err())
	}
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	timed, cancelTimed := context.WithTimeout(ctx, time.Hour)
	defer cancelTimed()
	ran := make(chan struct{})
	context.AfterFunc(ctx, func() { close(ran) })
	if err := server.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []context.Context{ctx, child, timed} {
		select {
		case <-c.Done():
		case <-time.After(waitLimit):
			t.Fatal("a context did not end with the connection")
		}
		if !errors.Is(c.Err(), context.Canceled) || !errors.Is(context.Cause(c), context.Canceled) {
			t.Errorf("Err %v, Cause %v; want context.Canceled", c.Err(), context.Cause(c))
		}
	}
	select {
	case <-ran:
	case <-time.After(waitLimit):
		t.Fatal("context.AfterFunc did not run when the connection ended")
	}
	if ConnFromContext(child) != server {
		t.Error("a derived context does not carry the connection")
	}
}

// TestConnContextDerivedNoGoroutine checks that contexts derived from
// the connection's context start no goroutine each (as they would from a
// context that has no AfterFunc method), and that cancelling them leaves
// nothing registered on the connection.
func TestConnContextDerivedNoGoroutine(t *testing.T) {
	server, _, ctx := noteContext(t)
	const n = 200
	before := runtime.NumGoroutine()
	cancels := make([]context.CancelFunc, n)
	for i := range cancels {
		_, cancels[i] = context.WithTimeout(ctx, time.Hour)
	}
	if d := runtime.NumGoroutine() - before; d >= n/2 {
		t.Errorf("%d contexts derived from the connection's started %d goroutines", n, d)
	}
	if registered := registeredAfter(server); registered != n {
		t.Errorf("%d registered, want %d", registered, n)
	}
	for _, cancel := range cancels {
		cancel()
	}
	if registered := registeredAfter(server); registered != 0 {
		t.Errorf("%d still registered after every derived context was cancelled, want 0", registered)
	}
}

// registeredAfter counts the functions registered with c's context.
func registeredAfter(c *Conn) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.after == nil {
		return 0
	}
	return len(c.after.fns)
}

// TestConnContextAfterFuncOnceEnded checks AfterFunc on the context of a
// connection that has ended: f runs at once, and stop reports it could
// not stop it.
func TestConnContextAfterFuncOnceEnded(t *testing.T) {
	server, _, ctx := noteContext(t)
	stopped := context.AfterFunc(ctx, func() { t.Error("a stopped function ran") })
	if !stopped() {
		t.Error("stop of a registered function reported false")
	}
	server.Close()
	ran := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { close(ran) })
	select {
	case <-ran:
	case <-time.After(waitLimit):
		t.Fatal("AfterFunc on an ended connection's context did not run")
	}
	if stop() {
		t.Error("stop reported true for a function already run")
	}
}

// TestConnContextsAllocateNothing checks that the connection's context
// and the base of its requests' contexts are the Conn itself.
func TestConnContextsAllocateNothing(t *testing.T) {
	server, _, _ := noteContext(t)
	if server.context() != context.Context((*connContext)(server)) || server.requestBase != context.Context((*connValues)(server)) {
		t.Errorf("ctx %v, requestBase %v: want the Conn itself", server.context(), server.requestBase)
	}
	if server.requestBase.Done() != nil || ConnFromContext(server.requestBase) != server {
		t.Error("requests' base context can end, or does not carry the connection")
	}
}
