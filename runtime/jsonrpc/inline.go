package jsonrpc

import (
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// A handler that [Options.Inline] names runs on the read loop, when
// nothing else waits to be handled: the request then costs no hand-over
// to a worker goroutine, and its answer is written by the read loop too
// when no writer runs. A read loop that writes may block while the peer
// does not read; if the peer's read loop is writing to us at the same
// time, neither would read again. So the read loop arms a watchdog
// before it writes: if the write has not returned when the watchdog
// fires, a new goroutine becomes the reader, and the old one, once its
// write is done, ends without reading again.

// inlineWriteWait is how long the read loop may be busy writing an
// inline answer before another goroutine takes over reading.
const inlineWriteWait = 2 * time.Millisecond

// inlineReader is the state of a read loop that runs handlers itself.
type inlineReader struct {
	// state is the reader's generation times two, plus one while the
	// reader writes an answer. The watchdog moves a writing reader's
	// state to the next generation; the reader whose generation has
	// passed ends once it has written.
	state atomic.Uint64
	// watchdog runs takeOverReading; made on the first inline answer,
	// armed only while the reader writes.
	watchdog *time.Timer
	handOffs atomic.Int64 // readers started by the watchdog, for tests
}

// readEnd is how readMessages ended.
type readEnd uint8

const (
	readDone     readEnd = iota // the stream or the connection ended
	readIdle                    // idle a while: hand off (see readLoop)
	readReplaced                // another goroutine reads now (see above)
)

// noCancel is the cancel function of an inline request: its context is
// the connection's, which ends with the connection, and the peer cannot
// cancel it, since nothing is read until its handler returns.
func noCancel() {}

// runsInline reports whether a message of method, read now, is handled on
// the read loop: the handler is named by Options.Inline, the stream does
// not route answers by request, the peer has sent nothing behind it that
// the reader already holds (a busy peer's messages are better read on
// while workers answer, their answers gathered into shared writes), no
// request or notification waits for a worker, no notification is being
// handled (they are handled in order, and requests may have to wait for
// them), and a request would not run beyond MaxConcurrentRequests.
func (c *Conn) runsInline(method string) bool {
	if c.opts.Inline == nil || c.related != nil || !c.opts.Inline(method) {
		return false
	}
	if h, ok := c.reader.(framing.Holder); ok && h.Held() {
		return false
	}
	return c.notifications.free(1) && c.requests.free(int(c.requests.limit))
}

// free reports whether no task waits and fewer than busy tasks run. Only
// the goroutine that pushes calls it, so no task is added meanwhile.
func (q *workQueue[T]) free(busy int) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return int(q.head) == len(q.tasks) && int(q.busy) < busy
}

// requestInline handles a request m on the read loop: registered in
// flight like any other (so that a request reusing its id while it runs
// elsewhere is refused), with the connection's handler context, which
// ends with the connection.
func (c *Conn) requestInline(m *message) {
	in := &incoming{
		req:    Request{ID: m.id, Method: m.method, Params: m.params, nullParams: m.nullParams, strict: c.opts.DisallowUnknownFields, valid: true},
		ctx:    c.handlerCtx,
		cancel: noCancel,
		inline: true,
	}
	c.mu.Lock()
	duplicate := c.inflight.get(m.id.raw) != nil
	if !duplicate {
		c.inflight.put(in)
	}
	c.mu.Unlock()
	if duplicate {
		c.answerInvalid(nil, m.id, invalidRequest("a request with this id is already in flight"))
		return
	}
	c.runRequest(in)
}

// notifyInline handles the notification in on the read loop.
func (c *Conn) notifyInline(in *incoming) {
	in.inline = true
	if c.opts.OrderRequestsAfterNotifications {
		c.order.queued()
	}
	c.runNotification(in)
}

// dequeued gives back what the request or notification in counted in
// MaxQueuedBytes while it waited for a worker; one run on the read loop
// never waited.
func (c *Conn) dequeued(in *incoming) {
	if !in.inline {
		c.queued.release(in.size)
	}
}

// answer sends msg, the answer to the request in outside a batch: from
// its worker, directly or queued (see enqueue); from the read loop, under
// the watchdog.
func (c *Conn) answer(in *incoming, msg []byte) {
	if !in.inline {
		_ = c.enqueue(c.context(), msg)
		return
	}
	armed := c.armWatchdog()
	_ = c.enqueue(c.context(), msg)
	c.disarmWatchdog(armed)
}

// armWatchdog records that the reader is about to write, starts the
// watchdog, and returns the state to pass to disarmWatchdog.
func (c *Conn) armWatchdog() uint64 {
	if c.inline.watchdog == nil {
		// Made stopped, before the state says the reader writes: the
		// watchdog reads the state before anything else.
		c.inline.watchdog = time.AfterFunc(time.Hour, c.takeOverReading)
		c.inline.watchdog.Stop()
	}
	armed := c.inline.state.Add(1)
	c.inline.watchdog.Reset(inlineWriteWait)
	return armed
}

// disarmWatchdog records that the reader's write is done, unless the
// watchdog has handed reading to another goroutine meanwhile: then the
// watchdog belongs to that reader, and this goroutine leaves it alone
// (readMessages sees the new generation and ends).
func (c *Conn) disarmWatchdog(armed uint64) {
	if c.inline.state.CompareAndSwap(armed, armed-1) {
		c.inline.watchdog.Stop()
	}
}

// takeOverReading, run by the watchdog, starts a new reader when the
// reader is still writing. A watchdog that fires late, when the reader
// has finished writing, does nothing.
func (c *Conn) takeOverReading() {
	s := c.inline.state.Load()
	if s&1 == 0 || !c.inline.state.CompareAndSwap(s, s+1) {
		return
	}
	c.inline.handOffs.Add(1)
	c.wg.Add(1) // the old reader keeps its count until it ends
	go c.readLoop()
}

// readerGeneration returns the generation of the reader calling it.
func (c *Conn) readerGeneration() uint64 { return c.inline.state.Load() }

// replaced reports whether the reader of generation gen has been replaced
// by another while it wrote an inline answer.
func (c *Conn) replaced(gen uint64) bool {
	return c.opts.Inline != nil && c.inline.state.Load() != gen
}
