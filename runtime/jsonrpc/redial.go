package jsonrpc

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// Redialer is a [Caller] that keeps one connection to a server and opens a
// new one when the previous one has ended (the server closed it, it failed,
// or it sat idle for IdleTimeout). A connection whose peer has finished
// sending is taken as ended before anything is sent on it, since a server
// that closes after each answer reads nothing more.
//
// A call whose connection ends under it is sent again on a new connection,
// up to Retries times, when that cannot run it twice: it failed before any
// byte of it was written ([ErrNotSent]), or its method is idempotent
// ([Options.Idempotent]). Any other call that fails so may have been run
// by the server, and returns its error; the next call dials again.
type Redialer struct {
	// Dial opens a new stream to the server.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)
	// Options configure each connection.
	Options Options
	// IdleTimeout, if positive, closes the connection after this long
	// without a call or notification from this side, before a server with
	// its own idle timeout drops it mid-call.
	IdleTimeout time.Duration
	// OnConnect, if set, runs on each new connection before anything else
	// is sent on it: the protocol's handshake. When it fails, the
	// connection is closed and the call that dialed fails with its error.
	OnConnect func(ctx context.Context, c *Conn) error
	// Retries is how many times a call is sent again on a new connection
	// after its connection ended (see above): 0 means 1; negative, never.
	Retries int

	mu     sync.Mutex
	conn   *Conn
	active int // calls in progress on conn
	idle   *time.Timer
	closed bool
}

// errRedialerClosed is returned by calls on a closed Redialer.
var errRedialerClosed = errorf("jsonrpc: redialer: %w", ErrClosed)

// Conn returns the live connection, dialing a new one if there is none.
func (r *Redialer) Conn(ctx context.Context) (*Conn, error) {
	c, err := r.acquire(ctx)
	if err == nil {
		r.release(c)
	}
	return c, err
}

// acquire returns the live connection, dialing if needed, and counts one
// more call in progress on it.
func (r *Redialer) acquire(ctx context.Context) (*Conn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errRedialerClosed
	}
	if r.conn != nil && r.conn.finished() {
		r.conn.Close() // reap its goroutines
		r.conn, r.active = nil, 0
	}
	if r.conn == nil {
		if r.Dial == nil {
			return nil, errors.New("jsonrpc: redialer: Dial is nil")
		}
		stream, err := r.Dial(ctx)
		if err != nil {
			return nil, errorf("jsonrpc: redialer: dial: %w", err)
		}
		c := NewConn(stream, r.Options)
		if r.OnConnect != nil {
			if err := r.OnConnect(ctx, c); err != nil {
				c.Close()
				return nil, errorf("jsonrpc: redialer: on connect: %w", err)
			}
		}
		r.conn = c
	}
	if r.idle != nil {
		r.idle.Stop()
	}
	r.active++
	return r.conn, nil
}

// release ends one call on c and, when none is left, starts the idle timer.
func (r *Redialer) release(c *Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn != c {
		return
	}
	r.active--
	if r.active > 0 || r.IdleTimeout <= 0 || r.closed {
		return
	}
	r.idle = time.AfterFunc(r.IdleTimeout, func() {
		r.mu.Lock()
		if r.conn != c || r.active > 0 {
			r.mu.Unlock()
			return
		}
		r.conn = nil
		r.mu.Unlock()
		c.Close()
	})
}

// Call implements [Caller] on the current connection, sending the call
// again on a new connection when that is safe (see [Redialer]).
func (r *Redialer) Call(ctx context.Context, method string, params, result any) error {
	for attempt := 0; ; attempt++ {
		c, err := r.acquire(ctx)
		if err != nil {
			return err
		}
		err = c.Call(ctx, method, params, result)
		r.release(c)
		if err == nil || attempt >= r.retries() || ctx.Err() != nil || !r.again(method, err) {
			return err
		}
		c.log.Debug("jsonrpc: redialer: connection ended under a call; sending it again", "method", method, "error", err)
	}
}

// retries is how many times a call may be sent again.
func (r *Redialer) retries() int {
	if r.Retries == 0 {
		return 1
	}
	return max(r.Retries, 0)
}

// again reports whether a call of method that failed with err may be sent
// again on a new connection.
func (r *Redialer) again(method string, err error) bool {
	if !errors.Is(err, ErrClosed) || errors.Is(err, ErrTimeout) {
		return false
	}
	return errors.Is(err, ErrNotSent) || r.Options.Idempotent != nil && r.Options.Idempotent(method)
}

// finished reports whether the connection has ended or its peer has
// finished sending: nothing sent on it now would be answered.
func (c *Conn) finished() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err != nil || c.inputEnd
}

// Notify implements [Caller] on the current connection.
func (r *Redialer) Notify(ctx context.Context, method string, params any) error {
	c, err := r.acquire(ctx)
	if err != nil {
		return err
	}
	defer r.release(c)
	return c.Notify(ctx, method, params)
}

// Close closes the current connection, if any; later calls fail.
func (r *Redialer) Close() error {
	r.mu.Lock()
	r.closed = true
	conn := r.conn
	r.conn = nil
	if r.idle != nil {
		r.idle.Stop()
	}
	r.mu.Unlock()
	if conn != nil {
		return conn.Close()
	}
	return nil
}
