package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
)

// incoming is a peer request or notification on its way to the handler.
type incoming struct {
	req    Request
	ctx    context.Context
	cancel context.CancelFunc
	batch  *batchReply // the batch it arrived in, or nil
	after  uint64      // notifications to handle before this request starts
	size   int64       // bytes of the message, counted in Conn.queued
	inline bool        // run by the read loop (see Options.Inline)

	peerCancelled bool        // guarded by Conn.mu
	closeAfter    atomic.Bool // the handler called CloseAfterReply
}

// handleFrame decodes one frame (a message or a batch) and dispatches it.
// A message object is checked to be valid JSON in the same pass that
// reads its members; anything else is checked first.
func (c *Conn) handleFrame(frame []byte) {
	whole := frame
	frame = trimSpace(frame)
	if len(frame) > 0 && frame[0] == '{' {
		m, rpcErr := decodeChecked(frame, &c.names)
		c.dispatch(&m, rpcErr, frame, nil, whole)
		return
	}
	if !jsonscan.Valid(frame) {
		c.replyFromReader(c.errorResponse(NullID, errParse))
		return
	}
	if len(frame) > 0 && frame[0] == '[' {
		c.handleBatch(frame)
		return
	}
	c.handleMessage(frame, nil, whole)
}

// handleMessage dispatches one valid JSON value, part of batch when batch
// is not nil. frame is the whole frame b came from when b is alone in it:
// a response's frame can then go back to the reader.
func (c *Conn) handleMessage(b []byte, batch *batchReply, frame []byte) {
	m, rpcErr := decodeValid(b, &c.names)
	c.dispatch(&m, rpcErr, b, batch, frame)
}

// dispatch acts on the message m decoded from b, or answers rpcErr.
func (c *Conn) dispatch(m *message, rpcErr *Error, b []byte, batch *batchReply, frame []byte) {
	if rpcErr == errParse {
		c.replyFromReader(c.errorResponse(NullID, errParse))
		return
	}
	if rpcErr != nil && m.kind == kindResponse {
		c.rejectResponse(m, rpcErr)
		return
	}
	if rpcErr != nil {
		c.warn("jsonrpc: invalid message", "id", Truncate(m.id.String()), "error", Truncate(rpcErr.Error()))
		c.answerInvalid(batch, m.id, rpcErr)
		return
	}
	switch m.kind {
	case kindResponse:
		m.frame = frame
		c.deliver(m)
	case kindNotification:
		if c.opts.Cancellation != CancelNone && m.method == c.opts.Cancellation.Method() {
			// The protocol's own cancellation is the connection's
			// business: it never reaches the handler.
			c.cancelIncoming(m.params)
			return
		}
		in := &incoming{req: Request{Method: m.method, Params: m.params, nullParams: m.nullParams, strict: c.opts.DisallowUnknownFields, valid: true}, ctx: c.handlerCtx, size: int64(len(b))}
		if batch == nil && c.runsInline(m.method) {
			c.notifyInline(in)
			return
		}
		if !c.queued.acquire(in.size, c.done) {
			return
		}
		if c.opts.OrderRequestsAfterNotifications {
			c.order.queued()
		}
		if !c.notifications.push(in) {
			c.queued.release(in.size)
		}
	case kindRequest:
		c.acceptRequest(m, batch, int64(len(b)))
	}
}

// acceptRequest registers a peer request and queues it for a handler.
func (c *Conn) acceptRequest(m *message, batch *batchReply, size int64) {
	if batch == nil && c.runsInline(m.method) {
		c.requestInline(m)
		return
	}
	ctx, cancel := context.WithCancel(c.requestBase)
	in := &incoming{
		req:    Request{ID: m.id, Method: m.method, Params: m.params, nullParams: m.nullParams, strict: c.opts.DisallowUnknownFields, valid: true},
		ctx:    ctx,
		cancel: cancel,
		batch:  batch,
		after:  c.order.read,
		size:   size,
	}
	// An id already used in the same batch is a duplicate even when that
	// request has been answered already, so the outcome does not depend
	// on how fast handlers run.
	duplicate := batch.seen(m.id)
	c.mu.Lock()
	if c.inflight.get(m.id.raw) != nil {
		duplicate = true
	}
	if !duplicate {
		c.inflight.put(in)
	}
	c.mu.Unlock()
	if duplicate {
		cancel()
		c.answerInvalid(batch, m.id, invalidRequest("a request with this id is already in flight"))
		return
	}
	if c.handlerCtx.Err() != nil {
		cancel() // cancelInflight may have run before the request was in flight
	}
	if batch != nil {
		batch.expect()
	}
	if !c.queued.acquire(size, c.done) {
		c.finishRequest(in)
		batch.complete(ID{}, nil)
		return
	}
	if !c.requests.push(in) {
		c.queued.release(size)
		c.finishRequest(in)
		batch.complete(ID{}, nil)
	}
}

