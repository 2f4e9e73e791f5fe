package streamhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Session is one client's session on a [Handler]: the stream a
// jsonrpc.Conn reads the client's messages from and writes its own to, as
// newline-delimited JSON. Reads return the bodies of the client's POSTs,
// one line each; writes are routed to the HTTP responses the client is
// waiting on: an answer to the POST that carried its request, a message a
// request handler sends to that request's event stream, anything else to
// the stream the client opened with GET. A Conn over a Session learns
// which request each message belongs to through [jsonrpc.RelatedWriter].
//
// Read is for one reader at a time and Write for one writer at a time
// (as a jsonrpc.Conn uses them); the other methods are safe for
// concurrent use.
type Session struct {
	h       *Handler
	id      string   // "" in stateless mode
	idValue []string // the session header's value: id

	lines chan []byte   // POST bodies handed to Read, one line each
	rbuf  []byte        // the rest of the line Read is returning
	done  chan struct{} // closed when the session ends
	// closed is closed when Close has been called (by the Conn, at its end).
	closed    chan struct{}
	closeOnce sync.Once
	wbuf      []byte // a partial line written through Write

	mu      sync.Mutex
	ended   bool
	version string // the revision negotiated by the handshake, or ""
	streams map[uint64]*stream
	// byRequest maps the id text of each client request awaiting its
	// answer to the stream that carries it.
	byRequest map[string]*stream
	nextID    uint64   // the id of the next request stream
	store     []*event // every stored event, oldest first
	bytes     int      // bytes of data in store
	released  int      // events in store whose data was released
	active    int      // HTTP requests being served and requests awaiting answers
	serving   int      // HTTP requests being served
	failed    bool     // the handshake was answered with an error
	lastUsed  time.Time
	idle      *time.Timer // ends the session after IdleTimeout without activity
}

// stream is one logical stream of events within a session: the answer to
// one POST (id 1, 2, ...), or the stream of messages unrelated to any
// request (id 0), which the client reads with GET. A stream outlives the
// HTTP responses that carry it: a client whose connection drops resumes
// it with GET and Last-Event-ID.
type stream struct {
	id        uint64
	json      bool     // answered with one application/json body, no events
	batch     bool     // carries the answer to a batch
	handshake bool     // carries the answer to the handshake
	undecided bool     // its POST's response awaits its first message (AnswerWait)
	pending   []string // id texts of the requests still unanswered
	answer    []byte   // the answer, for a JSON stream or one answered first
	next      uint64   // the sequence number of the next event (from 1)
	events    []*event // stored events, oldest first
	evicted   uint64   // the highest sequence number evicted from the store
	written   uint64   // the highest sequence number written to a client
	attached  bool     // an HTTP response is serving the stream
	owner     uint64   // counts the responses that have served the stream
	closeGen  uint64   // incremented by CloseStream
	closeAt   uint64   // the last event stored when CloseStream was called
	retry     time.Duration
	wake      chan struct{} // signalled when the stream changes

	one   [1]string // pending's room for a single request
	carve eventChunks
}

// event is one message stored for a stream.
type event struct {
	stream   *stream
	seq      uint64
	data     []byte
	released bool // its stream was delivered whole; data is gone
}

// complete reports whether every request of a request stream is answered.
func (st *stream) complete() bool { return st.id != 0 && len(st.pending) == 0 }

// signal wakes the HTTP response serving st, if any.
func (st *stream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

func newSession(h *Handler, id string) *Session {
	s := &Session{
		h:         h,
		id:        id,
		idValue:   []string{id},
		lines:     make(chan []byte),
		done:      make(chan struct{}),
		closed:    make(chan struct{}),
		streams:   make(map[uint64]*stream),
		byRequest: make(map[string]*stream),
		nextID:    1,
		lastUsed:  time.Now(),
	}
	return s
}

// ID returns the session id, or "" in stateless mode.
func (s *Session) ID() string { return s.id }

// Read reads the client's messages, one line of JSON per message (a batch
// is one line), and returns io.EOF once the session has ended.
func (s *Session) Read(p []byte) (int, error) {
	if len(s.rbuf) == 0 {
		select {
		case line := <-s.lines:
			s.rbuf = line
		case <-s.done:
			return 0, io.EOF
		}
	}
	n := copy(p, s.rbuf)
	s.rbuf = s.rbuf[n:]
	return n, nil
}

// tryDeliver hands one line to Read if Read is waiting for one, and
// reports whether it did.
func (s *Session) tryDeliver(line []byte) bool {
	select {
	case s.lines <- line:
		return true
	default:
		return false
	}
}

// deliver hands one line to Read. It reports false when the session ended
// or stop closed first.
func (s *Session) deliver(line []byte, stop <-chan struct{}) bool {
	select {
	case s.lines <- line:
		return true
	case <-s.done:
		return false
	case <-stop:
		return false
	}
}

// Write takes newline-delimited JSON messages and routes each complete
// line as [Session.WriteRelated] does with no related request.
func (s *Session) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if int64(len(s.wbuf)+len(p)) > s.h.opts.MaxBodyBytes {
				s.wbuf = s.wbuf[:0]
				return n, errors.New("streamhttp: a message written to the session is too long")
			}
			s.wbuf = append(s.wbuf, p...)
			break
		}
		line := p[:i]
		if len(s.wbuf) > 0 {
			line = append(s.wbuf, line...)
			s.wbuf = s.wbuf[:0]
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if err := s.WriteRelated(line, jsonrpc.ID{}); err != nil {
				return n, err
			}
		}
		p = p[i+1:]
	}
	return n, nil
}

