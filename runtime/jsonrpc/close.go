package jsonrpc

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"github.com/rpcgen/rpcgen/runtime/internal/timerpool"
)

// closeError is the error of a call that failed because the connection
// ended for a reason: it wraps ErrClosed and the reason, and reads as
// errorf("%w: %w", ErrClosed, reason) does, "jsonrpc: connection closed: "
// then the reason without its own "jsonrpc: ". Its text is made only when
// asked for.
type closeError struct{ errs [2]error }

func (e *closeError) Error() string {
	return ErrClosed.Error() + ": " + strings.TrimPrefix(e.errs[1].Error(), "jsonrpc: ")
}

func (e *closeError) Unwrap() []error { return e.errs[:] }

// closedBy returns the error of a call that failed because the connection
// ended for reason; the peer having closed its end, the usual reason,
// allocates nothing.
func closedBy(reason error) error {
	if reason == ErrPeerClosed {
		return errClosedByPeer
	}
	return &closeError{[2]error{ErrClosed, reason}}
}

// errClosedByPeer is closedBy(ErrPeerClosed).
var errClosedByPeer error = &closeError{[2]error{ErrClosed, ErrPeerClosed}}

// readError is why the stream could not be read: "jsonrpc: reading: " and
// the cause, which it wraps. Its text is made only when asked for: the
// reader of a connection closed locally ends with one that nobody reads.
type readError struct{ err error }

func (e *readError) Error() string { return "jsonrpc: reading: " + e.err.Error() }

func (e *readError) Unwrap() error { return e.err }

// awaitDrained waits up to timeout for drained, closed once the writer has
// sent what was queued, and reports whether it was; a timer is armed only
// when something is left to send.
func awaitDrained(drained <-chan struct{}, timeout time.Duration) bool {
	select {
	case <-drained:
		return true
	default:
	}
	t := timerpool.Get(timeout)
	defer timerpool.Put(t)
	select {
	case <-drained:
		return true
	case <-t.C:
		return false
	}
}

// recoverable returns err as a *framing.Error the reader can go on after,
// or nil. The end of the stream, the usual error, is told apart first:
// errors.As's target escapes, and would be allocated for it.
func recoverable(err error) *framing.Error {
	if err == io.EOF {
		return nil
	}
	if fe, ok := err.(*framing.Error); ok { // as the framings return it
		if fe.Recoverable {
			return fe
		}
		return nil
	}
	var fe *framing.Error
	if errors.As(err, &fe) && fe.Recoverable {
		return fe
	}
	return nil
}

// peerFinished handles the end of the peer's messages. Our own calls can
// no longer be answered and fail at once, but the requests and
// notifications the peer sent before it finished are still handled and
// answered, and those answers written, before the connection closes: a
// client may close its output right after its last request and still
// read. Handlers get FinishTimeout to finish (none when it is negative);
// then their contexts are cancelled and the connection ends. A failed
// write, Close, or the stream's Ended channel (see Options.FinishTimeout)
// ends the wait at once.
func (c *Conn) peerFinished() {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.inputEnd = true
	pending := c.pending
	c.pending = nil // no call is registered once inputEnd is set
	c.wakeCallers()
	failure := closedBy(c.withPeerError(ErrPeerClosed))
	c.mu.Unlock()
	for _, p := range pending {
		p.ch <- callResult{err: failure}
	}
	// With no handler running (the queues are closed), there is nothing
	// to wait for.
	if wait := c.opts.FinishTimeout; wait > 0 && !(c.requests.idle() && c.notifications.idle()) {
		finished := make(chan struct{})
		c.wg.Go(func() {
			c.handlers.Wait()
			close(finished)
		})
		var ended <-chan struct{} // nil: the stream does not say
		if e, ok := c.stream.(interface{ Ended() <-chan struct{} }); ok {
			ended = e.Ended()
		}
		t := timerpool.Get(wait)
		select {
		case <-finished:
		case <-c.done: // a write failed, or Close: nothing more can be answered
		case <-ended: // nor after the stream has ended as a whole
		case <-t.C:
			c.log.Warn("jsonrpc: handlers still running when FinishTimeout ran out after the peer finished sending; cancelling them", "timeout", wait)
		}
		timerpool.Put(t)
	}
	c.shutdown(ErrPeerClosed)
}