// runRequest handles one peer request and answers it.
func (c *Conn) runRequest(in *incoming) {
	c.dequeued(in)
	select {
	case <-c.done: // the connection ended while the request was queued
		c.finishRequest(in)
		in.batch.complete(ID{}, nil)
		return
	default:
	}
	var result any
	err := c.awaitNotifications(in)
	if err == ErrClosed { // the connection ended while the request waited
		c.finishRequest(in)
		in.batch.complete(ID{}, nil)
		return
	}
	if err == nil {
		result, err = c.invoke(in, &in.req)
		c.stats.add(statRequestsHandled, 1)
	}
	peerCancelled := c.finishRequest(in)
	if in.closeAfter.Load() {
		if in.batch != nil {
			in.batch.closeAfter.Store(true)
		} else {
			defer c.closeAfterQueued() // behind the answer queued below
		}
	}
	if peerCancelled && c.opts.Cancellation == CancelMCP {
		in.batch.complete(ID{}, nil)
		c.unanswered(in)
		return
	}
	if err != nil {
		c.writeError(in, c.errorFor(&in.req, err, peerCancelled))
		in.batch.complete(ID{}, nil)
		return
	}
	msg, merr := c.encodeResult(in.req.ID, result)
	if merr != nil {
		c.warnError("jsonrpc: cannot encode result", "method", Truncate(in.req.Method), "error", Truncate(merr.Error()))
		c.writeError(in, &Error{Code: CodeInternalError, Message: "Internal error"})
		in.batch.complete(ID{}, nil)
		return
	}
	if tooLarge(len(msg), c.opts.MaxResponseBytes) {
		c.warn("jsonrpc: result too large; answered with an error", "method", Truncate(in.req.Method), "size", len(msg), "limit", c.opts.MaxResponseBytes)
		c.recycle(msg)
		c.writeError(in, c.responseTooLarge(len(msg)))
		in.batch.complete(ID{}, nil)
		return
	}
	if c.opts.Handshake != "" && in.req.Method == c.opts.Handshake {
		c.learnVersionFrom(msg)
		c.markEstablished()
	}
	if in.batch != nil {
		in.batch.complete(in.req.ID, msg)
		return
	}
	c.answer(in, msg)
}

// awaitNotifications waits, under [Options.OrderRequestsAfterNotifications],
// until the notifications read before in have been handled. It returns the
// request's context error when the request is cancelled first (the request
// is then answered as if its handler had returned it), and ErrClosed when
// the connection ends first.
func (c *Conn) awaitNotifications(in *incoming) error {
	if in.after == 0 {
		return nil
	}
	return c.order.await(in.ctx, in.after, c.done)
}

// finishRequest forgets a handled request and reports whether the peer had
// cancelled it.
func (c *Conn) finishRequest(in *incoming) (peerCancelled bool) {
	c.mu.Lock()
	c.inflight.remove(in)
	peerCancelled = in.peerCancelled
	c.mu.Unlock()
	in.cancel()
	return peerCancelled
}

// runNotification hands one notification to the handler.
//
// Notifications read before the connection ended are still delivered,
// in order, so the last messages a peer sends before closing are not lost;
// their context is then already cancelled.
func (c *Conn) runNotification(in *incoming) {
	c.dequeued(in)
	_, err := c.invoke(in.ctx, &in.req)
	c.stats.add(statNotificationsHandled, 1)
	if err != nil && !c.ignored(in.req.Method, err) {
		c.warn("jsonrpc: notification handler failed", "method", Truncate(in.req.Method), "error", Truncate(err.Error()))
	}
	if c.opts.OrderRequestsAfterNotifications {
		c.order.handledOne()
	}
	if c.closeAfterNote.Swap(false) {
		c.closeAfterQueued()
	}
}

