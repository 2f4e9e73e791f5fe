package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/timerpool"
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

// pendingCalls recycles the pendingCall of a call that received its
// result: nothing else can send to its channel any more.
var pendingCalls = sync.Pool{New: func() any { return &pendingCall{ch: make(chan callResult, 1)} }}

type callResult struct {
	result json.RawMessage
	err    error
	// frame holds result, and goes back to the reader once result is
	// decoded; nil when the frame held more than this response.
	frame []byte
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
	if len(c.opts.Outgoing) == 0 {
		return c.sendPlain(ctx, 0, method, params, result, false)
	}
	n := c.newID()
	return c.send(ctx, &Outgoing{Method: method, Params: params, Result: result, ID: c.requestID(n), num: n})
}

// Notify sends a notification for method with params (nil sends none).
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	if len(c.opts.Outgoing) == 0 {
		// No Outgoing is made: a pointer to one would escape through
		// the middleware's signature, one allocation per message.
		return c.sendPlain(ctx, 0, method, params, nil, true)
	}
	return c.send(ctx, &Outgoing{Method: method, Params: params, Notification: true})
}

// sendOne is the innermost SendFunc.
func (c *Conn) sendOne(ctx context.Context, out *Outgoing) error {
	if out.batch != nil {
		return c.joinBatch(ctx, out)
	}
	return c.sendPlain(ctx, out.num, out.Method, out.Params, out.Result, out.Notification)
}

// sendPlain sends a request (number id, or the next one when 0) or a
// notification that is not part of a batch.
func (c *Conn) sendPlain(ctx context.Context, id int64, method string, params, result any, notification bool) error {
	if notification {
		id = 0
	} else if id == 0 {
		id = c.newID()
	}
	msg, err := c.encodeRequest(id, method, params)
	if err != nil {
		return errorf("jsonrpc: encoding params of %q: %w", method, err)
	}
	if notification {
		if err := c.enqueue(ctx, msg); err != nil {
			return errorf("jsonrpc: notify %q: %w", method, err)
		}
		return nil
	}
	return c.call(ctx, id, method, msg, result)
}

// newID returns the number of this side's next request.
func (c *Conn) newID() int64 { return c.nextID.Add(1) }

// requestID returns our request number n as an [ID].
func (c *Conn) requestID(n int64) ID { return ID{string(c.appendID(nil, n))} }

// idText is the JSON text of our request number n.
func (c *Conn) idText(n int64) string {
	return string(c.appendID(nil, n))
}

// appendID appends the JSON text of our request number n: a number, or a
// string holding it with [StringIDs].
func (c *Conn) appendID(buf []byte, n int64) []byte {
	if c.opts.IDs == StringIDs {
		buf = append(buf, '"')
		buf = strconv.AppendInt(buf, n, 10)
		return append(buf, '"')
	}
	return strconv.AppendInt(buf, n, 10)
}

// ourID returns the request number of id when it has the form of the ids
// this side sends, or 0.
func (c *Conn) ourID(id []byte) int64 {
	if c.opts.IDs == StringIDs {
		if len(id) < 3 || id[0] != '"' || id[len(id)-1] != '"' {
			return 0
		}
		id = id[1 : len(id)-1]
	}
	if len(id) == 0 || len(id) > 18 || id[0] < '1' || id[0] > '9' {
		return 0 // our numbers start at 1 and stay far below 10^18
	}
	var n int64
	for _, d := range id {
		if d < '0' || d > '9' {
			return 0
		}
		n = n*10 + int64(d-'0')
	}
	return n
}

// register records a pending call under id, unless the connection ended
// or [Options.MaxOutgoingCalls] calls are pending (see reserveCalls).
func (c *Conn) register(ctx context.Context, id int64, expired <-chan time.Time) (*pendingCall, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.reserveCalls(ctx, 1, expired); err != nil {
		return nil, err
	}
	if c.err != nil || c.inputEnd {
		return nil, ErrClosed
	}
	if c.pending == nil {
		c.pending = make(map[int64]*pendingCall)
	}
	p := pendingCalls.Get().(*pendingCall)
	c.pending[id] = p
	return p, nil
}

