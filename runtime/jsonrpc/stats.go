package jsonrpc

import (
	"encoding/json"
	"sync"
	"sync/atomic"
)

// Stats is a snapshot of the traffic of one connection ([Conn.Stats]) or
// of every connection sharing a [Metrics] ([Metrics.Snapshot]). Counters
// only grow; gauges say how things stand at the time of the snapshot.
// Bytes are those of the messages, not counting the framing's headers or
// delimiters, and a batch counts as one message.
type Stats struct {
	// Connections is the number of open connections (gauge): 1 or 0 for
	// a single connection.
	Connections int64 `json:"connections"`
	// CallsInFlight is the number of our calls awaiting an answer (gauge).
	CallsInFlight int64 `json:"calls_in_flight"`
	// RequestsInFlight is the number of peer requests read and not yet
	// answered, queued or being handled (gauge).
	RequestsInFlight int64 `json:"requests_in_flight"`
	// QueuedIncoming is the number of incoming requests and notifications
	// waiting for a handler (gauge).
	QueuedIncoming int64 `json:"queued_incoming"`
	// QueuedOutgoing is the number of messages waiting to be written
	// (gauge).
	QueuedOutgoing int64 `json:"queued_outgoing"`

	// RequestsHandled counts the peer requests whose handler returned.
	RequestsHandled int64 `json:"requests_handled"`
	// NotificationsHandled counts the peer notifications whose handler
	// returned.
	NotificationsHandled int64 `json:"notifications_handled"`
	// ErrorsSent counts the error responses we sent, by code; nil when
	// there were none. The first [MaxStatsCodes] codes seen are told
	// apart; errors of further codes are counted in ErrorsSentOther.
	ErrorsSent map[int64]int64 `json:"errors_sent"`
	// ErrorsSentOther counts error responses sent whose code did not fit
	// in ErrorsSent.
	ErrorsSentOther int64 `json:"errors_sent_other"`
	// ErrorsReceived counts the error responses the peer sent, by code,
	// like ErrorsSent, including those to cancelled calls and those with
	// id null.
	ErrorsReceived map[int64]int64 `json:"errors_received"`
	// ErrorsReceivedOther counts error responses received whose code did
	// not fit in ErrorsReceived.
	ErrorsReceivedOther int64 `json:"errors_received_other"`
	// Timeouts counts our calls that ran out their default timeout
	// ([Options.Timeout]).
	Timeouts int64 `json:"timeouts"`
	// CancelsSent counts the cancellation notifications we sent (see
	// [Options.Cancellation]).
	CancelsSent int64 `json:"cancels_sent"`
	// CancelsReceived counts the cancellation notifications the peer sent.
	CancelsReceived int64 `json:"cancels_received"`
	// BytesIn and BytesOut count the bytes of the messages read and
	// written.
	BytesIn  int64 `json:"bytes_in"`
	BytesOut int64 `json:"bytes_out"`
	// MessagesIn and MessagesOut count the messages read and written.
	MessagesIn  int64 `json:"messages_in"`
	MessagesOut int64 `json:"messages_out"`
}

// MaxStatsCodes is how many distinct error codes a [Stats] tells apart in
// each direction, so that a peer sending errors of ever new codes cannot
// make the counters grow.
const MaxStatsCodes = 32

// Metrics aggregates the [Stats] of every connection given it in
// [Options.Metrics], such as all the connections of a server: set the
// same *Metrics in the Options of each (a [Redialer] does so for every
// connection it dials). It is safe for concurrent use, and it is an
// [expvar.Var], so expvar.Publish("rpc", m) serves its snapshot as JSON.
// The zero value is ready to use; a Metrics must not be copied after
// first use.
//
// Counting costs each connection a few atomic additions per message;
// gauges are summed over the open connections when a snapshot is taken.
type Metrics struct {
	totals counters

	mu   sync.Mutex
	live map[*Conn]struct{} // open connections, for the gauges
}

// Snapshot returns the counters of every connection that used m, and the
// gauges of those still open.
func (m *Metrics) Snapshot() Stats {
	s := m.totals.snapshot()
	m.mu.Lock()
	defer m.mu.Unlock()
	for c := range m.live {
		c.addGauges(&s)
	}
	return s
}

// String returns the snapshot as a JSON object, for expvar.
func (m *Metrics) String() string {
	b, err := json.Marshal(m.Snapshot())
	if err != nil { // cannot happen: Stats holds numbers only
		return "{}"
	}
	return string(b)
}

// attach counts c into m; a nil m counts nothing.
func (m *Metrics) attach(c *Conn) {
	if m == nil {
		return
	}
	c.stats.parent = &m.totals
	m.mu.Lock()
	if m.live == nil {
		m.live = make(map[*Conn]struct{})
	}
	m.live[c] = struct{}{}
	m.mu.Unlock()
}

// detach stops counting the gauges of c, which has ended.
func (m *Metrics) detach(c *Conn) {
	if m == nil {
		return
	}
	m.mu.Lock()
	delete(m.live, c)
	m.mu.Unlock()
}

// Stats returns a snapshot of the connection's counters and gauges.
func (c *Conn) Stats() Stats {
	s := c.stats.snapshot()
	c.addGauges(&s)
	return s
}

// addGauges adds the connection's gauges to s.
func (c *Conn) addGauges(s *Stats) {
	c.mu.Lock()
	open := c.err == nil
	s.CallsInFlight += int64(len(c.pending))
	s.RequestsInFlight += int64(c.inflight.len())
	c.mu.Unlock()
	if open {
		s.Connections++
	}
	s.QueuedIncoming += int64(c.requests.len() + c.notifications.len())
	s.QueuedOutgoing += int64(c.out.len())
}

