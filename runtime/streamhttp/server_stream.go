package streamhttp

import (
	"context"
	"errors"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// open registers a stream for the requests ids of one POST, attached to
// that POST's response. It returns nil with the HTTP status to answer
// when the session has ended (404) or a request id is already awaiting
// its answer (400). ids are copied. A lazy stream is undecided (see AnswerWait).
func (s *Session) open(ids []string, useJSON, lazy, batch, handshake bool) (*stream, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return nil, http.StatusNotFound, "session ended"
	}
	for _, id := range ids {
		if s.byRequest[id] != nil {
			return nil, http.StatusBadRequest, "Invalid Request: a request with id " + jsonrpc.Truncate(id) + " is already in flight"
		}
	}
	st := &stream{id: s.nextID, json: useJSON, undecided: lazy, batch: batch, next: 1,
		attached: true, owner: 1, handshake: handshake, wake: make(chan struct{}, 1)}
	if len(ids) == 1 {
		st.one[0] = ids[0]
		st.pending = st.one[:1:1]
	} else {
		st.pending = slices.Clone(ids)
	}
	s.nextID++
	s.streams[st.id] = st
	for _, id := range ids {
		s.byRequest[id] = st
		s.active++
	}
	s.touch()
	return st, 0, ""
}

// standalone returns the GET stream (id 0), made when first needed: a
// client may never open it, and the server may never send a message
// outside a request. s.mu is held.
func (s *Session) standalone() *stream {
	st := s.streams[0]
	if st == nil {
		st = &stream{id: 0, next: 1, wake: make(chan struct{}, 1)}
		s.streams[0] = st
	}
	return st
}

// attach claims st for a GET response, after seq, and returns the
// claim's owner number. A resumption (takeover) replaces the response
// serving the stream, which is most likely a connection that dropped
// without the server noticing yet; a fresh GET does not (409). It returns
// the HTTP status to answer when the stream is unknown or its events
// after seq are gone (400).
func (s *Session) attach(streamID, seq uint64, takeover bool) (*stream, uint64, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.streams[streamID]
	if st == nil && streamID == 0 && !s.ended {
		st = s.standalone()
	}
	switch {
	case s.ended:
		return nil, 0, http.StatusNotFound, "session ended"
	case st == nil || st.json || st.undecided || seq >= st.next:
		return nil, 0, http.StatusBadRequest, "unknown event id"
	case seq < st.evicted:
		return nil, 0, http.StatusBadRequest, "the events after this id are no longer stored"
	case st.attached && !takeover:
		return nil, 0, http.StatusConflict, "the stream is already being served"
	}
	st.attached = true
	st.owner++
	st.signal() // the response it replaces, if any, ends
	return st, st.owner, 0, ""
}

// detach releases st from the response owner serving it, unless another
// has taken it over; a finished stream with nothing stored is forgotten.
func (s *Session) detach(st *stream, owner uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !st.attached || st.owner != owner {
		return
	}
	st.attached = false
	if st.complete() && (st.json || len(st.events) == 0) {
		delete(s.streams, st.id)
	}
}

// handshakeFailed reports whether the handshake was answered with an
// error: the session it opened is then ended.
func (s *Session) handshakeFailed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Version returns the revision the handshake negotiated (read from the
// member Protocol.VersionField of its result), or "".
func (s *Session) Version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// noteHandshake reads the answer to the handshake. s.mu is held.
func (s *Session) noteHandshake(msg []byte) {
	failed, result := true, []byte(nil)
	if jsonscan.Valid(msg) {
		failed, result = handshakeFailed(msg)
	}
	if failed {
		s.failed = true
		return
	}
	if _, v, ok := resultVersion(result, s.h.proto.VersionField); ok {
		s.version = v
	}
}

// answerJSON hands line to the connection and answers with the response
// as one application/json body.
func (h *Handler) answerJSON(w http.ResponseWriter, r *http.Request, s *Session, st *stream, line []byte) {
	if !s.deliver(line, r.Context().Done()) {
		httpError(w, http.StatusNotFound, "session ended")
		return
	}
	for {
		s.mu.Lock()
		answer, complete := st.answer, st.complete()
		s.mu.Unlock()
		if answer != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(answer)
			return
		}
		if complete { // cancelled: no answer will come
			w.WriteHeader(http.StatusAccepted)
			return
		}
		select {
		case <-st.wake:
		case <-r.Context().Done():
			return
		case <-s.done:
			httpError(w, http.StatusNotFound, "session ended")
			return
		}
	}
}