// forget drops a pending call that will not wait for its response.
func (c *Conn) forget(id int64) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
		c.wakeCallers()
	}
	c.mu.Unlock()
}

// takePending removes and returns the pending call that the response id
// answers, or nil.
func (c *Conn) takePending(id []byte) *pendingCall {
	n := c.ourID(id)
	if n == 0 {
		return nil
	}
	c.mu.Lock()
	p := c.pending[n]
	if p != nil {
		delete(c.pending, n)
		c.wakeCallers()
	}
	c.mu.Unlock()
	return p
}

// call sends msg, our request number id for method, and waits for its
// response.
func (c *Conn) call(ctx context.Context, id int64, method string, msg []byte, result any) error {
	var timeout Timeout
	if c.opts.Timeout != nil {
		if _, ok := ctx.Deadline(); !ok {
			timeout = c.opts.Timeout(method)
		}
	}
	var expired <-chan time.Time
	if timeout.After > 0 {
		t := timerpool.Get(timeout.After)
		defer timerpool.Put(t)
		expired = t.C
	}
	p, err := c.register(ctx, id, expired)
	switch {
	case err == errSlotTimeout:
		return c.timedOut(method, id, timeout, false)
	case err == ErrTooManyCalls:
		return errorf("jsonrpc: call %q: %w (%d)", method, err, c.opts.MaxOutgoingCalls)
	case err == ErrClosed:
		return errorf("jsonrpc: call %q: %w (%w)", method, c.closedError(), ErrNotSent)
	case err != nil:
		return errorf("jsonrpc: call %q: %w", method, err)
	}
	q := queued{msg, c.relatedTo(ctx)}
	if expired == nil && ctx.Done() == nil {
		// Nothing but the connection's end stops this call waiting,
		// so it may as well wait writing.
		// A failed write ends the connection, which fails the call with
		// the peer's last words when it wrote any (see writeFailed).
		if ok, _ := c.writeDirect(q); ok {
			return c.received(method, p, <-p.ch, result)
		}
	}
	for !c.queue(q) {
		select {
		case <-c.out.wait():
		case <-c.done:
			c.forget(id)
			return errorf("jsonrpc: call %q: %w (%w)", method, c.closedError(), ErrNotSent)
		case <-ctx.Done():
			c.forget(id)
			return errorf("jsonrpc: call %q: %w", method, ctx.Err())
		case <-expired:
			c.forget(id)
			return c.timedOut(method, id, timeout, false)
		}
	}
	done := ctx.Done()
	if done == nil && expired == nil {
		return c.received(method, p, <-p.ch, result)
	}
	select {
	case r := <-p.ch:
		return c.received(method, p, r, result)
	case <-done:
		c.forget(id)
		c.sendCancel(id, ctx.Err().Error())
		return errorf("jsonrpc: call %q (id %s): %w", method, c.idText(id), ctx.Err())
	case <-expired:
		c.forget(id)
		return c.timedOut(method, id, timeout, true)
	}
}

// received decodes the outcome r of the call that p waited for, and
// recycles p.
func (c *Conn) received(method string, p *pendingCall, r callResult, result any) error {
	pendingCalls.Put(p)
	err := decodeResult(method, r, result)
	if err == nil && c.opts.Handshake != "" && method == c.opts.Handshake {
		c.learnVersion(r.result)
		c.markEstablished()
	}
	if r.frame != nil && c.recycler != nil {
		// Decoders copy what they keep (json.Unmarshaler's contract), so
		// nothing refers to the frame any more.
		c.recycler.Recycle(r.frame)
	}
	return err
}

