// Package bigbuf pools byte buffers of 64 KiB and more, shared by the
// runtime's readers (message frames) and writers (encoded messages).
//
// A connection then holds no large buffer between messages, while a
// process exchanging large messages reuses their memory. Buffers are
// pooled by size class, a few per class (fewer for larger classes), and
// a class that goes unused for a whole sweep period (between one and two
// seconds) is emptied, so a process that stops exchanging large messages
// gives their memory back. The pool is one for the process, not per P as
// a sync.Pool is: a buffer put back by a connection's writer is found by
// the goroutine that encodes its next message, wherever each runs.
//
// A buffer is put back only by the code that got or made it, once
// nothing else reads or writes it; a buffer taken from the pool holds old
// bytes, which its new owner overwrites.
package bigbuf

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// MinSize is the smallest capacity pooled.
	MinSize = 1 << minShift
	// minShift is log2 of MinSize.
	minShift = 16
	// steps is the number of size classes between two powers of two: a
	// buffer Make allocates is at most 1/steps larger than asked.
	steps = 8
	// doublings is the number of powers of two the classes span: buffers
	// of MinSize << doublings (128 MiB) and more are not pooled.
	doublings = 11
	// classes is the number of size classes. Class k holds buffers with a
	// capacity of at least classSize(k) (and less than classSize(k+1)),
	// so any buffer of class k holds a message of classSize(k) bytes.
	classes = steps * doublings
)

// class holds the pooled buffers of one size class.
type class struct {
	mu   sync.Mutex
	bufs [][]byte // a stack, at most keep(k) long
	used bool     // a buffer was taken or put back since the last sweep
}

var pool [classes]class

// keepBytes bounds the bytes a class keeps, and maxKeep the buffers: at
// least 2 are kept whatever their size.
const (
	keepBytes = 8 << 20
	maxKeep   = 64
)

var (
	// maxPooled bounds the bytes of all classes together; tests lower it.
	maxPooled int64 = 64 << 20
	// pooled is the capacity of the buffers the pool holds, in bytes.
	pooled atomic.Int64
)

// keep returns how many buffers class k keeps.
func keep(k int) int { return min(maxKeep, max(2, keepBytes/classSize(k))) }

// classSize returns the smallest capacity of class k.
func classSize(k int) int {
	d, s := k/steps, k%steps
	return (steps + s) << (minShift + d - 3)
}

// classOf returns the class of a buffer of capacity c: the largest class
// whose size is at most c, negative below MinSize.
func classOf(c int) int {
	d := bits.Len(uint(c)) - 1 - minShift
	if d < 0 {
		return -1
	}
	return d*steps + (c >> (minShift + d - 3)) - steps
}

// classFor returns the smallest class whose buffers all hold n bytes,
// negative below MinSize.
func classFor(n int) int {
	k := classOf(n)
	if k >= 0 && classSize(k) < n {
		k++
	}
	return k
}

// Get returns a pooled buffer resized to n bytes (its capacity may be
// larger), or nil when none is at hand or n is below MinSize. It never
// allocates a buffer.
func Get(n int) []byte {
	k := classFor(n)
	if k < 0 || k >= classes {
		return nil
	}
	c := &pool[k]
	c.mu.Lock()
	var b []byte
	if top := len(c.bufs) - 1; top >= 0 {
		b, c.bufs[top], c.bufs = c.bufs[top], nil, c.bufs[:top]
		c.used = true
		pooled.Add(-int64(cap(b)))
	}
	c.mu.Unlock()
	if b == nil {
		return nil
	}
	return b[:n]
}

// Make returns a buffer of n bytes, pooled if one is at hand. A new
// buffer of MinSize bytes or more gets the capacity of its size class, so
// that once put back it serves any request of that class.
func Make(n int) []byte {
	if b := Get(n); b != nil {
		return b
	}
	if k := classFor(n); k >= 0 && k < classes {
		return make([]byte, n, classSize(k))
	}
	return make([]byte, n)
}

// Put pools b, which nothing else will read or write again, for a later
// Get; it drops b when its capacity is below MinSize or too large to
// pool, or when its class holds all it keeps.
func Put(b []byte) {
	k := classOf(cap(b))
	if k < 0 || k >= classes {
		return
	}
	c := &pool[k]
	c.mu.Lock()
	kept := len(c.bufs) < keep(k) && pooled.Add(int64(cap(b))) <= maxPooled
	if !kept && len(c.bufs) < keep(k) {
		pooled.Add(-int64(cap(b))) // over maxPooled
	}
	if kept {
		if c.bufs == nil {
			c.bufs = make([][]byte, 0, keep(k))
		}
		c.bufs = append(c.bufs, b[:0])
	}
	c.used = true
	c.mu.Unlock()
	if kept {
		startSweeping()
	}
}

// sweepEvery is the sweep period: a class untouched for a whole period
// is emptied at its end.
const sweepEvery = time.Second

var (
	// sweeping reports whether a sweep is scheduled.
	sweeping atomic.Bool
	// swept, when set (by tests), is called after each sweep.
	swept atomic.Pointer[func()]
)

// startSweeping schedules a sweep unless one is.
func startSweeping() {
	if sweeping.CompareAndSwap(false, true) {
		time.AfterFunc(sweepEvery, sweep)
	}
}

// sweepMu keeps sweeps one at a time.
var sweepMu sync.Mutex

// sweep empties the classes unused since the last sweep, and schedules
// the next one while some class still holds buffers.
func sweep() {
	sweepMu.Lock()
	defer sweepMu.Unlock()
	sweepLocked()
}

// sweepLocked is sweep with sweepMu held.
func sweepLocked() {
	sweeping.Store(false) // a Put from now on schedules a sweep itself
	held := 0
	for k := range pool {
		c := &pool[k]
		c.mu.Lock()
		if !c.used {
			c.drop()
		}
		c.used = false
		held += len(c.bufs)
		c.mu.Unlock()
	}
	if held > 0 {
		startSweeping()
	}
	if f := swept.Load(); f != nil {
		(*f)()
	}
}

// Release drops every pooled buffer at once.
func Release() {
	for k := range pool {
		c := &pool[k]
		c.mu.Lock()
		c.drop()
		c.mu.Unlock()
	}
}

// drop lets go of the buffers of c, whose mu is held.
func (c *class) drop() {
	for _, b := range c.bufs {
		pooled.Add(-int64(cap(b)))
	}
	clear(c.bufs)
	c.bufs = c.bufs[:0]
}
