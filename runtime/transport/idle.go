package transport

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"
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
}

// Read reads from the connection, giving up and closing it if nothing
// arrives within the idle timeout.
func (c *idleConn) Read(b []byte) (int, error) {
	// An error here means the connection is closed; Read reports it.
	_ = c.Conn.SetReadDeadline(time.Now().Add(c.timeout))
	n, err := c.Conn.Read(b)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		_ = c.Conn.Close()
		return n, idleError(c.Conn, c.timeout)
	}
	return n, err
}

// idleError is the error of a Read on c that received nothing for d.
func idleError(c net.Conn, d time.Duration) error {
	return fmt.Errorf("%w: connection from %v: no bytes received for %v", ErrIdle, c.RemoteAddr(), d)
}