// timedOut handles a call that ran out its default timeout, sent or not.
func (c *Conn) timedOut(method string, id int64, timeout Timeout, sent bool) error {
	if sent && timeout.Cancel {
		c.sendCancel(id, "timed out")
	}
	c.stats.add(statTimeouts, 1)
	err := &TimeoutError{Method: method, ID: ID{c.idText(id)}, Timeout: timeout.After}
	if timeout.Action == TimeoutKill {
		c.killOnClose.Store(true)
	}
	if timeout.Action != TimeoutFail {
		// Closing the stream may take a while (a child process gets a
		// grace period): the caller does not wait for it.
		c.log.Warn("jsonrpc: closing the connection after a timeout", "method", method, "id", c.idText(id))
		c.goTracked(func() { c.shutdown(err) })
	}
	if c.opts.OnTimeout != nil {
		c.opts.OnTimeout(method, err.ID)
	}
	return err
}

// decodeResult turns a call's outcome into its error, decoding the result.
func decodeResult(method string, r callResult, result any) error {
	if r.err != nil {
		if _, ok := r.err.(*Error); ok {
			return r.err
		}
		return errorf("jsonrpc: call %q: %w", method, r.err)
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
		return errorf("jsonrpc: decoding result of %q: %w", method, err)
	}
	return nil
}

// deliver hands a response to the call waiting for it.
func (c *Conn) deliver(m *message) {
	if m.err != nil {
		c.stats.errorReceived(m.err.Code)
	}
	p := c.takePending(m.rawID)
	if p == nil {
		if c.lateAnswer(m.rawID) {
			c.log.Debug("jsonrpc: response to a cancelled call", "id", Truncate(m.responseID().String()))
			return
		}
		if m.err != nil && m.responseID().IsNull() {
			c.peerReported(m.err)
			return
		}
		c.warn("jsonrpc: response to an unknown or already answered id", "id", Truncate(m.responseID().String()))
		return
	}
	if m.err != nil {
		p.ch <- callResult{err: m.err}
		return
	}
	p.ch <- callResult{result: m.result, frame: m.frame}
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
	c.warn("jsonrpc: invalid response; not answered", "id", Truncate(m.responseID().String()), "reason", Truncate(why))
	if id := m.responseID(); id.IsZero() || id.IsNull() {
		return
	}
	if p := c.takePending(m.rawID); p != nil {
		p.ch <- callResult{err: fmt.Errorf("%w: %s", ErrInvalidResponse, why)}
	}
}

// maxCancelled bounds how many cancelled calls a Conn remembers, for
// peers that never answer them (MCP does not ask them to); past it, those
// remembered so far are forgotten.
const maxCancelled = 1024

// lateAnswer reports whether id is that of a call we cancelled and still
// remember: LSP peers answer cancelled requests (with -32800 or the
// result), which is no cause for a warning.
func (c *Conn) lateAnswer(id []byte) bool {
	n := c.ourID(id)
	if n == 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.cancelled[n]
	delete(c.cancelled, n)
	return ok
}

// sendCancel tells the peer, in the background, that we no longer wait for
// the request with the given id text.
func (c *Conn) sendCancel(n int64, reason string) {
	id := c.idText(n)
	method := c.opts.Cancellation.Method()
	if method == "" {
		return
	}
	c.stats.add(statCancelsSent, 1)
	var params []byte
	if c.opts.Cancellation == CancelMCP {
		params = fmt.Appendf(nil, `{"requestId":%s,"reason":%s}`, id, appendString(nil, reason))
	} else {
		params = fmt.Appendf(nil, `{"id":%s}`, id)
	}
	c.mu.Lock()
	if c.cancelled == nil || len(c.cancelled) >= maxCancelled {
		c.cancelled = make(map[int64]struct{})
	}
	c.cancelled[n] = struct{}{}
	c.mu.Unlock()
	msg := c.appendRequest(nil, 0, method, params)
	if !c.queue(queued{msg: msg}) { // full: wait for room without holding up the caller
		c.goTracked(func() { _ = c.enqueue(c.context(), msg) })
	}
}
