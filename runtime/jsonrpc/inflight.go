package jsonrpc

// inflightSet holds the peer requests being handled, by id text. The
// first sits in a field, so that a peer sending one request at a time (and
// an idle connection after its handshake) holds no map; a map is made
// when a second is in flight, and kept then: a connection that has had
// concurrent requests will likely have them again.
// The Conn's mu guards it.
type inflightSet struct {
	one  *incoming            // a request in flight, or nil
	more map[string]*incoming // the others, or nil
}

// get returns the request in flight with id text raw, or nil.
func (s *inflightSet) get(raw string) *incoming {
	if s.one != nil && s.one.req.ID.raw == raw {
		return s.one
	}
	return s.more[raw]
}

// put adds in, whose id no request in flight has.
func (s *inflightSet) put(in *incoming) {
	if s.one == nil {
		s.one = in
		return
	}
	if s.more == nil {
		s.more = make(map[string]*incoming)
	}
	s.more[in.req.ID.raw] = in
}

// remove removes in if it is in flight.
func (s *inflightSet) remove(in *incoming) {
	raw := in.req.ID.raw
	switch {
	case s.one == in:
		s.one = nil
	case s.more[raw] == in:
		delete(s.more, raw)
	}
}

// len returns how many requests are in flight.
func (s *inflightSet) len() int {
	n := len(s.more)
	if s.one != nil {
		n++
	}
	return n
}

// cancelInflight cancels the context of every peer request in flight: the
// connection ended, or Options.BaseContext was cancelled.
func (c *Conn) cancelInflight() {
	c.mu.Lock()
	var all []*incoming
	if c.inflight.one != nil {
		all = append(all, c.inflight.one)
	}
	for _, in := range c.inflight.more {
		all = append(all, in)
	}
	c.mu.Unlock()
	for _, in := range all {
		in.cancel()
	}
}
