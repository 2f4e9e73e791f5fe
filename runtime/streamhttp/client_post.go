package streamhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// post sends one message (or batch) by a goroutine that handles the
// response's status and reads its body. First it waits for the previous
// POST's response headers, so that the server gets messages in the order
// written: always after the handshake (later requests need its session
// id), else at most HeaderWait, and not at all for answers to the
// server's requests (a server answering with application/json sends its
// headers with the answer, and the answer may wait for ours). It returns
// an error only when the stream has ended.
func (s *ClientStream) post(msg []byte) error {
	cur := &inFlight{headers: make(chan struct{})}
	out := inspectOutgoing(msg, s.proto.Handshake, cur.ids[:0])
	cur.handshake = out.handshake != nil
	s.awaitPrevious(out)
	if err := s.stopped(); err != nil {
		return err
	}
	if out.handshake != nil {
		s.mu.Lock()
		s.handshakeID = out.handshake
		s.mu.Unlock()
	}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.url, bytes.NewReader(msg))
	if err != nil {
		return s.fail(fmt.Errorf("streamhttp: POST: %w", err))
	}
	withSession := s.setHeaders(req.Header, out.handshake != nil)
	req.Header["Accept"] = postAccept
	req.Header["Content-Type"] = jsonType
	s.expect(out.requests)
	if !s.reserve() {
		s.unexpect(out.requests)
		if err := s.stopped(); err != nil {
			return err
		}
		return ErrClientClosed
	}
	go func() { // one closure: the goroutine reserve counted
		defer s.wg.Done()
		defer s.unexpect(out.requests)
		s.exchange(req, withSession, out, cur.headers)
	}()
	s.prev = cur
	if len(out.requests) == 0 {
		s.mu.Lock()
		s.lastOneWay = cur
		s.mu.Unlock()
	}
	return nil
}

// postAccept is the Accept header of every POST, shared (a full slice:
// adding a value copies it).
var postAccept = []string{"application/json, text/event-stream"}[:1:1]

// inFlight is a POST whose response headers may not have arrived.
type inFlight struct {
	headers   chan struct{} // closed once they did (or the POST failed)
	handshake bool
	ids       [1]json.RawMessage // room for the id of its one request
}

// awaitPrevious waits for the headers of the previous POST as post says.
func (s *ClientStream) awaitPrevious(out outgoing) {
	p := s.prev
	if p == nil {
		return
	}
	select {
	case <-p.headers:
		return // the usual case: no timer needed
	default:
	}
	var limit <-chan time.Time
	if !p.handshake {
		if out.onlyAnswers {
			return
		}
		t := resetTimer(nil, s.opts.HeaderWait)
		defer putTimer(t)
		limit = t.C
	}
	select {
	case <-p.headers:
	case <-limit:
	case <-s.ctx.Done():
	}
}

// exchange sends req and handles its response, closing headers once the
// status and headers are handled.
func (s *ClientStream) exchange(req *http.Request, withSession bool, out outgoing, headers chan struct{}) {
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		close(headers)
		if s.ctx.Err() == nil {
			s.fail(fmt.Errorf("streamhttp: POST %s: %w", s.url, err))
		}
		return
	}
	s.noteSession(resp)
	next, err := s.postStatus(resp, withSession, out)
	if err == nil && out.notification {
		// The GET stream opens before the next message goes, so that the
		// server can use it for whatever that message leads to.
		if opened := s.maybeStartGET(); opened != nil {
			select {
			case <-opened:
			case <-s.ctx.Done():
			}
		}
	}
	close(headers)
	if err != nil {
		return
	}
	next.run(s)
}

// postRest is what remains of a POST once its status and headers are
// handled: its body to read, or something else to do. A value, so that
// the usual cases cost no closure.
type postRest struct {
	resp    *http.Response // an event stream or a JSON body to read
	json    bool           // resp's body is JSON
	pending pendingIDs
	other   func() // anything else
}

func (r postRest) run(s *ClientStream) {
	switch {
	case r.other != nil:
		r.other()
	case r.resp == nil:
	case r.json:
		s.readJSON(r.resp.Body, r.resp.ContentLength, &r.pending)
	default:
		s.runPostStream(r.resp.Body, &eventStream{kind: "POST", post: true, pending: r.pending})
	}
}

