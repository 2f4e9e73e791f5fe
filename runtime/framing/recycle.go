package framing

import (
	"github.com/rpcgen/rpcgen/runtime/internal/bigbuf"
	"github.com/rpcgen/rpcgen/runtime/internal/freelist"
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

// freeList holds frames handed back to a reader: a frame over
// maxFreeFrame goes to the pool shared by all readers instead.
type freeList struct{ freelist.List }

// put keeps frame for a later get, unless the list is full; a big frame
// goes to the shared pool instead.
func (f *freeList) put(frame []byte) {
	if cap(frame) > maxFreeFrame {
		bigbuf.Put(frame)
		return
	}
	f.Put(frame, freeFrames)
}