// get opens the session's stream of server-initiated messages, or with
// Last-Event-ID resumes the stream that event belongs to.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	if _, streamOK := accepts(r.Header.Values("Accept")); !streamOK {
		httpError(w, http.StatusNotAcceptable, "Accept must list text/event-stream")
		return
	}
	s := h.lookup(w, r)
	if s == nil {
		return
	}
	w.Header()[h.sessionKey] = s.idValue
	var streamID, seq uint64
	last := r.Header.Get("Last-Event-ID")
	if last != "" {
		var ok bool
		if streamID, seq, ok = parseEventID(last); !ok {
			httpError(w, http.StatusBadRequest, "malformed Last-Event-ID")
			return
		}
	} else {
		// What is stored and not yet written; what was evicted is lost.
		s.mu.Lock()
		st := s.standalone()
		seq = max(st.written, st.evicted)
		s.mu.Unlock()
	}
	if !s.begin() {
		httpError(w, http.StatusTooManyRequests, "too many requests open in this session")
		return
	}
	defer s.finish()
	st, owner, status, why := s.attach(streamID, seq, last != "")
	if st == nil {
		httpError(w, status, why)
		return
	}
	defer s.detach(st, owner)
	h.serveStream(w, r, s, st, owner, seq, nil, false)
}

// formatEventID and parseEventID name an event by its stream and
// sequence number, so that a Last-Event-ID finds its stream.
func formatEventID(streamID, seq uint64) string {
	return string(appendEventID(nil, streamID, seq))
}

func appendEventID(b []byte, streamID, seq uint64) []byte {
	b = strconv.AppendUint(b, streamID, 10)
	b = append(b, '_')
	return strconv.AppendUint(b, seq, 10)
}

func parseEventID(id string) (streamID, seq uint64, ok bool) {
	a, b, found := strings.Cut(id, "_")
	if !found {
		return 0, 0, false
	}
	streamID, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	// Only the ids the server writes: no signs or leading zeros.
	return streamID, seq, err1 == nil && err2 == nil && formatEventID(streamID, seq) == id
}

// serveStream answers with st as an event stream, starting after event
// seq: first an event carrying an id and the retry delay, so that the
// client can resume even before any message; then the stored events and
// the new ones as they come. line, if not nil, is handed to the
// connection once the stream is set up. It returns when the stream is
// complete (its answer written), the client goes away or does not read
// within WriteTimeout, the session ends, CloseStream asks, or a
// resumption takes the stream over.
//
// A lazy stream (st undecided, see AnswerWait) writes nothing until the
// first message for it, CloseStream or AnswerWait: an answer that comes
// first goes as one application/json body instead, anything else starts
// the event stream.
//
// What is written is flushed before the stream waits for anything (the
// connection to take line, a message) and when it ends, so that an answer
// ready at once leaves with the first event in one write.
func (h *Handler) serveStream(w http.ResponseWriter, r *http.Request, s *Session, st *stream, owner, seq uint64, line []byte, lazy bool) {
	rc := http.NewResponseController(w)
	s.mu.Lock()
	gen := st.closeGen
	s.mu.Unlock()
	bp, _ := eventBufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b := (*bp)[:0]
	defer func() { // the writes are done with b
		if cap(b) <= maxPooledBytes {
			*bp = b[:0]
			eventBufs.Put(bp)
		}
	}()
	started := !lazy
	if started {
		streamHeaders(w)
		b = appendControl(b, st.id, seq, h.opts.Retry)
	}
	if line != nil && !s.tryDeliver(line) {
		if started {
			if !h.writeEvents(w, rc, b) {
				return
			}
			b = b[:0]
		}
		if !s.deliver(line, r.Context().Done()) {
			return
		}
	}
	var timer *time.Timer // AnswerWait while undecided, then KeepAlive
	armed, waited := false, false
	defer func() {
		if timer != nil {
			putTimer(timer)
		}
	}()
	for {
		s.mu.Lock()
		starting := false
		if !started {
			if answer := st.answer; answer != nil {
				st.answer, st.undecided = nil, false
				s.mu.Unlock()
				writeJSONAnswer(w, answer)
				return
			}
			if waited || st.closeGen != gen || len(st.events) > 0 || st.complete() {
				st.undecided = false
				started, starting = true, true
				b = appendControl(b, st.id, seq, h.opts.Retry)
			}
		}
		closing, retry := st.closeGen != gen, st.retry
		upTo := uint64(math.MaxUint64)
		if closing {
			upTo = st.closeAt // only what was stored when CloseStream was called
		}
		last, ok := seq, true
		if started {
			last, ok = s.appendEventsAfter(&b, st, seq, upTo)
		}
		complete := st.complete() && !closing
		replaced := st.owner != owner
		s.mu.Unlock()
		if replaced {
			return
		}
		if starting {
			streamHeaders(w)
			if armed { // AnswerWait's timer: KeepAlive counts from here
				timer.Stop()
				armed = false
			}
		}
		if !ok {
			h.log.Warn("streamhttp: a client read too slowly; its events were evicted", "session", s.id)
			return
		}
		if closing {
			b = appendControl(b, st.id, last, retry)
		}
		if len(b) > 0 && !h.writeEvents(w, rc, b) {
			return
		}
		b = b[:0]
		if last > seq {
			seq = last
			s.mu.Lock()
			st.written = max(st.written, seq)
			s.mu.Unlock()
		}
		if complete {
			s.mu.Lock()
			s.release(st)
			s.mu.Unlock()
			return
		}
		if closing {
			return
		}
		if !armed {
			d := h.opts.KeepAlive
			if !started {
				d = h.opts.AnswerWait
			}
			if d > 0 {
				timer, armed = resetTimer(timer, d), true
			}
		}
		var fired <-chan time.Time
		if armed {
			fired = timer.C
		}
		select {
		case <-st.wake:
		case <-fired:
			armed = false
			if started {
				b = append(b, ":\n\n"...)
			} else {
				waited = true
			}
		case <-r.Context().Done():
			return
		case <-s.done:
			if !started { // as a JSON answer would be told
				httpError(w, http.StatusNotFound, "session ended")
			}
			return
		}
	}
}

