package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Caller sends requests and notifications to a peer. [*Conn] and
// [*Redialer] implement it; generated remote stubs are built on it.
type Caller interface {
	// Call sends a request and decodes its result into result (nil
	// discards it).
	Call(ctx context.Context, method string, params, result any) error
	// Notify sends a notification.
	Notify(ctx context.Context, method string, params any) error
}

// pendingCall is one of our calls awaiting its response.
type pendingCall struct {
	ch chan callResult // buffered, receives exactly one result
}

type callResult struct {
	result json.RawMessage
	err    error
}

// Call sends a request for method with params (nil sends none) and waits
// for the response, decoding its result into result unless result is nil.
//
// A response carrying an error object returns it as an *Error. When ctx
// ends first, Call returns at once with an error wrapping ctx.Err() and
// sends the protocol's cancellation notification. When ctx has no deadline
// and the method has a default timeout ([Options.Timeout]), running it out
// returns a *TimeoutError. When the connection ends first, the error wraps
// [ErrClosed].
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	return c.send(ctx, &Outgoing{Method: method, Params: params, Result: result})
}

// Notify sends a notification for method with params (nil sends none).
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	return c.send(ctx, &Outgoing{Method: method, Params: params, Notification: true})
}

// sendOne is the innermost SendFunc.
func (c *Conn) sendOne(ctx context.Context, out *Outgoing) error {
	params, err := marshalValue(out.Params)
	if err != nil {
		return fmt.Errorf("jsonrpc: encoding params of %q: %w", out.Method, err)
	}
	if string(params) == "null" {
		params = nil
	}
	if out.Notification {
		if err := c.enqueue(ctx, appendRequest(nil, "", out.Method, params)); err != nil {
			return fmt.Errorf("jsonrpc: notify %q: %w", out.Method, err)
		}
		return nil
	}
	return c.call(ctx, out.Method, params, out.Result)
}

// newID returns the id text of this side's next request.
func (c *Conn) newID() string {
	n := c.nextID.Add(1)
	if c.opts.IDs == StringIDs {
		return `"` + strconv.FormatInt(n, 10) + `"`
	}
	return strconv.FormatInt(n, 10)
}

