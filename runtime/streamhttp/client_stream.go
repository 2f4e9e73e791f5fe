package streamhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// eventStream is one logical event stream: the stream answering a POST,
// or the GET stream, with the connections that resume it.
type eventStream struct {
	kind     string        // "POST" or "GET", for logs
	post     bool          // a POST's stream, owing the answers in pending
	pending  pendingIDs    // ids of the requests whose answers it owes
	lastID   []byte        // the last event id seen
	retry    time.Duration // the server's last retry value
	hasRetry bool
	failures int // attempts in a row that failed or brought nothing new
}

// errNoResume reports that the server does not offer GET streams, so a
// lost stream cannot be resumed.
var errNoResume = errors.New("streamhttp: the server offers no GET stream to resume on")

// logStreamDone logs at debug level that st is done, building the
// record only when it would be written.
func (s *ClientStream) logStreamDone(st *eventStream) {
	if s.log.Enabled(s.ctx, slog.LevelDebug) {
		s.log.Debug("streamhttp: event stream done", "stream", st.kind, "last-event-id", jsonrpc.Truncate(string(st.lastID)))
	}
}

// runPostStream reads the event stream answering a POST, resuming it with
// GET + Last-Event-ID while answers are owed. Once every answer came, the
// stream is left: a POST's stream is not resumed after its answer.
func (s *ClientStream) runPostStream(body io.ReadCloser, st *eventStream) {
	defer s.logStreamDone(st)
	err := s.consume(body, st)
	for s.prune(&st.pending) > 0 && s.ctx.Err() == nil {
		switch {
		case errors.Is(err, errEventTooLarge):
		case len(st.lastID) == 0:
			err = errors.New("the answer's event stream ended before the answer, with no event id to resume from")
		default:
			var resp *http.Response
			resp, err = s.resume(st, true)
			if err == nil {
				err = s.consume(resp.Body, st)
				continue
			}
			if errors.Is(err, errAnswered) {
				return
			}
		}
		if s.ctx.Err() == nil {
			s.failPending(&st.pending, err)
		}
		return
	}
}

// errAnswered reports that the answers a stream owed came on another
// stream while it waited to resume.
var errAnswered = errors.New("streamhttp: answered on another stream")

// expect notes, before a POST is sent, that the answers to its requests
// are awaited.
func (s *ClientStream) expect(ids []json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		s.awaited[string(id)] = true
	}
}

// unexpect forgets ids once the POST that sent them is done with.
func (s *ClientStream) unexpect(ids []json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		delete(s.awaited, string(id))
	}
}

// prune drops from pending the requests answered meanwhile on another
// stream (a server may send an answer on the GET stream), and returns
// how many remain.
func (s *ClientStream) prune(pending *pendingIDs) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return pending.retain(s.awaited)
}

// runGET keeps the GET stream open for messages the server starts,
// reconnecting when it drops, until the stream ends or reconnecting fails
// too often; opened is closed once the first GET has its response
// headers. When the first GET gets any answer but an event stream (405
// says the server offers none; a stateless server may say 404 or 400),
// the client does not ask again.
func (s *ClientStream) runGET(opened chan<- struct{}) {
	st := &eventStream{kind: "GET"}
	resp, err := s.get("")
	close(opened)
	st.failures++
	switch {
	case err != nil:
		if s.ctx.Err() != nil {
			return
		}
		s.log.Warn("streamhttp: opening the GET stream failed", "error", err)
		resp = nil // try again below, after ReconnectDelay
	case resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream":
		if resp.StatusCode != http.StatusMethodNotAllowed {
			e, _ := newHTTPError(http.MethodGet, resp)
			s.log.Info("streamhttp: the server offers no GET stream", "error", e)
		}
		resp.Body.Close()
		return
	}
	for {
		if resp == nil {
			if resp, err = s.resume(st, true); err != nil {
				if s.ctx.Err() == nil && !errors.Is(err, errNoResume) {
					s.log.Warn("streamhttp: GET stream given up", "error", err)
				}
				return
			}
		}
		err = s.consume(resp.Body, st)
		resp = nil
		if s.ctx.Err() != nil {
			return
		}
		if errors.Is(err, errEventTooLarge) {
			s.log.Warn("streamhttp: GET stream given up", "error", err)
			return
		}
	}
}

// consume reads events from body, handing their messages to Read, until
// the body ends, the stream ends, or every answer owed by st came. It
// closes body and returns the error that ended the body (nil at its end).
func (s *ClientStream) consume(body io.ReadCloser, st *eventStream) error {
	defer body.Close()
	p := getSSEParser(body, s.opts.MaxMessageBytes)
	defer putSSEParser(p) // every event taken has been copied
	p.LastID = append(p.LastID[:0], st.lastID...)
	p.id = append(p.id[:0], st.lastID...)
	owed := st.pending.len() > 0
	for {
		ev, err := p.Next()
		if !bytes.Equal(p.LastID, st.lastID) { // copied: the parser's buffer is reused
			st.lastID = append(st.lastID[:0], p.LastID...)
			st.failures = 0
		}
		if p.HasRetry {
			st.retry, st.hasRetry = p.Retry, true
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			if s.ctx.Err() == nil {
				s.log.Warn("streamhttp: event stream broken", "stream", st.kind, "error", err)
			}
			return err
		}
		if len(ev.Data) == 0 {
			continue // a priming event: it only sets the id (and retry)
		}
		st.failures = 0
		if !s.take(ev.Data, &st.pending) {
			return nil
		}
		if owed && st.pending.len() == 0 {
			if !p.sawEOF() {
				drain(body)
			}
			return nil
		}
	}
}

// Bounds of drain.
const (
	drainWait  = time.Second
	drainBytes = 64 << 10
)

// drain reads what is left of a POST's event stream once its answers
// came, so that its connection serves the next request instead of being
// closed: a server ends the stream after the answer. A server that keeps
// it open past drainWait, or sends more than drainBytes, loses the
// connection.
func drain(body io.ReadCloser) {
	t := time.AfterFunc(drainWait, func() { body.Close() })
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainBytes))
}

// resume opens a GET stream for st, carrying Last-Event-ID when st has
// seen an event id. When wait is set it first waits the server's retry
// delay (or the growing ReconnectDelay). It tries again until
// MaxReconnects attempts in a row failed, and returns errNoResume at a
// 405. A 404 to the session, a 401 or a 403 ends the whole stream.
func (s *ClientStream) resume(st *eventStream, wait bool) (*http.Response, error) {
	for {
		if wait {
			if s.opts.MaxReconnects < 0 || st.failures >= s.opts.MaxReconnects {
				return nil, fmt.Errorf("gave up reconnecting the %s stream after %d attempts", st.kind, st.failures)
			}
			if !s.sleep(s.reconnectDelay(st)) {
				return nil, ErrClientClosed
			}
			if st.post && s.prune(&st.pending) == 0 {
				return nil, errAnswered
			}
		}
		wait = true
		st.failures++
		resp, err := s.get(string(st.lastID))
		if err != nil {
			if s.ctx.Err() != nil {
				return nil, ErrClientClosed
			}
			s.log.Warn("streamhttp: reconnecting failed", "stream", st.kind, "attempt", st.failures, "error", err)
			continue
		}
		switch {
		case resp.StatusCode == http.StatusMethodNotAllowed:
			resp.Body.Close()
			return nil, errNoResume
		case resp.StatusCode == http.StatusOK && mediaType(resp) == "text/event-stream":
			return resp, nil
		}
		e, _ := newHTTPError(http.MethodGet, resp)
		resp.Body.Close()
		s.log.Warn("streamhttp: reconnecting failed", "stream", st.kind, "attempt", st.failures, "error", e,
			"content-type", jsonrpc.Truncate(resp.Header.Get("Content-Type")))
	}
}

// get sends one GET for an event stream. Statuses that end the whole
// stream are handled here and returned as errors.
func (s *ClientStream) get(lastID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("streamhttp: GET: %w", err)
	}
	withSession := s.setHeaders(req.Header, false)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("streamhttp: GET %s: %w", s.url, err)
	}
	if err := s.fatalStatus(http.MethodGet, resp, withSession); err != nil {
		return nil, err
	}
	return resp, nil
}

// reconnectDelay is how long to wait before the next attempt for st: the
// server's retry value when it set one, else ReconnectDelay growing by
// half with each failed attempt, up to MaxReconnectDelay.
func (s *ClientStream) reconnectDelay(st *eventStream) time.Duration {
	if st.hasRetry {
		return st.retry
	}
	d := s.opts.ReconnectDelay
	for i := 0; i < st.failures && d < s.opts.MaxReconnectDelay; i++ {
		d += d / 2
	}
	return min(d, s.opts.MaxReconnectDelay)
}
