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
	// MinSize is the smallest capacity pooled, the size of class 0.
	MinSize = 1 << minShift
	// minShift is log2 of MinSize.
	minShift = 16
	// classes is the number of size classes: class k holds buffers with a
	// capacity of at least MinSize << k and less than twice that. Buffers
	// of 128 MiB and more are not pooled.
	classes = 11
)

// holder carries a buffer through a pool without the allocation putting
// a slice in an interface takes.
type holder struct{ b []byte }

var (
	pools   [classes]sync.Pool
	holders = sync.Pool{New: func() any { return new(holder) }}
)

// class returns the size class of a buffer of capacity c: negative below
// MinSize.
func class(c int) int { return bits.Len(uint(c)) - 1 - minShift }

// Get returns a pooled buffer resized to n bytes (its capacity may be
// larger), or nil when none of at least n bytes is at hand or n is below
// MinSize. It never allocates a buffer.
func Get(n int) []byte {
	first := class(n)
	if first < 0 {
		return nil
	}
	// Buffers of n's class may be smaller than n; those of the next class
	// are all larger.
	for k := first; k < min(first+2, classes); k++ {
		h, _ := pools[k].Get().(*holder)
		if h == nil {
			continue
		}
		if b := h.b; cap(b) >= n {
			h.b = nil
			holders.Put(h)
			return b[:n]
		}
		pools[k].Put(h) // still good for a shorter message
	}
	return nil
}

// Make returns a buffer of n bytes, pooled if one is at hand.
func Make(n int) []byte {
	if b := Get(n); b != nil {
		return b
	}
	return make([]byte, n)
}

// Put pools b, which nothing else will read or write again, for a later
// Get; it drops b when its capacity is below MinSize or too large to
// pool.
func Put(b []byte) {
	k := class(cap(b))
	if k < 0 || k >= classes {
		return
	}
	h := holders.Get().(*holder)
	h.b = b[:0]
	pools[k].Put(h)
}
