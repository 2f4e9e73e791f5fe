package streamhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Defaults of [ClientOptions], used when a field is zero.
const (
	// DefaultMaxMessageBytes bounds one JSON body or one event's data, the
	// same 32 MiB a jsonrpc.Conn allows for one message.
	DefaultMaxMessageBytes = 32 << 20
	// DefaultReconnectDelay is the first delay before reconnecting a
	// stream when the server set no retry.
	DefaultReconnectDelay = time.Second
	// DefaultMaxReconnectDelay caps the growing delay between attempts.
	DefaultMaxReconnectDelay = 30 * time.Second
	// DefaultMaxReconnects is how many attempts in a row may fail before
	// a stream is given up.
	DefaultMaxReconnects = 5
	// DefaultCloseTimeout bounds the DELETE sent by Close.
	DefaultCloseTimeout = 5 * time.Second
	// DefaultHeaderWait bounds how long a POST waits for the previous
	// one's response headers.
	DefaultHeaderWait = 100 * time.Millisecond
)

// ClientOptions configure [Dial]. The zero value is usable.
type ClientOptions struct {
	// HTTPClient sends every request; nil means http.DefaultClient. Its
	// Transport is where authorization plugs in (an OAuth RoundTripper
	// adding tokens, say).
	HTTPClient *http.Client
	// Header holds headers added to every request.
	Header http.Header
	// MaxMessageBytes bounds one JSON body and one server-sent event's
	// data (default DefaultMaxMessageBytes). Past it the request waiting
	// for that answer fails; the client never buffers more.
	MaxMessageBytes int
	// ReconnectDelay is the delay before reconnecting a dropped stream
	// when the server set no retry (default 1 s); it grows by half on
	// each failed attempt, up to MaxReconnectDelay (default 30 s). A
	// retry value from the server is waited exactly.
	ReconnectDelay    time.Duration
	MaxReconnectDelay time.Duration
	// MaxReconnects is how many reconnection attempts in a row may fail
	// (or bring nothing new) before a stream is given up (default 5;
	// negative: never reconnect).
	MaxReconnects int
	// CloseTimeout bounds the DELETE that Close sends (default 5 s).
	CloseTimeout time.Duration
	// HeaderWait bounds how long a message waits for the response
	// headers of the POST before it, so that the server gets messages in
	// order (default 100 ms). A server answering with application/json
	// sends headers only with the answer; past HeaderWait the next
	// message goes anyway, so that concurrent calls and cancellations
	// are not held until then. The handshake's headers are always
	// awaited; answers to the server's requests never wait.
	HeaderWait time.Duration
	// NoGETStream stops the client from opening the GET stream: it then
	// receives only what the server sends in answer to its POSTs (answers,
	// and the requests and notifications that travel on a POST's event
	// stream, such as progress); requests the server starts and
	// notifications outside a request (list_changed, say) are not
	// received. A POST's event stream that breaks before its answers is
	// still resumed with a GET carrying Last-Event-ID.
	NoGETStream bool
	// Logger receives warnings (dropped streams, reconnections, messages
	// that are not JSON); nil discards them.
	Logger *slog.Logger
}

// discardLogger is the Logger of a client given none, shared.
var discardLogger = slog.New(slog.DiscardHandler)

// withDefaults returns o with every zero field set to its default.
func (o ClientOptions) withDefaults() ClientOptions {
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.ReconnectDelay <= 0 {
		o.ReconnectDelay = DefaultReconnectDelay
	}
	if o.MaxReconnectDelay <= 0 {
		o.MaxReconnectDelay = DefaultMaxReconnectDelay
	}
	if o.MaxReconnects == 0 {
		o.MaxReconnects = DefaultMaxReconnects
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = DefaultCloseTimeout
	}
	if o.HeaderWait <= 0 {
		o.HeaderWait = DefaultHeaderWait
	}
	if o.Logger == nil {
		o.Logger = discardLogger
	}
	return o
}

