package jsonrpc

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// onePrefix fails unless err's text carries "jsonrpc: " exactly once, at
// its start, and err wraps want.
func onePrefix(t *testing.T, name string, err, want error) {
	t.Helper()
	if err == nil || !strings.HasPrefix(err.Error(), "jsonrpc: ") || strings.Count(err.Error(), "jsonrpc: ") != 1 {
		t.Errorf("%s: %q, want one jsonrpc: prefix, at the start", name, err)
	}
	if !errors.Is(err, want) {
		t.Errorf("%s: %v does not wrap %v", name, err, want)
	}
}

// TestErrorsCarryOnePrefix: errors that wrap other errors of the package
// carry its prefix once, and still wrap them.
func TestErrorsCarryOnePrefix(t *testing.T) {
	ctx := ctxLimit(t)
	started := make(chan struct{})
	block := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	client, server := pair(t, Options{MaxOutgoingCalls: 1}, Options{Handler: block})
	rejecting, _ := pair(t, Options{RejectBatches: true}, Options{})
	onePrefix(t, "rejected batch", rejecting.Batch(ctx, []*BatchCall{{Method: "m"}}), ErrBatchesRejected)
	onePrefix(t, "batch past the limit", client.Batch(ctx, []*BatchCall{{Method: "a"}, {Method: "b"}}), ErrTooManyCalls)

	failed := make(chan error, 1)
	go func() { failed <- client.Call(ctx, "m", nil, nil) }()
	<-started
	onePrefix(t, "call past the limit", client.Call(ctx, "n", nil, nil), ErrTooManyCalls)
	server.Close()
	err := <-failed
	onePrefix(t, "call when the peer closed", err, ErrPeerClosed)
	onePrefix(t, "call when the peer closed", err, ErrClosed)
	<-client.Done()
	onePrefix(t, "Err", client.Err(), ErrPeerClosed)
	onePrefix(t, "call after the end", client.Call(ctx, "m", nil, nil), ErrNotSent)
}
