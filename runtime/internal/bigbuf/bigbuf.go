// Package bigbuf pools byte buffers of 64 KiB and more, shared by the
// runtime's readers (message frames) and writers (encoded messages).
//
// A connection then holds no large buffer between messages, while a
// process exchanging large messages reuses their memory. The pools are
// sync.Pools, which drop what they hold when it has not been used for
// two garbage collections, so a process that stops exchanging large
// messages gives their memory back.
//
// A buffer is put back only by the code that got or made it, once
// nothing else reads or writes it; a buffer taken from the pool holds old
// bytes, which its new owner overwrites.
package bigbuf

import (
	"math/bits"
	"sync"
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

// holder carries a buffer through a pool without the allocation putting
// a slice in an interface takes.
type holder struct{ b []byte }

var (
	pools   [classes]sync.Pool
	holders = sync.Pool{New: func() any { return new(holder) }}
)

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
	first := classFor(n)
	if first < 0 {
		return nil
	}
	for k := first; k < min(first+2, classes); k++ {
		if h, _ := pools[k].Get().(*holder); h != nil {
			b := h.b[:n]
			h.b = nil
			holders.Put(h)
			return b
		}
	}
	return nil
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
// pool.
func Put(b []byte) {
	k := classOf(cap(b))
	if k < 0 || k >= classes {
		return
	}
	h := holders.Get().(*holder)
	h.b = b[:0]
	pools[k].Put(h)
}