// register records a pending call under id, unless the connection ended.
func (c *Conn) register(id string) (*pendingCall, error) {
	p := &pendingCall{ch: make(chan callResult, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil || c.inputEnd {
		return nil, ErrClosed
	}
	c.pending[id] = p
	return p, nil
}

// forget drops a pending call that will not wait for its response.
func (c *Conn) forget(id string) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

func (c *Conn) call(ctx context.Context, method string, params []byte, result any) error {
	var timeout Timeout
	if c.opts.Timeout != nil {
		if _, ok := ctx.Deadline(); !ok {
			timeout = c.opts.Timeout(method)
		}
	}
	var expired <-chan time.Time
	if timeout.After > 0 {
		t := time.NewTimer(timeout.After)
		defer t.Stop()
		expired = t.C
	}
	id := c.newID()
	p, err := c.register(id)
	if err != nil {
		return fmt.Errorf("jsonrpc: call %q: %w", method, c.closedError())
	}
	msg := appendRequest(nil, id, method, params)
	select {
	case c.out <- msg:
	case <-c.done:
		c.forget(id)
		return fmt.Errorf("jsonrpc: call %q: %w", method, c.closedError())
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("jsonrpc: call %q: %w", method, ctx.Err())
	case <-expired:
		c.forget(id)
		return c.timedOut(method, id, timeout, false)
	}
	select {
	case r := <-p.ch:
		return decodeResult(method, r, result)
	case <-ctx.Done():
		c.forget(id)
		c.sendCancel(id, ctx.Err().Error())
		return fmt.Errorf("jsonrpc: call %q (id %s): %w", method, id, ctx.Err())
	case <-expired:
		c.forget(id)
		return c.timedOut(method, id, timeout, true)
	}
}

// timedOut handles a call that ran out its default timeout, sent or not.
func (c *Conn) timedOut(method, id string, timeout Timeout, sent bool) error {
	if sent && timeout.Cancel {
		c.sendCancel(id, "timed out")
	}
	err := &TimeoutError{Method: method, ID: ID{id}, Timeout: timeout.After}
	if timeout.Action == TimeoutKill {
		c.killOnClose.Store(true)
	}
	if timeout.Action != TimeoutFail {
		// Closing the stream may take a while (a child process gets a
		// grace period): the caller does not wait for it.
		c.log.Warn("jsonrpc: closing the connection after a timeout", "method", method, "id", id)
		c.goTracked(func() { c.shutdown(err) })
	}
	if c.opts.OnTimeout != nil {
		c.opts.OnTimeout(method, ID{id})
	}
	return err
}

// decodeResult turns a call's outcome into its error, decoding the result.
func decodeResult(method string, r callResult, result any) error {
	if r.err != nil {
		if _, ok := r.err.(*Error); ok {
			return r.err
		}
		return fmt.Errorf("jsonrpc: call %q: %w", method, r.err)
	}
	if result == nil {
		return nil
	}
	var err error
	if u, ok := result.(json.Unmarshaler); ok {
		err = u.UnmarshalJSON(r.result) // from a frame checked to be valid JSON
	} else {
		err = json.Unmarshal(r.result, result)
	}
	if err != nil {
		return fmt.Errorf("jsonrpc: decoding result of %q: %w", method, err)
	}
	return nil
}

// deliver hands a response to the call waiting for it.
func (c *Conn) deliver(m *message) {
	c.mu.Lock()
	p := c.pending[m.id.raw]
	if p != nil {
		delete(c.pending, m.id.raw)
	}
	c.mu.Unlock()
	if p == nil {
		c.log.Warn("jsonrpc: response to an unknown or already answered id", "id", m.id.String())
		return
	}
	if m.err != nil {
		p.ch <- callResult{err: m.err}
		return
	}
	p.ch <- callResult{result: m.result}
}

// ErrInvalidResponse is wrapped by the error of a call whose response was
// not a valid JSON-RPC response (both result and error, a malformed error
// object, no "jsonrpc": "2.0").
var ErrInvalidResponse = errors.New("jsonrpc: invalid response")

// rejectResponse handles an invalid response. It is never answered: the
// id of a response belongs to our requests, so an error response carrying
// it would be read by the peer as the answer to its own request with the
// same id. The call waiting for that id, if any, fails at once with
// [ErrInvalidResponse] instead of waiting for an answer that will not come.
func (c *Conn) rejectResponse(m *message, reason *Error) {
	var why string
	if json.Unmarshal(reason.Data, &why) != nil {
		why = reason.Message
	}
	c.log.Warn("jsonrpc: invalid response; not answered", "id", m.id.String(), "reason", why)
	if m.id.IsZero() || m.id.IsNull() {
		return
	}
	c.mu.Lock()
	p := c.pending[m.id.raw]
	if p != nil {
		delete(c.pending, m.id.raw)
	}
	c.mu.Unlock()
	if p != nil {
		p.ch <- callResult{err: fmt.Errorf("%w: %s", ErrInvalidResponse, why)}
	}
}

// sendCancel tells the peer, in the background, that we no longer wait for
// the request with the given id text.
func (c *Conn) sendCancel(id, reason string) {
	method := c.opts.Cancellation.Method()
	if method == "" {
		return
	}
	var params []byte
	if c.opts.Cancellation == CancelMCP {
		params = fmt.Appendf(nil, `{"requestId":%s,"reason":%s}`, id, appendString(nil, reason))
	} else {
		params = fmt.Appendf(nil, `{"id":%s}`, id)
	}
	msg := appendRequest(nil, "", method, params)
	select {
	case c.out <- msg:
	default: // the queue is full: wait for room without holding up the caller
		c.goTracked(func() { _ = c.enqueue(c.ctx, msg) })
	}
}