// eventBufs keeps the buffers responses build their events in (at most
// maxPooledBytes each), for the next response.
var eventBufs sync.Pool

// appendControl appends an event without a message: its id is the
// stream's position and retry the delay before the client should
// reconnect.
func appendControl(b []byte, streamID, seq uint64, retry time.Duration) []byte {
	b = append(b, "id: "...)
	b = appendEventID(b, streamID, seq)
	b = append(b, "\nretry: "...)
	b = strconv.AppendInt(b, retry.Milliseconds(), 10)
	return append(b, "\ndata: \n\n"...)
}

// appendEvent appends one SSE event carrying a message (one line of JSON).
func appendEvent(b []byte, streamID, seq uint64, data []byte) []byte {
	b = append(b, "id: "...)
	b = appendEventID(b, streamID, seq)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	return append(b, "\n\n"...)
}

// writeEvents writes b and flushes it (with whatever was written
// before) within WriteTimeout, reporting false when the client did not
// take it.
func (h *Handler) writeEvents(w http.ResponseWriter, rc *http.ResponseController, b []byte) bool {
	deadline := rc.SetWriteDeadline(time.Now().Add(h.opts.WriteTimeout)) == nil
	_, err := w.Write(b)
	if err == nil {
		err = rc.Flush()
	}
	if deadline {
		_ = rc.SetWriteDeadline(time.Time{})
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		h.log.Warn("streamhttp: a client did not read its event stream within the write timeout; dropped the connection, the events stay stored for resumption")
	}
	return err == nil
}

// ErrNoStream is returned by CloseStream when ctx does not belong to a
// request whose answer is an event stream of a [Session].
var ErrNoStream = errors.New("streamhttp: not serving a request answered with an event stream")

// CloseStream ends, from inside a request handler, the event stream that
// carries that request's answer, after an event with the stream's position
// and retry (the Handler's Retry when zero). The request goes on; the
// messages it sends and its answer are stored, and the client, which
// reconnects after retry with GET and Last-Event-ID, receives them on the
// resumed stream. It returns [ErrNoStream] when ctx is not a request
// handler's of a connection over a Session, or the request is answered as
// application/json.
func CloseStream(ctx context.Context, retry time.Duration) error {
	c := jsonrpc.ConnFromContext(ctx)
	id, ok := jsonrpc.RequestID(ctx)
	if c == nil || !ok {
		return ErrNoStream
	}
	s, ok := c.Stream().(*Session)
	if !ok {
		return ErrNoStream
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.byRequest[id.String()]
	if st == nil || st.json {
		return ErrNoStream
	}
	if retry <= 0 {
		retry = s.h.opts.Retry
	}
	st.closeGen++
	st.closeAt = st.next - 1
	st.retry = retry
	st.signal()
	return nil
}
