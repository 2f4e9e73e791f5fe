package transport

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// ErrIdle is wrapped by the error a connection returned by
// [WithIdleTimeout] reports when it was closed for receiving nothing for
// too long.
var ErrIdle = errors.New("transport: idle timeout")

// WithIdleTimeout wraps c so that a connection that receives no bytes for
// d is closed. Each Read sets c's read deadline to now+d; a Read that
// times out closes c and returns an error wrapping [ErrIdle]. Writes do
// not count as activity. If d <= 0, c is returned unchanged.
//
// The wrapper owns c's read deadline: a deadline set with SetReadDeadline
// or SetDeadline is replaced by the next Read. Write deadlines are left
// alone.
func WithIdleTimeout(c net.Conn, d time.Duration) net.Conn {
	if d <= 0 {
		return c
	}
	return &idleConn{Conn: c, timeout: d}
}

type idleConn struct {
	net.Conn
	timeout time.Duration
	// since is when the wait of the current read began, or of the last
	// one ReadIdle gave up on, whose idle deadline is then set for the
	// next Read; zero otherwise. Only the reader uses it.
	since time.Time
}

// Read reads from the connection, giving up and closing it if nothing
// arrives within the idle timeout.
func (c *idleConn) Read(b []byte) (int, error) { return c.read(b, 0) }

// read is Read, or ReadIdle when wait > 0: then, if nothing arrives
// within wait and the idle deadline is later, it returns 0 and
// framing.ErrStillIdle, having set the read deadline the next Read needs:
// the idle deadline of the wait that began with this read. That Read
// sets no deadline, so that a goroutine that starts there stays on a
// small stack.
func (c *idleConn) read(b []byte, wait time.Duration) (int, error) {
	early := false
	if !c.since.IsZero() && wait == 0 {
		c.since = time.Time{} // the deadline is set (above)
	} else {
		now := time.Now()
		if c.since.IsZero() {
			c.since = now
		}
		deadline := c.since.Add(c.timeout)
		if end := now.Add(wait); wait > 0 && end.Before(deadline) {
			deadline, early = end, true
		}
		// An error here means the connection is closed; Read reports it.
		_ = c.Conn.SetReadDeadline(deadline)
	}
	n, err := c.Conn.Read(b)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		if early && n == 0 {
			_ = c.Conn.SetReadDeadline(c.since.Add(c.timeout))
			return 0, framing.ErrStillIdle
		}
		_ = c.Conn.Close()
		return n, idleError(c.Conn, c.timeout)
	}
	c.since = time.Time{}
	return n, err
}

// idleError is the error of a Read on c that received nothing for d.
func idleError(c net.Conn, d time.Duration) error {
	return fmt.Errorf("%w: connection from %v: no bytes received for %v", ErrIdle, c.RemoteAddr(), d)
}
