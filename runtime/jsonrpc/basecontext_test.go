package jsonrpc

import (
	"context"
	"errors"
	"testing"
	"time"
)

type baseKey struct{}

// TestBaseContextValue: the values of Options.BaseContext reach request
// and notification handlers, beside the connection itself.
func TestBaseContextValue(t *testing.T) {
	seen := make(chan any, 2)
	var server *Conn
	handler := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		if ConnFromContext(ctx) != server {
			t.Errorf("%s: ConnFromContext is not the serving connection", req.Method)
		}
		seen <- ctx.Value(baseKey{})
		return "ok", nil
	})
	base := context.WithValue(context.Background(), baseKey{}, "tenant-7")
	client, srv := pair(t, Options{}, Options{Handler: handler, BaseContext: base})
	server = srv
	ctx := ctxLimit(t)
	if err := client.Call(ctx, "req", nil, nil); err != nil {
		t.Fatal(err)
	}
	if v := <-seen; v != "tenant-7" {
		t.Errorf("request handler saw %v", v)
	}
	if err := client.Notify(ctx, "note", nil); err != nil {
		t.Fatal(err)
	}
	if v := <-seen; v != "tenant-7" {
		t.Errorf("notification handler saw %v", v)
	}
}

// TestBaseContextCancel: cancelling Options.BaseContext cancels a running
// handler, whose answer (its context's error: -32603) is still sent, and
// every handler started later; the connection carries on.
func TestBaseContextCancel(t *testing.T) {
	started := make(chan struct{})
	handler := mux{
		"block": func(ctx context.Context, req *Request) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		},
		"later": func(ctx context.Context, req *Request) (any, error) {
			return ctx.Err() != nil, nil
		},
	}
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, server := pair(t, Options{}, Options{Handler: handler, BaseContext: base})
	ctx := ctxLimit(t)
	answered := make(chan error, 1)
	go func() { answered <- client.Call(ctx, "block", nil, nil) }()
	<-started
	cancel()
	var rpcErr *Error
	if err := <-answered; !errors.As(err, &rpcErr) || rpcErr.Code != CodeInternalError {
		t.Fatalf("cancelled handler answered %v, want -32603", err)
	}
	var cancelled bool
	if err := client.Call(ctx, "later", nil, &cancelled); err != nil || !cancelled {
		t.Errorf("handler started after the cancellation: %v, context cancelled %v", err, cancelled)
	}
	select {
	case <-server.Done():
		t.Error("cancelling the base context closed the connection")
	default:
	}
}

// TestBaseContextClose: with a BaseContext that is never cancelled, closing
// the connection still cancels its handlers.
func TestBaseContextClose(t *testing.T) {
	started := make(chan struct{})
	stopped := make(chan error, 1)
	handler := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, ctx.Err()
	})
	client, server := pair(t, Options{}, Options{Handler: handler, BaseContext: context.Background()})
	go func() { _ = client.Call(ctxLimit(t), "block", nil, nil) }()
	<-started
	server.Close()
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("handler context ended with %v", err)
	}
}

// TestBaseContextDeadline: a deadline on Options.BaseContext reaches
// request handlers' contexts.
func TestBaseContextDeadline(t *testing.T) {
	want := time.Now().Add(time.Hour)
	base, cancel := context.WithDeadline(context.Background(), want)
	defer cancel()
	handler := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		got, ok := ctx.Deadline()
		return ok && got.Equal(want), nil
	})
	client, _ := pair(t, Options{}, Options{Handler: handler, BaseContext: base})
	var ok bool
	if err := client.Call(ctxLimit(t), "req", nil, &ok); err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Error("the handler's context does not carry BaseContext's deadline")
	}
}

// TestCloseCancelsRunningHandlers: closing the connection cancels the
// context of every request handler running, with or without a
// BaseContext, however many are in flight.
func TestCloseCancelsRunningHandlers(t *testing.T) {
	for _, base := range []context.Context{nil, context.WithValue(context.Background(), baseKey{}, 1)} {
		const n = 3
		started := make(chan struct{}, n)
		cancelled := make(chan struct{}, n)
		handler := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			cancelled <- struct{}{}
			return nil, ctx.Err()
		})
		client, server := pair(t, Options{}, Options{Handler: handler, BaseContext: base})
		for range n {
			go func() { _ = client.Call(context.Background(), "block", nil, nil) }()
		}
		for range n {
			<-started
		}
		_ = server.Close()
		for range n {
			select {
			case <-cancelled:
			case <-ctxLimit(t).Done():
				t.Fatal("a running handler was not cancelled when the connection closed")
			}
		}
	}
}
