package jsonrpc

import (
	"context"
	"fmt"
)

// BatchCall is one element of an outgoing batch.
type BatchCall struct {
	// Method is the method name.
	Method string
	// Params are the parameters; nil sends none.
	Params any
	// Result receives the decoded result; nil discards it.
	Result any
	// Notification sends the element as a notification, with no response.
	Notification bool
	// Err is set by [Conn.Batch] to the element's outcome: nil on success,
	// an *Error from the peer, or why no response was had.
	Err error
}

// Batch sends calls as one JSON-RPC batch (a JSON array) and waits for the
// responses to its requests, setting each element's Result and Err. It
// returns an error only when the batch could not be sent; a ctx that ends
// while waiting sets the Err of every unanswered element. Per-method
// default timeouts and outgoing middleware do not apply to batches.
func (c *Conn) Batch(ctx context.Context, calls []*BatchCall) error {
	if len(calls) == 0 {
		return fmt.Errorf("jsonrpc: batch: no calls")
	}
	if c.opts.RejectBatches {
		return fmt.Errorf("jsonrpc: batch of %d calls: %w", len(calls), ErrBatchesRejected)
	}
	if why := c.batchRefusal(); why != "" {
		return fmt.Errorf("jsonrpc: batch of %d calls: %s: %w", len(calls), why, ErrBatchesRejected)
	}
	ids := make([]int64, len(calls))
	waits := make([]*pendingCall, len(calls))
	forgetAll := func() {
		for _, id := range ids {
			if id != 0 {
				c.forget(id)
			}
		}
	}
	out := []byte{'['}
	for i, call := range calls {
		params, err := marshalValue(call.Params)
		if err != nil {
			forgetAll()
			return fmt.Errorf("jsonrpc: batch: encoding params of %q: %w", call.Method, err)
		}
		if string(params) == "null" {
			params = nil
		}
		if !call.Notification {
			ids[i] = c.newID()
		}
		if i > 0 {
			out = append(out, ',')
		}
		out = c.appendRequest(out, ids[i], call.Method, params)
	}
	out = append(out, ']')
	if err := c.registerBatch(ctx, ids, waits); err != nil {
		if err == ErrClosed {
			err = c.closedError()
		}
		return fmt.Errorf("jsonrpc: batch: %w", err)
	}
	if err := c.enqueue(ctx, out); err != nil {
		forgetAll()
		return fmt.Errorf("jsonrpc: batch: %w", err)
	}
	for i, call := range calls {
		if waits[i] == nil {
			continue
		}
		select {
		case r := <-waits[i].ch:
			call.Err = c.received(call.Method, waits[i], r, call.Result)
		case <-ctx.Done():
			c.forget(ids[i])
			c.sendCancel(ids[i], ctx.Err().Error())
			call.Err = fmt.Errorf("jsonrpc: call %q (id %s): %w", call.Method, c.idText(ids[i]), ctx.Err())
		}
	}
	return nil
}

// registerBatch records a pending call for each nonzero id, all or none:
// the requests of a batch count one each against
// [Options.MaxOutgoingCalls].
func (c *Conn) registerBatch(ctx context.Context, ids []int64, waits []*pendingCall) error {
	n := 0
	for _, id := range ids {
		if id != 0 {
			n++
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reserveCalls(ctx, n, nil); err != nil {
		if err == ErrTooManyCalls {
			return fmt.Errorf("%w (%d requests, limit %d)", err, n, c.opts.MaxOutgoingCalls)
		}
		return err
	}
	if c.pending == nil || c.inputEnd {
		return ErrClosed
	}
	for i, id := range ids {
		if id != 0 {
			waits[i] = pendingCalls.Get().(*pendingCall)
			c.pending[id] = waits[i]
		}
	}
	return nil
}