// WriteRelated routes one message (see [jsonrpc.RelatedWriter]): an
// answer to the stream of the request it answers, a message related to a
// request to that request's event stream while it is unanswered, anything
// else to the GET stream. It copies msg and never blocks on a client; a
// message for a client that does not read is kept in the session's event
// store, within ServerOptions.MaxEventBytes. Messages written after the
// session ended are dropped.
func (s *Session) WriteRelated(msg []byte, related jsonrpc.ID) error {
	msg = bytes.TrimSpace(msg)
	var m outMessage
	if len(msg) > 0 {
		ok := jsonscan.Valid(msg)
		if ok && msg[0] != '[' {
			var err error
			m, err = readOutMessage(msg)
			ok = err == nil
		}
		if !ok {
			s.h.log.Warn("streamhttp: dropped an outgoing message that is not JSON", "message", jsonrpc.Truncate(string(msg)))
			return nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.ended:
		return nil
	case len(msg) == 0:
		if !related.IsZero() {
			s.unanswered(related.String())
		}
		return nil
	case msg[0] == '[':
		s.routeBatchAnswer(msg)
		return nil
	case !m.Method && !m.ID.IsZero(): // an answer
		st := s.byRequest[m.ID.String()]
		if st == nil && m.ID.IsNull() {
			st = s.oldestBatch()
		}
		if st == nil {
			s.h.log.Debug("streamhttp: dropped an answer no client waits for", "id", jsonrpc.Truncate(m.ID.String()))
			return nil
		}
		s.answered(st, []string{m.ID.String()}, msg)
		return nil
	}
	var st *stream
	if !related.IsZero() {
		if rs := s.byRequest[related.String()]; rs != nil && !rs.json {
			st = rs
		}
	}
	if st == nil {
		if s.id == "" {
			// Stateless: no client can ever read the GET stream.
			s.h.log.Debug("streamhttp: dropped a message unrelated to the request (stateless)", "message", jsonrpc.Truncate(string(msg)))
			return nil
		}
		st = s.standalone()
	}
	s.appendEvent(st, msg)
	return nil
}

// unanswered forgets a request the connection will not answer (its
// client cancelled it): its stream ends without an answer. s.mu is held.
func (s *Session) unanswered(id string) {
	st := s.byRequest[id]
	if st == nil {
		return
	}
	delete(s.byRequest, id)
	s.active--
	st.pending = slices.DeleteFunc(st.pending, func(p string) bool { return p == id })
	if st.complete() && !st.attached && (st.json || len(st.events) == 0) {
		delete(s.streams, st.id)
	}
	st.signal()
	s.touch()
}

// routeBatchAnswer routes the answer to a batch to the stream of the
// batch holding the first id it answers.
func (s *Session) routeBatchAnswer(msg []byte) {
	var answers []struct {
		ID *jsonrpc.ID `json:"id"`
	}
	if err := json.Unmarshal(msg, &answers); err != nil || len(answers) == 0 {
		s.h.log.Warn("streamhttp: dropped an outgoing batch", "message", jsonrpc.Truncate(string(msg)))
		return
	}
	var st *stream
	for _, a := range answers {
		if a.ID != nil && st == nil {
			st = s.byRequest[a.ID.String()]
		}
	}
	if st == nil {
		st = s.oldestBatch()
	}
	if st == nil {
		s.h.log.Debug("streamhttp: dropped a batch answer no client waits for")
		return
	}
	s.answered(st, st.pending, msg)
}

// oldestBatch returns the oldest stream waiting for a batch's answer, or
// nil: an error answering a whole batch (one the connection refuses)
// has the id null.
func (s *Session) oldestBatch() *stream {
	var oldest *stream
	for _, st := range s.streams {
		if st.batch && len(st.pending) > 0 && (oldest == nil || st.id < oldest.id) {
			oldest = st
		}
	}
	return oldest
}

// answered records the answer msg to the requests ids of st and delivers
// it. s.mu is held.
func (s *Session) answered(st *stream, ids []string, msg []byte) {
	var room [1]string // ids may be st.pending, which the loop changes
	for _, id := range append(room[:0], ids...) {
		if s.byRequest[id] == st {
			delete(s.byRequest, id)
			s.active--
		}
		for i, p := range st.pending {
			if p == id {
				st.pending = append(st.pending[:i], st.pending[i+1:]...)
				break
			}
		}
	}
	if st.batch {
		for _, id := range st.pending {
			if s.byRequest[id] == st {
				delete(s.byRequest, id)
				s.active--
			}
		}
		st.pending = nil
	}
	if st.handshake {
		s.noteHandshake(msg)
	}
	if st.json || (st.undecided && st.next == 1) {
		// The answer came first: it goes as one application/json body.
		st.answer = append([]byte(nil), msg...)
		st.signal()
		if st.complete() && !st.attached {
			delete(s.streams, st.id)
		}
	} else {
		s.appendEvent(st, msg)
	}
	s.touch()
}

// appendEvent stores msg as st's next event, evicting the oldest events
// of the session beyond MaxEventBytes, and wakes st's response. s.mu is
// held.
func (s *Session) appendEvent(st *stream, msg []byte) {
	data := st.carve.copy(msg)
	if bytes.ContainsAny(msg, "\r\n") {
		// A line end would split the event's data: whitespace between
		// tokens is the only place it can be in valid JSON.
		var b bytes.Buffer
		if json.Compact(&b, msg) == nil {
			data = b.Bytes()
		} else { // not JSON: keep the event whole all the same
			for i, c := range data {
				if c == '\r' || c == '\n' {
					data[i] = ' '
				}
			}
		}
	}
	e := st.carve.event()
	*e = event{stream: st, seq: st.next, data: data}
	st.next++
	st.events = append(st.events, e)
	s.store = append(s.store, e)
	s.bytes += len(e.data)
	for s.bytes > s.h.opts.MaxEventBytes && len(s.store) > 1 {
		old := s.store[0]
		s.store[0] = nil
		s.store = s.store[1:]
		if old.released {
			s.released--
			continue
		}
		s.bytes -= len(old.data)
		ost := old.stream
		ost.events[0] = nil
		ost.events = ost.events[1:]
		ost.evicted = old.seq
		if len(ost.events) == 0 {
			ost.carve = eventChunks{} // no chunk outlives the stream's events
			if ost.complete() && !ost.attached {
				delete(s.streams, ost.id)
			}
		}
	}
	st.signal()
}

// release forgets the events of a request stream whose answer has been
// written to its client: nobody needs them any more, short of a
// connection lost with the answer in its buffers. s.mu is held.
func (s *Session) release(st *stream) {
	for _, e := range st.events {
		s.bytes -= len(e.data)
		e.data, e.released = nil, true
	}
	s.released += len(st.events)
	st.events, st.carve = nil, eventChunks{}
	if s.released > len(s.store)/2 {
		s.store = slices.DeleteFunc(s.store, func(e *event) bool { return e.released })
		s.released = 0
	}
}

// Close ends the session (see [Session.End]) and records that its
// connection is done with it; a jsonrpc.Conn calls it when it ends.
func (s *Session) Close() error {
	s.End()
	s.closeOnce.Do(func() {
		close(s.closed)
		s.h.closed(s)
	})
	return nil
}

// End ends the session: its id is forgotten (requests bearing it get 404),
// Read returns io.EOF, and the responses serving its streams end.
func (s *Session) End() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	if s.idle != nil {
		s.idle.Stop()
	}
	s.store, s.bytes = nil, 0
	s.mu.Unlock()
	close(s.done)
	s.h.forget(s)
}

