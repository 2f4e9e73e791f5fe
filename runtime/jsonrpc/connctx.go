package jsonrpc

import (
	"context"
	"time"
)

// connContext is the connection's own context (Conn.ctx), which ends when
// the connection does: it is the Conn itself seen as a context, so it
// allocates nothing. Its Done channel is the connection's done, its
// value for connKey is the connection, and the contexts derived from it
// register through its AfterFunc method (the afterFuncer interface of
// package context) instead of a map of children or a goroutine each.
type connContext Conn

// Deadline reports no deadline.
func (x *connContext) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done returns the connection's done channel.
func (x *connContext) Done() <-chan struct{} { return x.done }

// Err returns context.Canceled once the connection has ended, else nil.
func (x *connContext) Err() error {
	select {
	case <-x.done:
		return context.Canceled
	default:
		return nil
	}
}

// Value returns the connection for connKey, else nil.
func (x *connContext) Value(key any) any {
	if key == (connKey{}) {
		return (*Conn)(x)
	}
	return nil
}

// String names the context, for debugging.
func (x *connContext) String() string { return "jsonrpc connection context" }

// AfterFunc arranges to call f once the connection has ended, on the
// goroutine that ends it (on a goroutine of its own if it already has).
// stop unregisters f and reports whether it did so before f was called.
// context.AfterFunc and the contexts derived from the connection's
// context register through it.
func (x *connContext) AfterFunc(f func()) (stop func() bool) {
	c := (*Conn)(x)
	c.mu.Lock()
	select {
	case <-c.done: // endContext has taken the list, or will find it empty
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	default:
	}
	if c.after == nil {
		c.after = &afterFuncs{fns: make(map[uint64]func())}
	}
	a := c.after
	id := a.next
	a.next++
	a.fns[id] = f
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := a.fns[id]
		delete(a.fns, id)
		return ok
	}
}

// afterFuncs are the functions registered with the connection context's
// AfterFunc and not yet stopped, by registration number (guarded by
// Conn.mu).
type afterFuncs struct {
	next uint64
	fns  map[uint64]func()
}

// connValues is the connection's context without its end (what requests'
// contexts derive from when Options.BaseContext is nil): it carries the
// connection for ConnFromContext and is never done, as
// context.WithoutCancel would make it, without an allocation.
type connValues Conn

// Deadline reports no deadline.
func (v *connValues) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done returns nil: the context is never done.
func (v *connValues) Done() <-chan struct{} { return nil }

// Err returns nil.
func (v *connValues) Err() error { return nil }

// Value returns the connection for connKey, else nil.
func (v *connValues) Value(key any) any {
	if key == (connKey{}) {
		return (*Conn)(v)
	}
	return nil
}

// String names the context, for debugging.
func (v *connValues) String() string { return "jsonrpc connection values" }

// endContexts ends the contexts of the connection, once its done channel
// is closed: it calls the functions registered with the connection
// context's AfterFunc, and cancels the handlers' context derived from
// Options.BaseContext.
func (c *Conn) endContexts() {
	c.mu.Lock()
	a := c.after
	c.after = nil
	c.mu.Unlock()
	if a != nil {
		for _, f := range a.fns {
			f()
		}
	}
	if c.release != nil {
		c.release()
	}
}
