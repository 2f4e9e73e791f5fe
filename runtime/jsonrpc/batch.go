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
// default timeouts do not apply to batches.
//
// Each element goes through [Options.Outgoing] as a single call does, with
// [Outgoing.Batch] set: its middleware runs concurrently with that of the
// other elements, and its next returns once that element's answer has
// arrived (or failed). The batch is sent, as one array, when every
// element has reached the end of its chain or returned without calling
// next; such an element gets its middleware's error as its Err and is
// left out of the array, and a batch all of whose elements are left out
// sends nothing. With middleware an element whose params cannot be
// encoded is also left out, with the encoding error as its Err, and
// when the batch cannot be sent every element's Err is set too.
func (c *Conn) Batch(ctx context.Context, calls []*BatchCall) error {
	if len(calls) == 0 {
		return fmt.Errorf("jsonrpc: batch: no calls")
	}
	if c.opts.RejectBatches {
		return errorf("jsonrpc: batch of %d calls: %w", len(calls), ErrBatchesRejected)
	}
	if why := c.batchRefusal(); why != "" {
		return errorf("jsonrpc: batch of %d calls: %s: %w", len(calls), why, ErrBatchesRejected)
	}
	if len(c.opts.Outgoing) > 0 {
		return c.batchThroughMiddleware(ctx, calls)
	}
	ids := make([]int64, len(calls))
	waits := make([]*pendingCall, len(calls))
	out := []byte{'['}
	for i, call := range calls {
		params, err := marshalValue(call.Params)
		if err != nil {
			return errorf("jsonrpc: batch: encoding params of %q: %w", call.Method, err)
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
	if err := c.sendBatch(ctx, out, ids, waits); err != nil {
		return err
	}
	for i, call := range calls {
		if waits[i] != nil {
			call.Err = c.awaitElement(ctx, call.Method, ids[i], waits[i], call.Result)
		}
	}
	return nil
}

// sendBatch registers the requests of the encoded batch out (ids: their
// request numbers, 0 for a notification) and queues it.
func (c *Conn) sendBatch(ctx context.Context, out []byte, ids []int64, waits []*pendingCall) error {
	if err := c.registerBatch(ctx, ids, waits); err != nil {
		if err == ErrClosed {
			err = c.closedError()
		}
		return errorf("jsonrpc: batch: %w", err)
	}
	if err := c.enqueue(ctx, out); err != nil {
		for _, id := range ids {
			if id != 0 {
				c.forget(id)
			}
		}
		return errorf("jsonrpc: batch: %w", err)
	}
	return nil
}

// awaitElement waits for the answer to the request id of a batch, which p
// is registered for, and decodes it into result.
func (c *Conn) awaitElement(ctx context.Context, method string, id int64, p *pendingCall, result any) error {
	select {
	case r := <-p.ch:
		return c.received(method, p, r, result)
	case <-ctx.Done():
		c.forget(id)
		c.sendCancel(id, ctx.Err().Error())
		return errorf("jsonrpc: call %q (id %s): %w", method, c.idText(id), ctx.Err())
	}
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
	if c.err != nil || c.inputEnd {
		return ErrClosed
	}
	if c.pending == nil {
		c.pending = make(map[int64]*pendingCall)
	}
	for i, id := range ids {
		if id != 0 {
			waits[i] = pendingCalls.Get().(*pendingCall)
			c.pending[id] = waits[i]
		}
	}
	return nil
}
