package jsonrpc

import (
	"bufio"
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// writeBuffers holds the buffers that gather the messages queued at one
// time into one write. A writer takes one when it starts and gives it back
// when the queue empties, so an idle connection holds none.
var writeBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, writeBufferSize) }}

// sink is the framing writer's destination: the pooled buffer of the
// running writer.
type sink struct{ bw *bufio.Writer }

func (s *sink) Write(p []byte) (int, error) { return s.bw.Write(p) }

// Buffered tells the framing writer that writes are buffered, so that it
// may write a frame in pieces instead of copying it whole.
func (s *sink) Buffered() int { return s.bw.Buffered() }

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
	var t *time.Timer      // made the first time the writer lingers
	var wake chan struct{} // likewise
	for {
		bw := writeBuffers.Get().(*bufio.Writer)
		bw.Reset(c.stream)
		c.flusher.bw = bw
		stop := c.writeAll()
		bw.Reset(nil)
		c.flusher.bw = nil
		writeBuffers.Put(bw)
		// The buffer is given back before another writer may start.
		if stop {
			c.out.stop()
			return
		}
		if c.out.finishLater(&t, &wake, c.done) {
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
	t := time.NewTimer(c.opts.DrainTimeout)
	select {
	case <-c.inputDone:
	case <-c.done:
	case <-t.C:
	}
	t.Stop()
	c.shutdown(fmt.Errorf("jsonrpc: writing: %w", err))
}

// writeQueued writes q and every message queued behind it, then flushes.
// It reports false when writing failed and the connection has ended.
func (c *Conn) writeQueued(q queued) bool {
	yielded := false
	for {
		msg := q.msg
		if msg != nil && len(msg) == 0 { // closeMarker
			if err := c.flusher.bw.Flush(); err != nil {
				c.writeFailed(err)
				return false
			}
			c.shutdown(errClosedAfterReply)
			return false
		}
		if err := c.writeMessage(q); err != nil {
			c.writeFailed(err)
			return false
		}
		var ok bool
		if q, ok = c.out.take(); ok {
			continue
		}
		if !yielded && msg != nil {
			// Let goroutines about to send run first, so that their
			// messages share this write; when none is runnable this
			// returns at once.
			yielded = true
			runtime.Gosched()
			if q, ok = c.out.take(); ok {
				continue
			}
		}
		if err := c.flusher.bw.Flush(); err != nil {
			c.writeFailed(err)
			return false
		}
		return true
	}
}

// writeMessage writes the message of q, unflushed, and recycles it.
func (c *Conn) writeMessage(q queued) error {
	msg := q.msg
	if msg == nil && q.related.IsZero() { // nil: q.related gets no answer
		return nil
	}
	text := validText(msg)
	if text != nil {
		c.frameOut(text)
	}
	if err := c.write(text, q.related); err != nil {
		return err
	}
	c.recycle(msg) // the framing copied it
	return nil
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
	bw := writeBuffers.Get().(*bufio.Writer)
	bw.Reset(c.stream)
	c.flusher.bw = bw
	err = c.writeMessage(q)
	if err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	c.flusher.bw = nil
	writeBuffers.Put(bw)
	if err != nil {
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
	if ctx == c.ctx && len(msg) > 0 { // an answer, not closeMarker
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
