package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Redialer is a [Caller] that keeps one connection to a server and opens a
// new one when the previous one has ended (the server closed it, it failed,
// or it sat idle for IdleTimeout). A call that fails because its
// connection ended is not retried, since the server may have run it; the
// next call dials again.
type Redialer struct {
	// Dial opens a new stream to the server.
	Dial func(ctx context.Context) (io.ReadWriteCloser, error)
	// Options configure each connection.
	Options Options
	// IdleTimeout, if positive, closes the connection after this long
	// without a call or notification from this side, before a server with
	// its own idle timeout drops it mid-call.
	IdleTimeout time.Duration

	mu     sync.Mutex
	conn   *Conn
	active int // calls in progress on conn
	idle   *time.Timer
	closed bool
}

// errRedialerClosed is returned by calls on a closed Redialer.
var errRedialerClosed = fmt.Errorf("jsonrpc: redialer: %w", ErrClosed)

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
	if r.conn != nil {
		select {
		case <-r.conn.Done():
			r.conn.Close() // reap its goroutines
			r.conn, r.active = nil, 0
		default:
		}
	}
	if r.conn == nil {
		if r.Dial == nil {
			return nil, errors.New("jsonrpc: redialer: Dial is nil")
		}
		stream, err := r.Dial(ctx)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: redialer: dial: %w", err)
		}
		r.conn = NewConn(stream, r.Options)
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

// Call implements [Caller] on the current connection.
func (r *Redialer) Call(ctx context.Context, method string, params, result any) error {
	c, err := r.acquire(ctx)
	if err != nil {
		return err
	}
	defer r.release(c)
	return c.Call(ctx, method, params, result)
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