// ClientStream is the client side of a Streamable HTTP session: an
// [io.ReadWriteCloser] of newline-delimited JSON messages for a
// jsonrpc.Conn. Each message written is POSTed to the endpoint, in order
// (see ClientOptions.HeaderWait); Read yields, one line each, the
// messages the server sends back in JSON bodies, in event streams
// answering POSTs, and on the GET stream.
//
// The stream keeps the session id the server issues with its answer to
// the protocol's handshake and sends it on every later request, along
// with the negotiated revision once the handshake's result has arrived.
// After the first notification that follows the handshake (MCP's
// notifications/initialized) it opens the GET stream for messages the
// server starts, before the next message goes (within HeaderWait), unless
// ClientOptions.NoGETStream; a 405 there (or any answer but an event
// stream) means the server has none, and the client does not ask again.
// An answer may come on any stream.
//
// An event stream that ends before the answers to its requests arrived is
// resumed with a GET carrying Last-Event-ID, after the server's retry
// delay (or ReconnectDelay); so is the GET stream when it drops. A POST's
// stream is left, and never resumed, once its answers came.
//
// Failures: a request the server answers with an HTTP error status (other
// than those below), or whose answer is unreadable, too large or lost with
// its stream, gets a JSON-RPC error response with its id, so the call
// waiting for it fails at once: the server's own JSON-RPC error when the
// body holds one, else code -32603 with the HTTP status in its data. A 404
// to a request carrying the session id ([ErrSessionNotFound]), a 401 or
// 403 ([*HTTPError]), or a request that cannot be sent at all ends the
// stream: Read returns the error (and Write from then on), so every
// pending call of the jsonrpc.Conn fails with an error wrapping it.
type ClientStream struct {
	url   string
	proto Protocol
	// sessionKey and versionKey are proto's headers in canonical form.
	sessionKey, versionKey string
	opts                   ClientOptions
	log                    *slog.Logger

	ctx    context.Context // ends at Close or on a fatal error
	cancel context.CancelFunc
	wg     sync.WaitGroup

	incoming chan []byte   // messages for Read, one line each
	failed   chan struct{} // closed when err is set
	closed   chan struct{} // closed by Close

	writeMu sync.Mutex
	wbuf    []byte    // written bytes not yet forming a whole line
	prev    *inFlight // the last POST sent

	readMu sync.Mutex
	cur    []byte   // the rest of the line being read
	line   []byte   // the whole line being read, spare once read
	spare  lineList // lines read, for take to reuse

	mu          sync.Mutex
	stopping    bool            // Close began: no goroutine starts any more
	sessionID   string          // from the handshake's answer
	headerVals  []string        // sessionID and version, shared by the requests' headers (full slices)
	sessionGone bool            // the server answered 404 to our session
	version     string          // negotiated revision, from the handshake's result
	handshakeID []byte          // id of the handshake request awaiting its answer
	handshook   bool            // the handshake's answer arrived
	awaited     map[string]bool // ids of requests whose answers event streams owe
	getStarted  bool
	lastOneWay  *inFlight // the last POST holding no request, which Close lets finish
	err         error     // the fatal error that ended the stream

	closeOnce sync.Once
	closeErr  error
}

// Dial returns a stream to the Streamable HTTP endpoint at rawURL for
// proto. It sends nothing: the first message written (the handshake
// request) opens the session. ctx is not kept; Close ends the stream.
func Dial(ctx context.Context, rawURL string, proto Protocol, opts ClientOptions) (*ClientStream, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("streamhttp: dial %s: %w", rawURL, err)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("streamhttp: dial: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("streamhttp: dial %s: not an http or https URL", rawURL)
	}
	opts = opts.withDefaults()
	s := &ClientStream{
		url:        u.String(),
		proto:      proto,
		sessionKey: http.CanonicalHeaderKey(proto.SessionHeader),
		versionKey: http.CanonicalHeaderKey(proto.VersionHeader),
		opts:       opts,
		log:        opts.Logger,
		incoming:   make(chan []byte, 16),
		failed:     make(chan struct{}),
		closed:     make(chan struct{}),
		handshook:  proto.Handshake == "",
		awaited:    make(map[string]bool),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// SessionID returns the session id the server issued, or "".
func (s *ClientStream) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// Version returns the revision negotiated by the handshake, or "".
func (s *ClientStream) Version() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Read reads the messages the server sent, each a line of compact JSON.
// It returns io.EOF after Close, and the stream's error after a fatal one.
func (s *ClientStream) Read(p []byte) (int, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	if len(s.cur) == 0 {
		select {
		case s.cur = <-s.incoming:
		case <-s.closed:
			return 0, io.EOF
		case <-s.failed:
			select {
			case s.cur = <-s.incoming:
			default:
				return 0, s.failure()
			}
		}
		s.line = s.cur
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	if len(s.cur) == 0 {
		s.spare.put(s.line)
		s.line = nil
	}
	return n, nil
}

// Write takes newline-delimited JSON messages, whole or in pieces, and
// POSTs each complete one, in order (see ClientOptions.HeaderWait);
// responses are handled in the background.
func (s *ClientStream) Write(p []byte) (int, error) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if err := s.stopped(); err != nil {
		return 0, err
	}
	s.wbuf = append(s.wbuf, p...)
	rest := s.wbuf
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimSpace(rest[:i])
		rest = rest[i+1:]
		if len(line) == 0 {
			continue
		}
		if err := s.post(bytes.Clone(line)); err != nil {
			s.wbuf = s.wbuf[:0]
			return 0, err
		}
	}
	s.wbuf = append(s.wbuf[:0], rest...)
	return len(p), nil
}

// Close ends the session with a DELETE (a 405 answer is fine: the server
// lets sessions expire), stops every stream and waits for the goroutines
// the stream started. Read returns io.EOF afterwards. Notifications and
// answers already written are not lost: Close first waits, at most
// CloseTimeout, for the response headers to the last POST holding no
// request (requests still waiting for their answers are abandoned).
func (s *ClientStream) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.stopping = true
		sid, gone := s.sessionID, s.sessionGone
		last := s.lastOneWay
		s.mu.Unlock()
		if last != nil {
			s.awaitHeaders(last, s.opts.CloseTimeout)
		}
		close(s.closed)
		s.cancel()
		s.wg.Wait()
		if sid != "" && !gone && s.proto.SessionHeader != "" {
			s.closeErr = s.deleteSession()
		}
	})
	return s.closeErr
}

