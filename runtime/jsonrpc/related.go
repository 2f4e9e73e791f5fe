package jsonrpc

import (
	"context"
	"io"
)

// RequestID returns the id of the peer request whose handler received ctx
// (or a context derived from it), and false outside a request handler.
func RequestID(ctx context.Context) (ID, bool) {
	if in, ok := ctx.Value(incomingKey{}).(*incoming); ok {
		return in.req.ID, true
	}
	return ID{}, false
}

// RelatedWriter is implemented by streams that route each message by the
// peer request it belongs to, such as an HTTP session answering each
// request on its own response. A [Conn] over such a stream writes each
// message whole, without framing, with WriteRelated: related is the id of
// the peer request whose handler context was passed to the Call, Notify or
// Batch that sent it, or the zero ID (a response carries its own id). msg
// is only valid during the call. A nil msg says that the request related
// will get no answer (the peer cancelled it, under [CancelMCP]).
type RelatedWriter interface {
	WriteRelated(msg []byte, related ID) error
}

// queued is a message waiting for the write loop, with the peer request
// it relates to when the stream is a RelatedWriter.
type queued struct {
	msg     []byte
	related ID
}

// relatedTo returns the peer request that ctx's handler serves, when the
// stream wants to know.
func (c *Conn) relatedTo(ctx context.Context) ID {
	if c.related == nil {
		return ID{}
	}
	id, _ := RequestID(ctx)
	return id
}

// write writes one message, through the framing or to a RelatedWriter.
func (c *Conn) write(msg []byte, related ID) error {
	if c.related != nil {
		return c.related.WriteRelated(msg, related)
	}
	if msg == nil {
		return nil
	}
	return c.writer.Write(msg)
}

// unanswered tells a RelatedWriter, in order with the queued messages,
// that the request in, outside a batch, gets no answer.
func (c *Conn) unanswered(in *incoming) {
	if c.related != nil && in.batch == nil {
		for !c.queue(queued{related: in.req.ID}) {
			select {
			case <-c.out.wait():
			case <-c.done:
				return
			}
		}
	}
}

// Stream returns the stream the connection runs over.
func (c *Conn) Stream() io.ReadWriteCloser { return c.stream }
