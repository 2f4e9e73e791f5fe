package jsonrpc

import (
	"context"
	"errors"
	"fmt"
)

// PeerError is an error the peer sent on its own: an error response whose
// id is null, answering none of our calls. Peers send one when they could
// not read a message of ours, or to say why they are about to exit (a
// startup failure). [Options.OnPeerError] receives each one; once the
// connection ends, [Conn.Err] and the error of every call that failed with
// it wrap the last one received, so errors.As finds it there.
type PeerError struct {
	// Err is the error object the peer sent.
	Err *Error
}

// Error implements the error interface.
func (e *PeerError) Error() string {
	return "the peer reported " + Truncate(e.Err.Error())
}

// Unwrap returns the peer's error object.
func (e *PeerError) Unwrap() error { return e.Err }

// SendError sends e to the peer as an error response with id null, an
// error not tied to any request of the peer's: a server uses it to say why
// it cannot serve (before it exits, for instance). It waits while the
// write queue is full unless ctx or the connection ends first.
func (c *Conn) SendError(ctx context.Context, e *Error) error {
	if e == nil {
		return errors.New("jsonrpc: send error: nil error")
	}
	if err := c.enqueue(ctx, c.errorResponse(NullID, e)); err != nil {
		return errorf("jsonrpc: send error %d: %w", e.Code, err)
	}
	return nil
}

// peerReported records an error response with id null and hands it to
// Options.OnPeerError. It runs on the read loop.
func (c *Conn) peerReported(e *Error) {
	c.warn("jsonrpc: the peer reported an error", "code", e.Code, "message", Truncate(e.Message), "data", Truncate(string(e.Data)))
	c.mu.Lock()
	c.peerErr = &PeerError{Err: e}
	c.mu.Unlock()
	if c.opts.OnPeerError != nil {
		c.opts.OnPeerError(e)
	}
}

// withPeerError wraps reason, why the connection ended, with the last
// error the peer reported, if any. c.mu must be held.
func (c *Conn) withPeerError(reason error) error {
	if c.peerErr == nil {
		return reason
	}
	return fmt.Errorf("%w: %w", reason, c.peerErr)
}