// Ended returns a channel closed when the session has ended: what is
// written to it then reaches no client, so a jsonrpc.Conn cancels the
// handlers still running at once (see jsonrpc.Options.FinishTimeout).
func (s *Session) Ended() <-chan struct{} { return s.done }

// touch records activity, stopping or restarting the idle timer as the
// session becomes busy or idle. s.mu is held.
func (s *Session) touch() {
	s.lastUsed = time.Now()
	if s.idle == nil || s.ended {
		return
	}
	if s.active == 0 {
		s.idle.Reset(s.h.opts.IdleTimeout)
	} else {
		s.idle.Stop()
	}
}

// begin and finish count an HTTP request being served, which keeps the
// session from expiring. begin reports false when the session serves
// MaxStreams requests already.
func (s *Session) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.serving >= s.h.opts.MaxStreams {
		return false
	}
	s.serving++
	s.active++
	s.touch()
	return true
}

func (s *Session) finish() {
	s.mu.Lock()
	s.serving--
	s.active--
	s.touch()
	s.mu.Unlock()
}

// expire ends the session if it is still idle.
func (s *Session) expire() {
	s.mu.Lock()
	idle := s.active == 0 && !s.ended && time.Since(s.lastUsed) >= s.h.opts.IdleTimeout
	s.mu.Unlock()
	if idle {
		s.h.log.Debug("streamhttp: idle session expired", "session", s.id)
		s.End()
	}
}
