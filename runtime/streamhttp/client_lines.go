package streamhttp

import "github.com/rpcgen/rpcgen/runtime/internal/freelist"

const (
	// spareLines is how many lines Read has finished with a client
	// stream keeps for the next messages; maxSpareLine is the largest
	// capacity kept, so that a stream holds little between messages.
	spareLines   = 16
	maxSpareLine = 1 << 10
)

// lineList holds lines Read has finished with, for take to copy the next
// messages into: a stream of small messages (progress notifications)
// then allocates no line per message. The zero lineList is empty.
type lineList struct{ freelist.List }

// get returns a spare line of n bytes, or a new one.
func (l *lineList) get(n int) []byte {
	if b := l.Get(n); b != nil {
		return b
	}
	return make([]byte, n)
}

// put keeps line, which nothing reads or writes any more, unless it is
// large or the list is full.
func (l *lineList) put(line []byte) {
	if cap(line) <= maxSpareLine {
		l.Put(line, spareLines)
	}
}
