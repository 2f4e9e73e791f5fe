package streamhttp

const (
	// firstChunkEvents and maxChunkEvents bound how many events a
	// stream allocates at once: the first chunk is small, for the
	// many streams that carry one event; later ones double.
	firstChunkEvents = 4
	maxChunkEvents   = 32
	// firstChunkBytes and maxChunkBytes do the same for the bytes of
	// the events' data; a message larger than maxChunkBytes/4 gets an
	// allocation of its own.
	firstChunkBytes = 512
	maxChunkBytes   = 4 << 10
)

// eventChunks carves a stream's events and copies of their data out of
// chunks, so that a stream of many small events (progress notifications
// during a long call, say) allocates a few times rather than twice per
// event. Chunks are per stream because a stream's events go together:
// they are released at once when its answer is delivered and evicted
// oldest first, so a chunk outlives the stream's last live event in it
// by at most the chunk, and one stream's events never keep another's
// memory. Guarded by Session.mu.
type eventChunks struct {
	events []event // free events, zeroed
	data   []byte  // room for data: len 0, cap what is left
	nev    int     // the size of the last event chunk
	ndata  int     // the size of the last data chunk
}

// event returns a zeroed event.
func (c *eventChunks) event() *event {
	if len(c.events) == 0 {
		c.nev = min(max(2*c.nev, firstChunkEvents), maxChunkEvents)
		c.events = make([]event, c.nev)
	}
	e := &c.events[0]
	c.events = c.events[1:]
	return e
}

// copy returns a copy of msg, its capacity its length so that nothing
// appended to it reaches another event's data.
func (c *eventChunks) copy(msg []byte) []byte {
	n := len(msg)
	if n > maxChunkBytes/4 {
		return append([]byte(nil), msg...)
	}
	if cap(c.data) < n {
		c.ndata = min(max(2*c.ndata, firstChunkBytes), maxChunkBytes)
		c.data = make([]byte, 0, c.ndata)
	}
	b := append(c.data, msg...)
	c.data = b[n:n:cap(b)]
	return b[:n:n]
}
