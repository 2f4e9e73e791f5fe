package streamhttp

import "sync/atomic"

const (
	// spareLines is how many lines Read has finished with a client
	// stream keeps for the next messages; maxSpareLine is the largest
	// capacity kept, so that a stream holds little between messages.
	spareLines   = 16
	maxSpareLine = 1 << 10
)

// lineList holds lines Read has finished with, for take to copy the next
// messages into: a stream of small messages (progress notifications)
// then allocates no line per message. Its channel is made by the first
// line handed back. The zero lineList is empty.
type lineList struct{ lines atomic.Pointer[chan []byte] }

// get returns a spare line of n bytes, or a new one.
func (l *lineList) get(n int) []byte {
	if lines := l.lines.Load(); lines != nil {
		select {
		case b := <-*lines:
			if cap(b) >= n {
				return b[:n]
			}
		default:
		}
	}
	return make([]byte, n)
}

// put keeps line, which nothing reads or writes any more, unless it is
// large or the list is full.
func (l *lineList) put(line []byte) {
	if cap(line) == 0 || cap(line) > maxSpareLine {
		return
	}
	lines := l.lines.Load()
	if lines == nil {
		ch := make(chan []byte, spareLines)
		l.lines.CompareAndSwap(nil, &ch)
		lines = l.lines.Load()
	}
	select {
	case *lines <- line[:0]:
	default:
	}
}
