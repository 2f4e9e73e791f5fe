package jsonrpc

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/internal/timerpool"
)

// writeBuffers holds the buffers that gather the messages queued at one
// time into one write. A writer takes one only for several messages, or
// one it cannot frame in place (see writeText), and gives it back once
// they are written, so an idle connection holds none.
var writeBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, writeBufferSize) }}

// sink is the framing writer's destination: the pooled buffer of the
// running writer, or the stream itself for a frame written whole in one
// write (framing.InPlaceWriter) while the writer holds no buffer.
type sink struct {
	bw     *bufio.Writer
	stream io.Writer
}

func (s *sink) Write(p []byte) (int, error) {
	if s.bw == nil {
		return s.stream.Write(p)
	}
	return s.bw.Write(p)
}

// Buffered tells the framing writer that writes are buffered, so that it
// may write a frame in pieces instead of copying it whole. The framing's
// Write is called only while the writer holds a buffer.
func (s *sink) Buffered() int { return s.bw.Buffered() }

// takeBuffer gives the writer a pooled buffer, unless it holds one.
func (c *Conn) takeBuffer() {
	if c.flusher.bw == nil {
		bw := writeBuffers.Get().(*bufio.Writer)
		bw.Reset(c.stream)
		c.flusher.bw = bw
	}
}

// putBuffer gives the writer's buffer, if it holds one, back to the pool,
// first writing what it holds when flush is set.
func (c *Conn) putBuffer(flush bool) error {
	bw := c.flusher.bw
	if bw == nil {
		return nil
	}
	var err error
	if flush {
		err = bw.Flush()
	}
	bw.Reset(nil)
	c.flusher.bw = nil
	writeBuffers.Put(bw)
	return err
}

// queue hands q to a writer without waiting, starting one if none runs.
// It reports false when the queue is full.
func (c *Conn) queue(q queued) bool {
	ok, start := c.out.put(q)
	if start {
		c.wg.Add(1)
		go c.startWriter()
	}
	return ok
}

// writeLoop writes queued messages, gathering those queued together into
// one write, until the queue is empty, then ends. After the connection
// ended it goes on only for a local Close or the peer's end of input,
// when what is queued is still written.
func (c *Conn) writeLoop() {
	defer c.wg.Done()
	var wake chan struct{} // made the first time the writer lingers
	for {
		// writeAll gives back any buffer it took before another writer
		// may start.
		if stop := c.writeAll(); stop {
			c.out.stop()
			return
		}
		if c.out.finishLater(&wake, c.done) {
			return
		}
	}
}

// writeAll writes what is queued until the queue is empty, and reports
// whether the writer must stop even if more is queued: writing failed,
// or the connection ended with nothing more to write.
func (c *Conn) writeAll() (stop bool) {
	for {
		select {
		case <-c.done:
			c.mu.Lock()
			drain := c.err == errLocalClose || c.err == ErrPeerClosed
			c.mu.Unlock()
			if !drain {
				return true
			}
		default:
		}
		q, ok := c.out.take()
		if !ok {
			return false
		}
		if !c.writeQueued(q) {
			return true
		}
	}
}

// writeFailed ends the connection after a write error. A peer that stops
// reading has often written its last words first (an error response with
// id null saying why it is exiting), so the read loop gets DrainTimeout to
// take in what is still to be read before the connection ends.
func (c *Conn) writeFailed(err error) {
	input := c.inputEnded()
	t := timerpool.Get(c.opts.DrainTimeout)
	select {
	case <-input:
	case <-c.done:
	case <-t.C:
	}
	timerpool.Put(t)
	c.shutdown(fmt.Errorf("jsonrpc: writing: %w", err))
}

// writeQueued writes q and every message queued behind it, then flushes.
// It reports false when writing failed and the connection has ended. A
// message alone in the queue is written without a pooled buffer when
// the framing can frame it in place (see writeText).
func (c *Conn) writeQueued(q queued) bool {
	closing := q.msg != nil && len(q.msg) == 0 // closeMarker
	next, more := c.out.take()
	yielded := false
	if !more && q.msg != nil && !closing {
		next, more, yielded = c.yieldTake()
	}
	if !more && !closing {
		if err := c.writeMessage(q, true); err != nil {
			c.writeFailed(err)
			return false
		}
		return true
	}
	for {
		if q.msg != nil && len(q.msg) == 0 { // closeMarker
			if err := c.putBuffer(true); err != nil {
				c.writeFailed(err)
				return false
			}
			c.shutdown(errClosedAfterReply)
			return false
		}
		if err := c.writeMessage(q, false); err != nil {
			_ = c.putBuffer(false)
			c.writeFailed(err)
			return false
		}
		if !more {
			next, more = c.out.take()
		}
		if !more && !yielded && q.msg != nil {
			next, more, yielded = c.yieldTake()
		}
		if !more {
			if err := c.putBuffer(true); err != nil {
				c.writeFailed(err)
				return false
			}
			return true
		}
		q, more = next, false
	}
}