// ignored reports whether the failure err of the notification method is
// dropped silently: the handler does not know the method (-32601) and its
// name starts with one of [Options.IgnoreNotifications].
func (c *Conn) ignored(method string, err error) bool {
	if !errors.Is(err, ErrMethodNotFound) {
		return false
	}
	for _, prefix := range c.opts.IgnoreNotifications {
		if strings.HasPrefix(method, prefix) {
			return true
		}
	}
	return false
}

// invoke calls the handler, turning a panic into -32603.
func (c *Conn) invoke(ctx context.Context, req *Request) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.warnError("jsonrpc: handler panicked", "method", Truncate(req.Method), "panic", Truncate(fmt.Sprint(r)), "stack", string(debug.Stack()))
			result, err = nil, &Error{Code: CodeInternalError, Message: "Internal error"}
		}
	}()
	return c.handler.Handle(ctx, req)
}

// errorFor converts a handler's error into the error object sent to the
// peer.
func (c *Conn) errorFor(req *Request, err error, peerCancelled bool) *Error {
	var rpcErr *Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	if peerCancelled && c.opts.Cancellation == CancelLSP {
		return &Error{Code: CodeRequestCancelled, Message: "Request cancelled"}
	}
	c.warn("jsonrpc: handler failed", "method", Truncate(req.Method), "error", Truncate(err.Error()))
	if c.opts.ExposeErrors {
		return &Error{Code: CodeInternalError, Message: err.Error()}
	}
	return &Error{Code: CodeInternalError, Message: "Internal error"}
}

