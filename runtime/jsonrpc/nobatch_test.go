package jsonrpc

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// TestRejectBatches: with Options.RejectBatches a batch is answered with
// one -32600 and none of its elements is handled; Batch fails without
// sending anything; single messages go on as before.
func TestRejectBatches(t *testing.T) {
	var handled atomic.Int64
	counting := HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		handled.Add(1)
		return relHandler.Handle(ctx, req)
	})
	c, p := newRaw(t, Options{Handler: counting, RejectBatches: true})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]},{"jsonrpc":"2.0","method":"note"}]`)
	assertSameJSON(t, "batch reply", p.recv(),
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"this protocol does not accept batches; send each message on its own"}}`)
	assertContinues(t, p)
	if n := handled.Load(); n != 1 {
		t.Errorf("%d messages handled, want only the request after the batch", n)
	}
	err := c.Batch(context.Background(), []*BatchCall{{Method: "sum", Params: []int{1}}})
	if !errors.Is(err, ErrBatchesRejected) {
		t.Errorf("Batch = %v, want ErrBatchesRejected", err)
	}
	assertContinues(t, p) // nothing was written before this answer
}