// yieldTake lets goroutines about to send run first, so that their
// messages share this write (when none is runnable it returns at once),
// then takes the next queued message, if any.
func (c *Conn) yieldTake() (next queued, more, yielded bool) {
	runtime.Gosched()
	next, more = c.out.take()
	return next, more, true
}

// writeMessage writes the message of q and recycles it: flushed when it
// is lone (the only message to write), else into the writer's buffer.
func (c *Conn) writeMessage(q queued, lone bool) error {
	msg := q.msg
	if msg == nil && q.related.IsZero() { // nil: q.related gets no answer
		return nil
	}
	text := validText(msg)
	if text != nil {
		c.frameOut(text)
	}
	if err := c.writeText(text, q.related, lone); err != nil {
		return err
	}
	c.recycle(msg) // written, or copied by the framing
	return nil
}

// writeText writes one message. A lone message (nothing else to write)
// goes to the stream at once: framed in its own buffer and written in one
// write, with no pooled buffer taken, when the framing can
// (framing.InPlaceWriter), the buffer has room and the message is no
// larger than a pooled buffer; otherwise through a pooled buffer, which
// is flushed and given back. Other messages go into the writer's buffer,
// unflushed. A RelatedWriter takes each message whole, unbuffered.
func (c *Conn) writeText(text []byte, related ID, lone bool) error {
	if c.related != nil || text == nil {
		return c.write(text, related)
	}
	if !lone {
		c.takeBuffer()
		return c.writer.Write(text)
	}
	if w, ok := c.writer.(framing.InPlaceWriter); ok && len(text) <= writeBufferSize {
		if written, err := w.WriteInPlace(text); written {
			return err
		}
	}
	c.takeBuffer()
	err := c.writer.Write(text)
	if ferr := c.putBuffer(err == nil); err == nil {
		err = ferr
	}
	return err
}

// writeDirect writes q from the sending goroutine when no writer runs and
// nothing is queued, sparing the message the hand-over to a writer
// goroutine and back. It reports false, having written nothing, when q
// must be queued instead. A sender that writes directly may block while
// the peer does not read, so only one that would wait as long anyway may
// call it: never the read loop (see replyFromReader); a caller only when
// nothing but the connection's end can stop it waiting for its answer
// (see call); a handler's worker, whose answer waits for nothing else
// (see enqueue). A write error is returned, and ends the connection in
// the background as a writer's would.
func (c *Conn) writeDirect(q queued) (written bool, err error) {
	if c.related != nil || !c.out.claim(&c.wg) {
		return false, nil
	}
	if err = c.writeMessage(q, true); err != nil {
		go c.directFailed(err) // takes over the writer's place and the count
		return true, err
	}
	if c.out.release() {
		go c.startWriter() // for what was queued meanwhile; takes over the count
		return true, nil
	}
	c.wg.Done()
	return true, nil
}

// directFailed ends the connection after a direct write failed, as the
// write loop does after a failed write, and gives up the writer's place.
func (c *Conn) directFailed(err error) {
	defer c.wg.Done()
	c.writeFailed(err)
	c.out.stop()
}

// writeFailedError is the error of a send whose direct write failed.
func writeFailedError(err error) error {
	return fmt.Errorf("%w (jsonrpc: writing: %w)", ErrClosed, err)
}

// enqueue hands msg to the write loop, waiting while the queue is full
// unless ctx or the connection ends first. An answer sent under the
// connection's own context (a handler's, from its worker) is written by
// the sender instead when no writer runs (see writeDirect): that context
// ends with the connection, which ends a blocked write. Notifications
// are always queued: their sender waits for nothing, and the writer
// gathers those sent in a row into one write.
func (c *Conn) enqueue(ctx context.Context, msg []byte) error {
	select {
	case <-c.done:
		return c.closedError()
	default:
	}
	q := queued{msg, c.relatedTo(ctx)}
	if ctx == c.context() && len(msg) > 0 { // an answer, not closeMarker
		if ok, err := c.writeDirect(q); ok {
			if err != nil {
				return writeFailedError(err)
			}
			return nil
		}
	}
	for !c.queue(q) {
		select {
		case <-c.out.wait():
		case <-c.done:
			return c.closedError()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// replyFromReader queues an answer produced by the read loop. The read loop
// never waits on writing, so a peer that sends without reading cannot stop
// us from reading its messages; when such a peer has filled the write
// queue, the answer is dropped and logged.
func (c *Conn) replyFromReader(msg []byte) {
	if !c.queue(queued{msg: msg}) {
		c.warn("jsonrpc: peer is not reading; dropped an error response", "response", Truncate(string(msg)))
	}
}
