package jsonrpc

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// ErrTooManyCalls is wrapped by the error of a call made while
// [Options.MaxOutgoingCalls] calls already wait for their answers.
var ErrTooManyCalls = errors.New("jsonrpc: too many calls awaiting an answer")

// MethodNotFound returns the -32601 error answering a request for a
// method this side does not have; its data names the method, truncated
// (see [Truncate]) so that the answer does not grow with the name.
func MethodNotFound(method string) *Error {
	return NewError(CodeMethodNotFound, "Method not found", map[string]string{"method": Truncate(method)})
}

// reserveCalls makes room for n more pending calls under
// [Options.MaxOutgoingCalls]: at once, or, with WaitForCallSlots and a
// caller that is not a handler of this connection, once enough calls
// have been answered. It is called with c.mu held and returns with it
// held.
func (c *Conn) reserveCalls(ctx context.Context, n int, expired <-chan time.Time) error {
	limit := c.opts.MaxOutgoingCalls
	if limit < 0 {
		return nil
	}
	for c.err == nil && len(c.pending)+n > limit {
		if !c.opts.WaitForCallSlots || n > limit || ConnFromContext(ctx) == c {
			return ErrTooManyCalls
		}
		if c.slotFreed == nil {
			c.slotFreed = make(chan struct{})
		}
		freed := c.slotFreed
		c.mu.Unlock()
		var err error
		select {
		case <-freed:
		case <-c.done:
		case <-ctx.Done():
			err = ctx.Err()
		case <-expired:
			err = errSlotTimeout
		}
		c.mu.Lock()
		if err != nil {
			return err
		}
	}
	return nil
}

// errSlotTimeout is what reserveCalls returns when the call's default
// timeout ran out while it waited for a slot.
var errSlotTimeout = errors.New("jsonrpc: timed out waiting for a call slot")

// wakeCallers wakes the calls waiting for a slot; c.mu must be held.
func (c *Conn) wakeCallers() {
	if c.slotFreed != nil {
		close(c.slotFreed)
		c.slotFreed = nil
	}
}

// pendingCount is the number of our calls awaiting an answer.
func (c *Conn) pendingCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// byteBudget bounds the bytes of incoming messages waiting in the queues
// of a connection ([Options.MaxQueuedBytes]). Only the read loop
// acquires; workers release.
type byteBudget struct {
	max    int64  // negative: unlimited
	onFull func() // called when acquire has to wait, or nil

	mu    sync.Mutex
	used  int64
	freed chan struct{} // closed on release while acquire waits
}

// acquire takes n bytes, waiting while they do not fit and something is
// queued. It reports false when done closes first.
func (b *byteBudget) acquire(n int64, done <-chan struct{}) bool {
	if b.max < 0 {
		return true
	}
	b.mu.Lock()
	for b.used > 0 && b.used+n > b.max {
		if b.freed == nil {
			b.freed = make(chan struct{})
		}
		freed := b.freed
		b.mu.Unlock()
		if b.onFull != nil {
			b.onFull()
		}
		select {
		case <-freed:
		case <-done:
			return false
		}
		b.mu.Lock()
	}
	b.used += n
	b.mu.Unlock()
	return true
}

// release gives back n bytes acquired.
func (b *byteBudget) release(n int64) {
	if b.max < 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	if b.freed != nil {
		close(b.freed)
		b.freed = nil
	}
	b.mu.Unlock()
}

// bytesQueued returns the bytes waiting in the queues.
func (b *byteBudget) bytesQueued() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// tooLarge reports whether n bytes exceed limit (negative: unlimited).
func tooLarge(n, limit int) bool { return limit >= 0 && n > limit }

// responseTooLarge is the -32603 error replacing an answer of size bytes
// over [Options.MaxResponseBytes].
func (c *Conn) responseTooLarge(size int) *Error {
	data := `{"size":` + strconv.Itoa(size) + `,"limit":` + strconv.Itoa(c.opts.MaxResponseBytes) + `}`
	return &Error{Code: CodeInternalError, Message: "Internal error: the result is too large", Data: []byte(data)}
}

// validText returns msg, or a copy with invalid UTF-8 replaced by U+FFFD
// when it has any (a raw result or error data a handler passed on from
// the peer): every message a Conn writes is valid UTF-8, as JSON text
// must be.
func validText(msg []byte) []byte {
	if utf8.Valid(msg) {
		return msg
	}
	return appendValidUTF8(make([]byte, 0, len(msg)+16), msg)
}
