// Package freelist keeps a few byte slices handed back by the one who
// used them, for the next message of the same stream: a framing reader's
// frames, a Streamable HTTP client's lines.
package freelist

import "sync/atomic"

// List holds handed-back slices. Its channel moves slice headers without
// allocating and lets Put run beside Get; it is made by the first Put,
// since many lists never get a slice back. The zero List is empty.
type List struct{ bufs atomic.Pointer[chan []byte] }

// Get returns a kept slice resized to n bytes, or nil when none is big
// enough. A kept slice too small for n is dropped.
func (l *List) Get(n int) []byte {
	bufs := l.bufs.Load()
	if bufs == nil {
		return nil
	}
	select {
	case b := <-*bufs:
		if cap(b) >= n {
			return b[:n]
		}
	default:
	}
	return nil
}

// Put keeps b, which nothing reads or writes any more, for a later Get,
// unless b has no capacity or the list already holds slots slices. The
// first Put fixes slots.
func (l *List) Put(b []byte, slots int) {
	if cap(b) == 0 {
		return
	}
	bufs := l.bufs.Load()
	if bufs == nil {
		ch := make(chan []byte, slots)
		l.bufs.CompareAndSwap(nil, &ch)
		bufs = l.bufs.Load()
	}
	select {
	case *bufs <- b[:0]:
	default:
	}
}
