package jsonrpc

import (
	"context"
	"sync"
)

// noteOrder lets a request wait for the notifications read before it
// ([Options.OrderRequestsAfterNotifications]).
type noteOrder struct {
	read uint64 // notifications queued; only the read loop uses it

	mu      sync.Mutex
	handled uint64        // notifications handled
	wake    chan struct{} // closed when handled grows; nil while no request waits
}

// queued counts one more notification read and returns the count.
func (o *noteOrder) queued() uint64 {
	o.read++
	return o.read
}

// handledOne counts one more notification handled and wakes the waiters.
func (o *noteOrder) handledOne() {
	o.mu.Lock()
	o.handled++
	if o.wake != nil {
		close(o.wake)
		o.wake = nil
	}
	o.mu.Unlock()
}

// await waits until n notifications have been handled. It returns ctx's
// error when ctx ends first, and ErrClosed when done is closed first.
func (o *noteOrder) await(ctx context.Context, n uint64, done <-chan struct{}) error {
	for {
		select {
		case <-done:
			return ErrClosed
		default:
		}
		o.mu.Lock()
		if o.handled >= n {
			o.mu.Unlock()
			return nil
		}
		if o.wake == nil {
			o.wake = make(chan struct{})
		}
		wake := o.wake
		o.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			select {
			case <-done:
				return ErrClosed
			default:
			}
			return ctx.Err()
		case <-done:
			return ErrClosed
		}
	}
}
