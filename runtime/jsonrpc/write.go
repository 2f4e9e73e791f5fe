package jsonrpc

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// writeLoop writes queued messages, gathering those queued together into
// one write, until the connection ends. After a local Close it first
// writes what is still queued.
func (c *Conn) writeLoop() {
	defer c.wg.Done()
	defer close(c.drained)
	for {
		select {
		case q := <-c.out:
			if !c.writeQueued(q) {
				return
			}
		case <-c.done:
			c.mu.Lock()
			drain := c.err == errLocalClose || c.err == ErrPeerClosed
			c.mu.Unlock()
			if drain {
				c.writeQueued(queued{})
			}
			return
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

// writeQueued writes q (if not empty) and every message queued behind it,
// then flushes. It reports false when writing failed and the connection
// has ended.
func (c *Conn) writeQueued(q queued) bool {
	yielded := false
	for {
		msg := q.msg
		if msg != nil && len(msg) == 0 { // closeMarker
			if err := c.flusher.Flush(); err != nil {
				c.writeFailed(err)
				return false
			}
			c.shutdown(errClosedAfterReply)
			return false
		}
		if msg != nil || !q.related.IsZero() { // nil: q.related gets no answer
			text := validText(msg)
			if text != nil {
				c.frameOut(text)
			}
			if err := c.write(text, q.related); err != nil {
				c.writeFailed(err)
				return false
			}
			c.recycle(msg) // the framing copied it
		}
		select {
		case q = <-c.out:
			continue
		default:
		}
		if !yielded && msg != nil {
			// Let goroutines about to send run first, so that their
			// messages share this write; when none is runnable this
			// returns at once.
			yielded = true
			runtime.Gosched()
			select {
			case q = <-c.out:
				continue
			default:
			}
		}
		if err := c.flusher.Flush(); err != nil {
			c.writeFailed(err)
			return false
		}
		return true
	}
}

// enqueue hands msg to the write loop, waiting while the queue is full
// unless ctx or the connection ends first.
func (c *Conn) enqueue(ctx context.Context, msg []byte) error {
	select {
	case <-c.done:
		return c.closedError()
	default:
	}
	select {
	case c.out <- queued{msg, c.relatedTo(ctx)}:
		return nil
	case <-c.done:
		return c.closedError()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// replyFromReader queues an answer produced by the read loop. The read loop
// never waits on writing, so a peer that sends without reading cannot stop
// us from reading its messages; when such a peer has filled the write
// queue, the answer is dropped and logged.
func (c *Conn) replyFromReader(msg []byte) {
	select {
	case c.out <- queued{msg: msg}:
	default:
		c.warn("jsonrpc: peer is not reading; dropped an error response", "response", Truncate(string(msg)))
	}
}