// cancelIncoming acts on the peer's cancellation notification.
func (c *Conn) cancelIncoming(params json.RawMessage) {
	c.stats.add(statCancelsReceived, 1)
	var p struct {
		ID        *ID `json:"id"`
		RequestID *ID `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		c.warn("jsonrpc: malformed cancellation", "params", Truncate(string(params)))
		return
	}
	id := p.ID
	if c.opts.Cancellation == CancelMCP {
		id = p.RequestID
	}
	if id == nil {
		return
	}
	c.mu.Lock()
	in := c.inflight.get(id.raw)
	if in != nil {
		in.peerCancelled = true
	}
	c.mu.Unlock()
	if in != nil {
		in.cancel()
	}
}

// answerInvalid answers, from the read loop, a message that cannot be
// handled: as part of batch, or through the reply queue.
func (c *Conn) answerInvalid(batch *batchReply, id ID, e *Error) {
	msg := c.errorResponse(id, e)
	if batch != nil {
		batch.add(id, msg)
		return
	}
	c.replyFromReader(msg)
}

// writeError answers the request in with e from its handler's goroutine,
// directly or as part of its batch.
func (c *Conn) writeError(in *incoming, e *Error) {
	batch, id := in.batch, in.req.ID
	msg := appendError(nil, id, e)
	if tooLarge(len(msg), c.opts.MaxResponseBytes) {
		c.warn("jsonrpc: error response too large; answered with a shorter one", "size", len(msg), "limit", c.opts.MaxResponseBytes)
		e = c.responseTooLarge(len(msg))
		msg = appendError(nil, id, e)
	}
	c.stats.errorSent(e.Code)
	if batch != nil {
		batch.add(id, msg)
		return
	}
	c.answer(in, msg)
}

// marshalValue encodes v as JSON; a json.RawMessage is used as is.
func marshalValue(v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(v) > 0 && !json.Valid(v) {
			return nil, errors.New("json.RawMessage is not valid JSON")
		}
		return v, nil
	}
	return json.Marshal(v)
}

// handleBatch dispatches the elements of a batch and answers with one array
// holding the responses to its requests.
func (c *Conn) handleBatch(frame []byte) {
	if why := c.batchRefusal(); why != "" {
		c.answerInvalid(nil, NullID, invalidRequest(why+"; send each message on its own"))
		return
	}
	elems := splitArray(frame)
	switch {
	case len(elems) == 0:
		c.answerInvalid(nil, NullID, invalidRequest("a batch must not be empty"))
		return
	case len(elems) > c.opts.MaxBatchSize:
		c.answerInvalid(nil, NullID, invalidRequest(fmt.Sprintf("a batch of %d elements exceeds the limit of %d", len(elems), c.opts.MaxBatchSize)))
		return
	}
	batch := &batchReply{conn: c, outstanding: 1} // 1: the read loop itself
	for _, e := range elems {
		c.handleMessage(e, batch, nil)
	}
	batch.finish(ID{}, nil, true)
}

// batchReply collects the responses to one incoming batch and sends them
// as one array when the last request has been answered.
type batchReply struct {
	conn        *Conn
	mu          sync.Mutex
	outstanding int
	responses   [][]byte
	size        int         // bytes of the array holding responses so far
	closeAfter  atomic.Bool // a handler asked to close after the batch's answer
	// ids holds the request ids of the batch read so far; only the read
	// loop uses it.
	ids map[string]struct{}
}

// seen records id as a request id of the batch and reports whether an
// earlier element used it. A nil batch has seen nothing.
func (b *batchReply) seen(id ID) bool {
	if b == nil {
		return false
	}
	if _, ok := b.ids[id.raw]; ok {
		return true
	}
	if b.ids == nil {
		b.ids = make(map[string]struct{})
	}
	b.ids[id.raw] = struct{}{}
	return false
}

// expect records one more request whose response the batch waits for.
func (b *batchReply) expect() {
	b.mu.Lock()
	b.outstanding++
	b.mu.Unlock()
}

// add appends a response to id that needs no waiting (an error for an
// invalid element).
func (b *batchReply) add(id ID, msg []byte) {
	b.mu.Lock()
	b.keep(id, msg)
	b.mu.Unlock()
}

// keep appends msg, the response to id, to the array, unless it would
// take the array past [Options.MaxResponseBytes]: then the -32603 error
// saying so takes its place, or, if even that does not fit, nothing
// does. b.mu must be held.
func (b *batchReply) keep(id ID, msg []byte) {
	if b.size == 0 {
		b.size = 1 // the closing ']'
	}
	grown := b.size + 1 + len(msg) // '[' or ',' before msg
	limit := b.conn.opts.MaxResponseBytes
	if tooLarge(grown, limit) {
		rpcErr := b.conn.responseTooLarge(grown)
		e := appendError(nil, id, rpcErr)
		if tooLarge(b.size+1+len(e), limit) {
			b.conn.warn("jsonrpc: batch answer full; dropped a response", "id", Truncate(id.String()), "limit", limit)
			return
		}
		b.conn.stats.errorSent(rpcErr.Code)
		b.conn.warn("jsonrpc: batch answer too large; answered an element with an error", "id", Truncate(id.String()), "size", grown, "limit", limit)
		msg, grown = e, b.size+1+len(e)
	}
	b.size = grown
	b.responses = append(b.responses, msg)
}

// complete records that one awaited request finished, with its response
// to id (nil for none). It is a no-op on a nil batch.
func (b *batchReply) complete(id ID, msg []byte) {
	if b != nil {
		b.finish(id, msg, false)
	}
}

// finish records one finished element and, after the last one, sends the
// array: through the reply queue when called from the read loop, which
// must never block on a write.
func (b *batchReply) finish(id ID, msg []byte, fromReader bool) {
	b.mu.Lock()
	if msg != nil {
		b.keep(id, msg)
	}
	b.outstanding--
	last := b.outstanding == 0
	b.mu.Unlock()
	if !last || len(b.responses) == 0 {
		return
	}
	out := make([]byte, 1, b.size+1)
	out[0] = '['
	for i, r := range b.responses {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, r...)
	}
	out = append(out, ']')
	if fromReader {
		b.conn.replyFromReader(out)
	} else {
		_ = b.conn.enqueue(b.conn.context(), out)
	}
	if b.closeAfter.Load() {
		b.conn.closeAfterQueued()
	}
}