// awaitHeaders waits for the response headers to the POST p, at most d,
// unless the stream ends first.
func (s *ClientStream) awaitHeaders(p *inFlight, d time.Duration) {
	select {
	case <-p.headers:
		return
	default:
	}
	t := resetTimer(nil, d)
	defer putTimer(t)
	select {
	case <-p.headers:
	case <-t.C:
	case <-s.ctx.Done():
	}
}

// deleteSession sends the DELETE that ends the session.
func (s *ClientStream) deleteSession() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.CloseTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return fmt.Errorf("streamhttp: DELETE: %w", err)
	}
	s.setHeaders(req.Header, false)
	resp, err := s.opts.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("streamhttp: ending the session: %w", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode < 300, resp.StatusCode == http.StatusMethodNotAllowed, resp.StatusCode == http.StatusNotFound:
		return nil
	}
	e, _ := newHTTPError(http.MethodDelete, resp)
	return fmt.Errorf("streamhttp: ending the session: %w", unprefixed{e})
}

// setHeaders adds the configured headers, the session id and (except on
// the handshake) the negotiated revision to h. It reports whether the
// session id went in.
func (s *ClientStream) setHeaders(h http.Header, handshake bool) bool {
	for k, v := range s.opts.Header {
		h[k] = append([]string(nil), v...)
	}
	s.mu.Lock()
	sid, ver := s.sessionID, s.version
	vals := s.headerVals
	if vals == nil || vals[0] != sid || vals[1] != ver {
		vals = []string{sid, ver} // one allocation for both, until they change
		s.headerVals = vals
	}
	s.mu.Unlock()
	if sid != "" && s.proto.SessionHeader != "" {
		h[s.sessionKey] = vals[0:1:1]
	}
	if ver != "" && s.proto.VersionHeader != "" && !handshake {
		h[s.versionKey] = vals[1:2:2]
	}
	return sid != "" && s.proto.SessionHeader != ""
}

// stopped returns the error to report once the stream has ended, or nil.
func (s *ClientStream) stopped() error {
	select {
	case <-s.closed:
		return ErrClientClosed
	case <-s.failed:
		return s.failure()
	default:
		return nil
	}
}

// failure returns the fatal error.
func (s *ClientStream) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// fail ends the stream with err (the first error wins) and returns the
// error the stream reports.
func (s *ClientStream) fail(err error) error {
	select {
	case <-s.closed:
		return ErrClientClosed
	default:
	}
	s.mu.Lock()
	if s.err != nil {
		err = s.err
		s.mu.Unlock()
		return err
	}
	s.err = err
	if errors.Is(err, ErrSessionNotFound) {
		s.sessionGone = true
	}
	s.mu.Unlock()
	s.log.Warn("streamhttp: stream failed", "url", s.url, "error", err)
	close(s.failed)
	s.cancel()
	return err
}

// spawn runs f in a goroutine that Close waits for, unless Close began.
func (s *ClientStream) spawn(f func()) bool {
	if !s.reserve() {
		return false
	}
	go func() {
		defer s.wg.Done()
		f()
	}()
	return true
}

// reserve counts a goroutine about to start, which Close waits for and
// which calls s.wg.Done at its end, unless Close began (false).
func (s *ClientStream) reserve() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || s.ctx.Err() != nil {
		return false
	}
	s.wg.Add(1)
	return true
}

// deliver hands one line to Read, waiting while Read is behind, unless the
// stream ends first.
func (s *ClientStream) deliver(line []byte) bool {
	select {
	case s.incoming <- line:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// sleep waits d unless the stream ends first.
func (s *ClientStream) sleep(d time.Duration) bool {
	t := resetTimer(nil, d)
	defer putTimer(t)
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}
