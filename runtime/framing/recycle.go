package framing

import (
	"sync/atomic"

	"github.com/rpcgen/rpcgen/runtime/internal/bigbuf"
)

// Recycler is implemented by the package's Readers: a frame handed back
// with Recycle may hold a later message, so that reading it allocates
// nothing.
type Recycler interface {
	// Recycle hands back frame, a slice returned by Read that neither the
	// caller nor anything it passed the slice to will read or write again.
	// It is safe to call concurrently with Read and other Recycle calls.
	Recycle(frame []byte)
}

const (
	// freeFrames is how many handed-back frames a reader keeps.
	freeFrames = 8
	// maxFreeFrame is the largest frame capacity a reader keeps: a larger
	// frame goes to the pool shared by all readers (see package bigbuf), so a
	// reader does not hold on to the memory of a rare big message.
	maxFreeFrame = 64 << 10
)

// freeList holds frames handed back to a reader. Its channel moves slice
// headers without allocating, and lets Recycle run beside Read; it is
// made by the first Recycle, since many readers (a server's) never get a
// frame back. The zero freeList is empty.
type freeList struct{ frames atomic.Pointer[chan []byte] }

// get returns a handed-back frame resized to n bytes, or nil when none is
// big enough. A frame too small for n is dropped.
func (f *freeList) get(n int) []byte {
	frames := f.frames.Load()
	if frames == nil {
		return nil
	}
	select {
	case b := <-*frames:
		if cap(b) >= n {
			return b[:n]
		}
	default:
	}
	return nil
}

// put keeps frame for a later get, unless the list is full; a big frame
// goes to the shared pool instead.
func (f *freeList) put(frame []byte) {
	if cap(frame) > maxFreeFrame {
		bigbuf.Put(frame)
		return
	}
	if cap(frame) == 0 {
		return
	}
	frames := f.frames.Load()
	if frames == nil {
		ch := make(chan []byte, freeFrames)
		f.frames.CompareAndSwap(nil, &ch)
		frames = f.frames.Load()
	}
	select {
	case *frames <- frame:
	default:
	}
}