// noteSession keeps the session id of the first response that carries
// one (the handshake's answer).
func (s *ClientStream) noteSession(resp *http.Response) {
	if s.proto.SessionHeader == "" {
		return
	}
	sid := resp.Header.Get(s.proto.SessionHeader)
	if sid == "" {
		return
	}
	s.mu.Lock()
	if s.sessionID == "" {
		s.sessionID = sid
	}
	s.mu.Unlock()
}

// postStatus handles the status and headers of the response to a POST.
// It returns what remains to do (read the body, or hand Read the answers
// made up for the requests the server failed), or the error that ended
// the stream.
func (s *ClientStream) postStatus(resp *http.Response, withSession bool, out outgoing) (postRest, error) {
	if err := s.fatalStatus(http.MethodPost, resp, withSession); err != nil {
		return postRest{}, err
	}
	if resp.StatusCode >= 300 {
		e, body := newHTTPError(http.MethodPost, resp)
		resp.Body.Close()
		if len(out.requests) == 0 {
			s.log.Warn("streamhttp: the server refused a message", "error", e)
			return postRest{}, nil
		}
		return postRest{other: func() {
			for _, line := range httpErrorResponses(out.requests, e, body) {
				if !s.takeOrDrop(line, nil) {
					return
				}
			}
		}}, nil
	}
	var pending pendingIDs
	for _, id := range out.requests {
		pending.add(id)
	}
	switch mediaType(resp) {
	case "text/event-stream":
		return postRest{resp: resp, pending: pending}, nil
	case "application/json":
		return postRest{resp: resp, json: true, pending: pending}, nil
	}
	// 202 Accepted (or another body, which we do not read): the answers
	// to any requests will come on another stream.
	resp.Body.Close()
	if pending.len() > 0 && resp.StatusCode != http.StatusAccepted {
		err := fmt.Errorf("the server answered HTTP %d with content type %q", resp.StatusCode, jsonrpc.Truncate(resp.Header.Get("Content-Type")))
		owed := pending // a copy, so that pending stays on the stack
		return postRest{other: func() { s.failPending(&owed, err) }}, nil
	}
	return postRest{}, nil
}

// fatalStatus ends the stream, closing resp's body, when resp's status
// means no later request can succeed: 404 to a request that carried the
// session id, 401 or 403.
func (s *ClientStream) fatalStatus(method string, resp *http.Response, withSession bool) error {
	switch {
	case resp.StatusCode == http.StatusNotFound && withSession:
		e, _ := newHTTPError(method, resp)
		resp.Body.Close()
		return s.fail(fmt.Errorf("%w: %w", ErrSessionNotFound, unprefixed{e}))
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		e, _ := newHTTPError(method, resp)
		resp.Body.Close()
		return s.fail(e)
	}
	return nil
}

// mediaType returns the response's media type, lower case, without
// parameters.
func mediaType(resp *http.Response) string {
	ct := resp.Header.Get("Content-Type")
	if ct == "text/event-stream" || ct == "application/json" {
		return ct // the usual values need no parsing
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

// readJSON reads a JSON body of length n (-1: not announced) holding
// one message (or batch) and hands it to Read; requests of pending that
// it did not answer get an error.
func (s *ClientStream) readJSON(body io.ReadCloser, n int64, pending *pendingIDs) {
	defer body.Close()
	var data []byte
	var err error
	if n >= 0 && n <= min(int64(s.opts.MaxMessageBytes), 64<<10) {
		// Announced and small: allocated at once. A larger length is
		// not trusted; the buffer grows with what actually arrives.
		data, err = readAnnounced(body, int(n))
	} else {
		data, err = io.ReadAll(io.LimitReader(body, int64(s.opts.MaxMessageBytes)+1))
	}
	switch {
	case s.ctx.Err() != nil:
		return
	case err != nil:
		err = fmt.Errorf("reading the answer: %w", err)
	case len(data) > s.opts.MaxMessageBytes:
		err = fmt.Errorf("the answer is larger than %d bytes", s.opts.MaxMessageBytes)
	case len(bytes.TrimSpace(data)) == 0:
		if pending.len() == 0 {
			return // an empty 200 to a notification or an answer
		}
		err = errors.New("the answer is empty")
	case !s.takeOwned(data, pending):
		return
	}
	if err != nil {
		s.log.Warn("streamhttp: dropped an answer", "error", err)
	}
	if pending.len() > 0 {
		if err == nil {
			err = errors.New("the answer did not answer every request")
		}
		s.failPending(pending, err)
	}
}

// readAnnounced reads a body of n bytes, as its Content-Length
// announced, into a buffer with room for one more byte, and reads on to
// the body's end (so that its connection can be reused).
func readAnnounced(body io.Reader, n int) ([]byte, error) {
	data := make([]byte, n+1)
	m, err := io.ReadFull(body, data)
	switch {
	case m == n && (err == io.EOF || err == io.ErrUnexpectedEOF):
		return data[:n], nil
	case err == nil: // longer than announced: net/http does not let this happen
		return nil, errors.New("the body is longer than its Content-Length")
	}
	return nil, err
}

// takeOwned is take for a message in a buffer of its own, which becomes
// the line when it has room for the line's end: no copy.
func (s *ClientStream) takeOwned(data []byte, pending *pendingIDs) bool {
	raw := bytes.TrimSpace(data)
	if cap(data) <= len(raw) || bytes.IndexByte(raw, '\n') >= 0 || !jsonscan.Valid(raw) {
		return s.take(raw, pending)
	}
	line := data[:len(raw)+1]
	copy(line, raw) // to the front, past any leading space
	line[len(raw)] = '\n'
	return s.takeOrDrop(line, pending)
}

// take compacts one message from the server into a line, notes the
// answers it carries (removing them from pending, and reading the
// negotiated revision from the handshake's) and hands it to Read. A
// message that is not JSON is logged and dropped. It reports false when
// the stream ended first.
func (s *ClientStream) take(raw []byte, pending *pendingIDs) bool {
	raw = bytes.TrimSpace(raw)
	if bytes.IndexByte(raw, '\n') < 0 && jsonscan.Valid(raw) {
		// Already one line: copied as it is, spaces and all.
		line := s.spare.get(len(raw) + 1)
		copy(line, raw)
		line[len(raw)] = '\n'
		return s.takeOrDrop(line, pending)
	}
	var b bytes.Buffer
	b.Grow(len(raw) + 1)
	if err := json.Compact(&b, raw); err != nil {
		s.log.Warn("streamhttp: dropped a message that is not JSON", "message", jsonrpc.Truncate(string(raw)), "error", err)
		return true
	}
	b.WriteByte('\n')
	return s.takeOrDrop(b.Bytes(), pending)
}

// takeOrDrop notes the answers in line (compact JSON ending in a newline)
// and hands it to Read.
func (s *ClientStream) takeOrDrop(line []byte, pending *pendingIDs) bool {
	var one [1]json.RawMessage
	for _, id := range appendResponseIDs(one[:0], line) {
		pending.remove(id)
		s.noteAnswer(id, line)
	}
	return s.deliver(line)
}

// noteAnswer notes that the request id is answered, on whatever stream,
// and reads the negotiated revision when line is the answer to the
// handshake request.
func (s *ClientStream) noteAnswer(id json.RawMessage, line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.awaited, string(id))
	if s.handshakeID == nil || !bytes.Equal(s.handshakeID, id) {
		return
	}
	s.handshakeID = nil
	var one [1]envelope
	es := appendEnvelopes(one[:0], line)
	if len(es) != 1 {
		return
	}
	object, v, ok := resultVersion(es[0].result, s.proto.VersionField)
	if !object {
		return // an error, or not an object: no session yet
	}
	s.handshook = true
	if ok {
		s.version = v
	}
}

// failPending hands Read an error response for each request in pending
// not answered meanwhile on another stream.
func (s *ClientStream) failPending(pending *pendingIDs, reason error) {
	s.prune(pending)
	for id := pending.pop(); id != nil; id = pending.pop() {
		if !s.deliver(failureResponse(json.RawMessage(id), reason)) {
			return
		}
	}
}

// maybeStartGET opens the GET stream after the first notification that
// follows the handshake's answer, unless NoGETStream. It returns a channel
// closed once the first GET has its response headers (or failed), or nil
// when it started nothing.
func (s *ClientStream) maybeStartGET() <-chan struct{} {
	if s.opts.NoGETStream {
		return nil
	}
	s.mu.Lock()
	start := s.handshook && !s.getStarted && !s.stopping
	if start {
		s.getStarted = true
	}
	s.mu.Unlock()
	if !start {
		return nil
	}
	opened := make(chan struct{})
	if !s.spawn(func() { s.runGET(opened) }) {
		return nil
	}
	return opened
}