// frameIn counts and traces a frame read, before it is handled.
func (c *Conn) frameIn(frame []byte) {
	if c.opts.Trace != nil {
		c.opts.Trace(Received, frame)
	}
	c.stats.add(statBytesIn, int64(len(frame)))
	c.stats.add(statMessagesIn, 1)
}

// frameOut counts and traces a frame about to be written: before the write,
// so that the peer never sees a message not yet counted.
func (c *Conn) frameOut(frame []byte) {
	if c.opts.Trace != nil {
		c.opts.Trace(Sent, frame)
	}
	c.stats.add(statBytesOut, int64(len(frame)))
	c.stats.add(statMessagesOut, 1)
}

// errorResponse encodes an error response to id and counts it as sent.
func (c *Conn) errorResponse(id ID, e *Error) []byte {
	c.stats.errorSent(e.Code)
	return appendError(nil, id, e)
}

// stat names one counter of a [counters]. Those the read loop, the write
// loop and the handlers update sit on different cache lines.
type stat uint8

const (
	statBytesIn         stat = 0 // read loop
	statMessagesIn      stat = 1
	statCancelsReceived stat = 2

	statBytesOut    stat = 8 // write loop
	statMessagesOut stat = 9

	statRequestsHandled      stat = 16 // handlers and callers
	statNotificationsHandled stat = 17
	statTimeouts             stat = 18
	statCancelsSent          stat = 19

	numStats = 24
)

// counters are the counters of a connection or of a Metrics. Each
// addition to a connection's counters is also made to its parent, the
// Metrics it is counted in, if any.
type counters struct {
	v      [numStats]atomic.Int64
	parent *counters
	// errs counts errors by code; nil until the first error, since most
	// connections see none.
	errs atomic.Pointer[errorCounts]
}

// errorCounts are the error counts by code of a counters.
type errorCounts struct{ sent, received codeCounts }

// errors returns s's error counts, allocating them on first use.
func (s *counters) errors() *errorCounts {
	if e := s.errs.Load(); e != nil {
		return e
	}
	s.errs.CompareAndSwap(nil, new(errorCounts))
	return s.errs.Load()
}

// add adds n to counter i.
func (s *counters) add(i stat, n int64) {
	s.v[i].Add(n)
	if p := s.parent; p != nil {
		p.v[i].Add(n)
	}
}

// errorSent counts an error response of the given code that we sent.
func (s *counters) errorSent(code int64) {
	s.errors().sent.add(code)
	if p := s.parent; p != nil {
		p.errors().sent.add(code)
	}
}

// errorReceived counts an error response of the given code from the peer.
func (s *counters) errorReceived(code int64) {
	s.errors().received.add(code)
	if p := s.parent; p != nil {
		p.errors().received.add(code)
	}
}

// snapshot returns the counters as a Stats with no gauges.
func (s *counters) snapshot() Stats {
	st := Stats{
		RequestsHandled:      s.v[statRequestsHandled].Load(),
		NotificationsHandled: s.v[statNotificationsHandled].Load(),
		Timeouts:             s.v[statTimeouts].Load(),
		CancelsSent:          s.v[statCancelsSent].Load(),
		CancelsReceived:      s.v[statCancelsReceived].Load(),
		BytesIn:              s.v[statBytesIn].Load(),
		BytesOut:             s.v[statBytesOut].Load(),
		MessagesIn:           s.v[statMessagesIn].Load(),
		MessagesOut:          s.v[statMessagesOut].Load(),
	}
	if e := s.errs.Load(); e != nil {
		st.ErrorsSent, st.ErrorsSentOther = e.sent.snapshot()
		st.ErrorsReceived, st.ErrorsReceivedOther = e.received.snapshot()
	}
	return st
}

// codeCounts counts errors by code, for up to MaxStatsCodes codes. Counting
// a code already seen takes no lock.
type codeCounts struct {
	n      atomic.Int32                // slots in use; publishes codes[:n]
	codes  [MaxStatsCodes]int64        // written under mu before n grows
	counts [MaxStatsCodes]atomic.Int64 // the count of codes[i]
	other  atomic.Int64                // errors of codes that did not fit
	mu     sync.Mutex                  // serializes taking a slot
}

// add counts one error of the given code.
func (t *codeCounts) add(code int64) {
	if t.bump(code, int(t.n.Load())) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	n := int(t.n.Load())
	switch {
	case t.bump(code, n):
	case n == MaxStatsCodes:
		t.other.Add(1)
	default:
		t.codes[n] = code
		t.counts[n].Add(1)
		t.n.Store(int32(n + 1))
	}
}

// bump counts one error of code if it is among the first n codes.
func (t *codeCounts) bump(code int64, n int) bool {
	for i := range n {
		if t.codes[i] == code {
			t.counts[i].Add(1)
			return true
		}
	}
	return false
}

// snapshot returns the counts by code (nil when none) and the errors of
// codes that did not fit.
func (t *codeCounts) snapshot() (map[int64]int64, int64) {
	n := int(t.n.Load())
	if n == 0 {
		return nil, t.other.Load()
	}
	m := make(map[int64]int64, n)
	for i := range n {
		m[t.codes[i]] = t.counts[i].Load()
	}
	return m, t.other.Load()
}
