package jsonrpc

import (
	"context"
	"sync"
)

// assembly gathers the elements of a batch sent through outgoing
// middleware: each element's chain runs in its own goroutine, and its
// innermost SendFunc (joinBatch) leaves its encoded request
// here and waits for the batch to be sent.
type assembly struct {
	mu    sync.Mutex
	left  int           // elements neither arrived nor returned
	ready chan struct{} // closed when left reaches 0
	sent  chan struct{} // closed once the batch is sent or given up
	err   error         // why the batch was not sent; set before sent is closed
	elems []element
}

// element is one element of an assembly.
type element struct {
	settled bool         // arrived or returned (guarded by mu)
	msg     []byte       // the encoded request, when it arrived
	out     *Outgoing    // as the middleware passed it to the innermost SendFunc
	wait    *pendingCall // set before sent is closed, for a request sent
}

// settle records that element i arrived (msg not nil) or returned without
// arriving, and reports whether it was the first time.
func (a *assembly) settle(i int, msg []byte, out *Outgoing) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := &a.elems[i]
	if e.settled {
		return false
	}
	e.settled, e.msg, e.out = true, msg, out
	a.left--
	if a.left == 0 {
		close(a.ready)
	}
	return true
}

// batchThroughMiddleware sends calls as one batch, each element through
// the outgoing middleware.
func (c *Conn) batchThroughMiddleware(ctx context.Context, calls []*BatchCall) error {
	a := &assembly{
		left:  len(calls),
		ready: make(chan struct{}),
		sent:  make(chan struct{}),
		elems: make([]element, len(calls)),
	}
	var wg sync.WaitGroup
	for i, call := range calls {
		out := &Outgoing{Method: call.Method, Params: call.Params, Result: call.Result, Notification: call.Notification, Batch: true, batch: a, index: i}
		if !call.Notification {
			out.num = c.newID()
			out.ID = c.requestID(out.num)
		}
		wg.Go(func() {
			err := c.send(ctx, out)
			a.settle(i, nil, nil) // refused by a middleware, or failed
			call.Err = err
		})
	}
	select {
	case <-a.ready:
	case <-ctx.Done():
	}
	err := c.sendAssembly(ctx, a)
	wg.Wait()
	return err
}

// sendAssembly sends the elements of a that arrived as one batch, unless
// ctx ended first, and wakes them.
func (c *Conn) sendAssembly(ctx context.Context, a *assembly) error {
	defer close(a.sent)
	a.mu.Lock()
	left := a.left // once 0, only arrivals a second time take mu
	a.mu.Unlock()
	if left > 0 || ctx.Err() != nil {
		a.err = errorf("jsonrpc: batch: %w", context.Cause(ctx))
		return a.err
	}
	ids := make([]int64, len(a.elems))
	waits := make([]*pendingCall, len(a.elems))
	out := []byte{'['}
	for i, e := range a.elems {
		if e.msg == nil {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, e.msg...)
		if !e.out.Notification {
			ids[i] = e.out.num
		}
	}
	if len(out) == 1 {
		return nil // every element was refused
	}
	out = append(out, ']')
	if a.err = c.sendBatch(ctx, out, ids, waits); a.err != nil {
		return a.err
	}
	for i := range a.elems {
		a.elems[i].wait = waits[i]
	}
	return nil
}

// joinBatch is the innermost SendFunc of a batch element: it leaves the
// element's request in the batch being assembled, waits for the batch to
// be sent and then for the element's answer.
func (c *Conn) joinBatch(ctx context.Context, out *Outgoing) error {
	a, i := out.batch, out.index
	var id int64
	if !out.Notification {
		id = out.num
	}
	params, err := marshalValue(out.Params)
	if err != nil {
		err = errorf("jsonrpc: batch: encoding params of %q: %w", out.Method, err)
		a.settle(i, nil, nil)
		return err
	}
	if string(params) == "null" {
		params = nil
	}
	if !a.settle(i, c.appendRequest(nil, id, out.Method, params), out) {
		// The element arrives a second time (a middleware that retries):
		// it goes out alone, unless the batch was given up.
		<-a.sent
		if a.err != nil {
			return a.err
		}
		return c.sendPlain(ctx, out.num, out.Method, out.Params, out.Result, out.Notification)
	}
	<-a.sent
	switch {
	case a.err != nil:
		return a.err
	case out.Notification:
		return nil
	}
	return c.awaitElement(ctx, out.Method, id, a.elems[i].wait, out.Result)
}
