// Package framing splits a byte stream into JSON-RPC messages.
//
// Two framings are provided: [ContentLength] (LSP-style
// "Content-Length: N\r\n\r\n" headers, used by Hermes and Reginald) and
// [NDJSON] (one message per line, used by MCP's stdio transport, Autohand
// and Supex). Both implement [Framing], so adding a third framing (for
// example WebSocket text frames) is one new type.
//
// Readers enforce [Limits]: a message or header larger than allowed is
// refused with an [*Error] wrapping [ErrTooLarge], and the size a peer
// announces is never allocated before the bytes actually arrive.
package framing

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// Default limits, used when a [Limits] field is zero.
const (
	// DefaultMaxMessageSize is the largest message body accepted by default.
	DefaultMaxMessageSize = 32 << 20
	// DefaultMaxHeaderSize is the largest Content-Length header section
	// (all header lines together, including line ends) accepted by default.
	DefaultMaxHeaderSize = 8 << 10
)

// Limits bounds what a [Reader] accepts. Zero fields take the defaults.
type Limits struct {
	// MaxMessageSize is the largest message body in bytes.
	MaxMessageSize int
	// MaxHeaderSize is the largest header section in bytes (Content-Length
	// framing only).
	MaxHeaderSize int
}

// withDefaults returns l with zero fields replaced by the defaults.
func (l Limits) withDefaults() Limits {
	if l.MaxMessageSize <= 0 {
		l.MaxMessageSize = DefaultMaxMessageSize
	}
	if l.MaxHeaderSize <= 0 {
		l.MaxHeaderSize = DefaultMaxHeaderSize
	}
	return l
}

// Reader reads one framed message at a time. A Reader is not safe for
// concurrent use.
type Reader interface {
	// Read returns the body of the next message. The caller owns the
	// returned slice, and may hand it back with [Recycler] once done
	// with it. At a clean end of stream (between messages) Read returns
	// io.EOF; a stream that ends inside a message yields an error
	// wrapping io.ErrUnexpectedEOF.
	Read() ([]byte, error)
}

// Waiter is implemented by this package's Readers. It lets the goroutine
// that reads a stream end while the stream is idle and leave the wait for
// the next message to a new goroutine, whose stack is small (a goroutine
// keeps the stack it grew while handling messages).
type Waiter interface {
	// ReadBusy is Read, except that between messages, with nothing
	// held, when the input implements [IdleInput] and its ReadIdle
	// reports [ErrStillIdle], ReadBusy returns ErrStillIdle having
	// consumed nothing. A later Read or ReadBusy reads on.
	ReadBusy() ([]byte, error)
	// Wait blocks until the first bytes of the next message, or an
	// error, arrive, reading with the input's Read; the next Read or
	// ReadBusy returns that message or error. It returns at once if
	// bytes are held or the Reader has already failed.
	Wait()
}

// IdleInput is implemented by inputs that can tell a reader waiting
// between messages that the wait is getting long, such as a
// transport.Server connection.
type IdleInput interface {
	// ReadIdle is Read for a reader waiting for a message's first
	// bytes. When none arrive within a short while, and the input's own
	// limits have not run out, it returns 0 and [ErrStillIdle], having
	// consumed nothing, and the input can be read on.
	ReadIdle(b []byte) (int, error)
}

// ErrStillIdle is returned by [IdleInput.ReadIdle] and [Waiter.ReadBusy]
// when no message has started arriving yet. It is not a failure: the
// stream can be read on.
var ErrStillIdle = errors.New("framing: no message arrived yet")

// Writer writes one framed message at a time. A Writer is not safe for
// concurrent use.
type Writer interface {
	// Write frames msg, a complete JSON value, and writes it to the
	// underlying stream with a single Write call; or, when the stream
	// buffers (it has a Buffered() int method, as *bufio.Writer has),
	// in pieces without copying msg.
	Write(msg []byte) error
}

// Framing creates readers and writers for one wire format.
type Framing interface {
	// Name is the framing's name as written in an IDL file:
	// "content-length" or "ndjson".
	Name() string
	// NewReader returns a Reader that reads messages from r.
	NewReader(r io.Reader, limits Limits) Reader
	// NewWriter returns a Writer that writes messages to w.
	NewWriter(w io.Writer) Writer
}

// ByName returns the framing called name ("content-length" or "ndjson").
func ByName(name string) (Framing, error) {
	switch name {
	case ContentLength.Name():
		return ContentLength, nil
	case NDJSON.Name():
		return NDJSON, nil
	}
	return nil, fmt.Errorf("framing: unknown framing %q (want %q or %q)", name, ContentLength.Name(), NDJSON.Name())
}

// ErrTooLarge is wrapped by the error a Reader returns for a message or
// header section over its [Limits].
var ErrTooLarge = errors.New("framing: message too large")

// Error describes a malformed or oversized frame.
type Error struct {
	// Framing is the name of the framing that refused the input.
	Framing string
	// Reason says what was wrong, for logs and error responses.
	Reason string
	// Recoverable reports whether the reader skipped the bad frame and is
	// positioned at the start of the next one, so reading may continue.
	// When false the stream is out of sync and should be closed.
	Recoverable bool
	// Err is the underlying cause, if any (ErrTooLarge,
	// io.ErrUnexpectedEOF, an I/O error).
	Err error
	// Head and Tail hold the first and the last bytes (up to GlimpseSize
	// each, never the same byte twice) of a message skipped for being too
	// large, so that a connection can tell its id; nil for other errors.
	Head, Tail []byte
}

// GlimpseSize is how many bytes of each end of an oversized message a
// Reader keeps in [Error.Head] and [Error.Tail].
const GlimpseSize = 256

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		// "ndjson framing: ...: message too large", not "...: framing:
		// message too large".
		return fmt.Sprintf("%s framing: %s: %s", e.Framing, e.Reason, strings.TrimPrefix(e.Err.Error(), "framing: "))
	}
	return fmt.Sprintf("%s framing: %s", e.Framing, e.Reason)
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }
