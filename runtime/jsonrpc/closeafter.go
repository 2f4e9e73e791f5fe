package jsonrpc

import (
	"context"
	"errors"
	"time"
)

// CloseAfterReply asks the connection serving the handler that received
// ctx to close once that handler's answer has been written: a plugin that
// exits after answering "shutdown", or a server that drops a client it
// has just refused. In a notification handler the connection closes once
// everything queued before the handler returned has been written. It
// reports whether ctx belongs to a handler.
func CloseAfterReply(ctx context.Context) bool {
	if in, ok := ctx.Value(incomingKey{}).(*incoming); ok {
		in.closeAfter.Store(true)
		return true
	}
	if c := ConnFromContext(ctx); c != nil {
		c.closeAfterNote.Store(true)
		return true
	}
	return false
}

// errClosedAfterReply is the reason a connection ended after a handler
// asked for it with CloseAfterReply.
var errClosedAfterReply = errors.New("jsonrpc: closed after the last reply")

// closeMarker, queued behind a message, tells the write loop to flush and
// end the connection. Real messages are never empty.
var closeMarker = []byte{}

// closeAfterQueued queues the close marker behind what is queued now.
func (c *Conn) closeAfterQueued() {
	_ = c.enqueue(c.context(), closeMarker)
}

// incomingKey is the context key of the request a handler serves.
type incomingKey struct{}

// The request being handled is the handler's context: it carries the
// request (for CloseAfterReply) without a context of its own.

// Deadline implements context.Context.
func (in *incoming) Deadline() (time.Time, bool) { return in.ctx.Deadline() }

// Done implements context.Context.
func (in *incoming) Done() <-chan struct{} { return in.ctx.Done() }

// Err implements context.Context.
func (in *incoming) Err() error { return in.ctx.Err() }

// Value implements context.Context.
func (in *incoming) Value(key any) any {
	if key == (incomingKey{}) {
		return in
	}
	return in.ctx.Value(key)
}
