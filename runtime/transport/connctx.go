package transport

import (
	"context"
	"sync"
	"time"
)

// connCtx is the context a Server passes to Handler or Start for one
// connection: cancelled when the connection ends and at Shutdown or
// Close. It is a pointer to the connection's state, so it costs no
// allocation of its own, and it keeps no map of children: context.AfterFunc
// and the contexts derived from it register through its AfterFunc method
// (the afterFuncer interface of package context) in a short list.
type connCtx struct{ s *ctxState }

// ctxState is a connCtx's state, part of the serverConn.
type ctxState struct {
	mu        sync.Mutex
	cancelled bool
	done      chan struct{} // made by the first Done, or closedDone
	// after holds what AfterFunc registered and was not stopped. A
	// stopped function is removed, so that a handler deriving a context
	// from its connection's for every message does not grow it.
	after []*afterFunc
}

// afterFunc is one function registered with a connCtx's AfterFunc, its
// address the registration's identity.
type afterFunc struct{ f func() }

// closedDone is the Done channel of a connCtx cancelled before anyone
// asked for one.
var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Deadline reports no deadline: a connection's context has none.
func (connCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// Value returns nil: a connection's context carries no values.
func (connCtx) Value(any) any { return nil }

// Done returns a channel closed when the connection's context is
// cancelled.
func (c connCtx) Done() <-chan struct{} {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		s.done = make(chan struct{})
	}
	return s.done
}

// Err returns context.Canceled once the context is cancelled, else nil.
func (c connCtx) Err() error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.s.cancelled {
		return context.Canceled
	}
	return nil
}

// String names the context, for debugging.
func (connCtx) String() string { return "transport connection context" }

// AfterFunc arranges to call f once the context is cancelled, on the
// goroutine that cancels it (on a goroutine of its own if it already is).
// stop unregisters f and reports whether it did so before f was called.
// context.AfterFunc and context.WithCancel register through it instead
// of a map of children; each then runs the caller's function on a
// goroutine of its own, as for any context.
func (c connCtx) AfterFunc(f func()) (stop func() bool) {
	s := c.s
	s.mu.Lock()
	if s.cancelled {
		s.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	a := &afterFunc{f}
	s.after = append(s.after, a)
	s.mu.Unlock()
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, b := range s.after {
			if b == a {
				last := len(s.after) - 1
				s.after[i], s.after[last] = s.after[last], nil
				s.after = s.after[:last]
				return true
			}
		}
		return false
	}
}

// cancel cancels the context, once, and calls the functions registered
// with AfterFunc.
func (s *ctxState) cancel() {
	s.mu.Lock()
	if s.cancelled {
		s.mu.Unlock()
		return
	}
	s.cancelled = true
	if s.done == nil {
		s.done = closedDone
	} else {
		close(s.done)
	}
	after := s.after
	s.after = nil
	s.mu.Unlock()
	for _, a := range after {
		a.f()
	}
}
