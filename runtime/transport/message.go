package transport

import (
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// ErrMessageTimeout is wrapped by the error a connection returned by
// [WithMessageTimeout] reports when it was closed because one message
// took too long to arrive.
var ErrMessageTimeout = errors.New("transport: message timeout")

// WithMessageTimeout wraps c so that each message must arrive within
// message of its first byte, and the connection may sit idle between
// messages for at most idle. It stops clients that trickle a message a
// byte at a time: such a client never goes idle, but its message never
// completes in time.
//
// The reader of the returned connection must report where each message
// ends by calling its MessageRead method (a jsonrpc.Conn does so for every
// frame it reads, through the jsonrpc.MessageReader interface). The first
// Read after a MessageRead (or after the connection opened) that returns
// bytes starts the next message's budget. Each Read sets c's read
// deadline to the earlier of now+idle and the end of the current
// message's budget. A Read that hits the budget closes c and returns an
// error wrapping [ErrMessageTimeout]; one that hits the idle deadline
// closes c and returns an error wrapping [ErrIdle]. If idle <= 0, only
// the message budget applies; if message <= 0, the result is
// [WithIdleTimeout](c, idle).
//
// Read and MessageRead are meant to be called by the one goroutine that
// reads the connection; Write and Close may be called from any goroutine.
// As with [WithIdleTimeout], the wrapper owns c's read deadline.
func WithMessageTimeout(c net.Conn, idle, message time.Duration) net.Conn {
	if message <= 0 {
		return WithIdleTimeout(c, idle)
	}
	return &messageConn{Conn: c, idle: idle, message: message}
}

// messageConn is the connection returned by WithMessageTimeout.
type messageConn struct {
	net.Conn
	idle    time.Duration // <= 0: no idle timeout
	message time.Duration
	// start is when the current message's first byte was read, as
	// time since clockBase plus one; 0 between messages.
	start atomic.Int64
	// since is when a wait that ReadIdle gave up on began, as time
	// since clockBase plus one, for the next Read's idle deadline; 0
	// otherwise. Only the reader uses it.
	since int64
}

// clockBase is the monotonic origin of the times messageConns keep, one
// for all of them (a time.Time each would take 24 bytes a connection).
var clockBase = time.Now()

// MessageRead marks the end of a message: the next Read that returns
// bytes starts a new message's budget. It implements
// jsonrpc.MessageReader.
func (c *messageConn) MessageRead() { c.start.Store(0) }

// Read reads from the connection, closing it if the current message's
// budget or the idle timeout runs out first.
func (c *messageConn) Read(b []byte) (int, error) { return c.read(b, 0) }

// read is Read, or ReadIdle when wait > 0: then, between messages, if
// nothing arrives within wait and the idle deadline is later, it returns
// 0 and framing.ErrStillIdle, having set the read deadline the next Read
// needs: the idle deadline of the wait that began with this read. That
// Read sets no deadline, so that a goroutine that starts there stays on
// a small stack.
func (c *messageConn) read(b []byte, wait time.Duration) (int, error) {
	var from, deadline time.Time
	budget, early := false, false
	if c.since != 0 && wait == 0 {
		c.since = 0 // the deadline is set (above), and no message is under way
	} else {
		now := time.Now()
		from = now
		if c.since != 0 {
			from, c.since = clockBase.Add(time.Duration(c.since-1)), 0
		}
		if c.idle > 0 {
			deadline = from.Add(c.idle)
		}
		if start := c.start.Load(); start != 0 {
			end := clockBase.Add(time.Duration(start - 1)).Add(c.message)
			if deadline.IsZero() || end.Before(deadline) {
				deadline, budget = end, true
			}
		} else if end := now.Add(wait); wait > 0 && (deadline.IsZero() || end.Before(deadline)) {
			deadline, early = end, true
		}
		// An error here means the connection is closed; Read reports it.
		_ = c.Conn.SetReadDeadline(deadline)
	}
	n, err := c.Conn.Read(b)
	if n > 0 && c.start.Load() == 0 {
		c.start.Store(int64(time.Since(clockBase)) + 1)
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		if early && n == 0 {
			c.since = int64(from.Sub(clockBase)) + 1
			var idle time.Time // none
			if c.idle > 0 {
				idle = from.Add(c.idle)
			}
			_ = c.Conn.SetReadDeadline(idle)
			return 0, framing.ErrStillIdle
		}
		_ = c.Conn.Close()
		if budget {
			return n, fmt.Errorf("%w: connection from %v: message not complete %v after its first byte",
				ErrMessageTimeout, c.Conn.RemoteAddr(), c.message)
		}
		return n, idleError(c.Conn, c.idle)
	}
	return n, err
}
