package jsonrpc

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
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
	t := time.NewTimer(timeout)
	defer t.Stop()
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
	var fe *framing.Error
	if errors.As(err, &fe) && fe.Recoverable {
		return fe
	}
	return nil
}
