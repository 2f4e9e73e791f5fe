package streamhttp

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// Default limits of a [Handler], used when a [ServerOptions] field is zero.
const (
	DefaultMaxBodyBytes  = 4 << 20
	DefaultMaxSessions   = 1000
	DefaultMaxStreams    = 64
	DefaultMaxEventBytes = 1 << 20
	DefaultIdleTimeout   = 10 * time.Minute
	DefaultWriteTimeout  = 10 * time.Second
	DefaultRetry         = time.Second
	DefaultKeepAlive     = 15 * time.Second
)

// ServerOptions configures a [Handler]. The zero value serves sessions
// with the default limits.
type ServerOptions struct {
	// Stateless serves every POST by a session of its own (serve is
	// called per POST and the session ends with the answer): no session
	// ids, no GET stream (GET and DELETE get 405), and the server cannot
	// call the client. A Protocol without a SessionHeader is always
	// stateless.
	Stateless bool
	// JSONResponse answers requests with application/json even when the
	// client accepts an event stream; messages a handler sends while
	// serving the request then go to the GET stream.
	JSONResponse bool
	// Versions lists the revisions the server speaks. A request after the
	// handshake whose VersionHeader names another one gets 400. Empty:
	// any value passes.
	Versions []string
	// AllowedOrigins lists Origin header values (such as
	// "https://app.example") accepted from browsers. A request arriving on
	// a loopback address accepts loopback origins (http or https on
	// localhost, 127.0.0.1 or [::1], any port) besides these; any other
	// Origin gets 403. On other addresses an empty list accepts every
	// origin.
	AllowedOrigins []string
	// AllowedHosts lists Host header values accepted besides loopback
	// ones on a request arriving on a loopback address, where any other
	// Host gets 403 (DNS-rebinding protection).
	AllowedHosts []string
	// MaxBodyBytes bounds a POST body; past it the answer is 413
	// (default [DefaultMaxBodyBytes]).
	MaxBodyBytes int64
	// MaxSessions bounds the open sessions. A new session past it evicts
	// the session idle for longest (its client gets 404 and, per the
	// MCP rules, starts a new one); with no idle session the answer is
	// 503 (default [DefaultMaxSessions]).
	MaxSessions int
	// MaxStreams bounds the HTTP requests a session serves at once (its
	// event streams, the POSTs waiting for their answer or for the
	// connection to take their message); past it the answer is 429
	// (default [DefaultMaxStreams]).
	MaxStreams int
	// MaxEventBytes bounds the messages a session keeps for resumption;
	// the oldest go first, and a resumption asking for one that is gone
	// gets 400 (default [DefaultMaxEventBytes]; a single message larger
	// than it is still kept until the next one).
	MaxEventBytes int
	// IdleTimeout ends a session that has had no HTTP request open and no
	// request awaiting its answer for this long (default
	// [DefaultIdleTimeout]; negative: never).
	IdleTimeout time.Duration
	// WriteTimeout bounds each write to an event stream. A client that
	// does not read within it loses the connection, and the stream's
	// messages stay stored for it to resume (default
	// [DefaultWriteTimeout]).
	WriteTimeout time.Duration
	// Retry is the reconnection delay announced in the first event of
	// every stream (default [DefaultRetry]).
	Retry time.Duration
	// KeepAlive is how often an event stream with nothing to send gets an
	// SSE comment, so that proxies keep it open (default
	// [DefaultKeepAlive]; negative: never).
	KeepAlive time.Duration
	// Logger receives the transport's warnings; nil: slog.Default().
	Logger *slog.Logger
}

func (o ServerOptions) withDefaults() ServerOptions {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.MaxEventBytes <= 0 {
		o.MaxEventBytes = DefaultMaxEventBytes
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.Retry <= 0 {
		o.Retry = DefaultRetry
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = DefaultKeepAlive
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Handler serves a protocol's endpoint over Streamable HTTP: POST carries
// the client's messages, GET opens the stream of messages the server
// starts (or resumes a stream with Last-Event-ID), DELETE ends a session.
// Mount it at the protocol's Path.
type Handler struct {
	proto Protocol
	serve func(*Session)
	opts  ServerOptions
	log   *slog.Logger

	mu       sync.Mutex
	sessions map[string]*Session   // by id
	all      map[*Session]struct{} // every session not yet closed, stateless ones too
	closing  bool
	wg       sync.WaitGroup // serve calls
}

// NewHandler returns the handler of proto's endpoint. serve is called, on
// a goroutine of its own, with each new session (each POST in stateless
// mode) and starts a jsonrpc.Conn on it, as a generated Connect function
// does.
func NewHandler(proto Protocol, serve func(*Session), opts ServerOptions) *Handler {
	opts = opts.withDefaults()
	return &Handler{
		proto:    proto,
		serve:    serve,
		opts:     opts,
		log:      opts.Logger,
		sessions: make(map[string]*Session),
		all:      make(map[*Session]struct{}),
	}
}

// Close ends every session and waits, up to closeWait, for their
// connections to close them. Later requests get 503.
func (h *Handler) Close() error {
	h.mu.Lock()
	h.closing = true
	all := make([]*Session, 0, len(h.all))
	for s := range h.all {
		all = append(all, s)
	}
	h.mu.Unlock()
	for _, s := range all {
		s.End()
	}
	timeout := time.NewTimer(closeWait)
	defer timeout.Stop()
	for _, s := range all {
		select {
		case <-s.closed:
		case <-timeout.C:
			return errors.New("streamhttp: close: some connections did not close their sessions")
		}
	}
	h.wg.Wait()
	return nil
}

// closeWait bounds how long Close waits for connections to end.
const closeWait = 10 * time.Second

// stateless reports whether every POST stands alone.
func (h *Handler) stateless() bool { return h.opts.Stateless || h.proto.SessionHeader == "" }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if status, why := h.checkOrigin(r); status != 0 {
		httpError(w, status, why)
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet, http.MethodDelete:
		if h.stateless() {
			w.Header().Set("Allow", "POST")
			httpError(w, http.StatusMethodNotAllowed, "this endpoint is stateless: POST only")
			return
		}
		if r.Method == http.MethodGet {
			h.get(w, r)
		} else {
			h.delete(w, r)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
	}
}

// errorBody is the JSON-RPC error, with id null, that explains a refused
// HTTP request.
func errorBody(code int, message string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      nil,
		"error":   map[string]any{"code": code, "message": message},
	})
	return b
}

// httpError refuses a request with status and a JSON-RPC error body.
func httpError(w http.ResponseWriter, status int, message string) {
	rpcError(w, status, -32000, message)
}

func rpcError(w http.ResponseWriter, status, code int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(errorBody(code, message))
}

// accepts reports which of the two answer types the Accept header allows.
// No Accept header allows both.
func accepts(values []string) (jsonOK, streamOK bool) {
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || params["q"] == "0" {
				continue
			}
			switch mt {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// newSessionID returns a random session id of visible ASCII.
func newSessionID() string { return rand.Text() }

// create opens a new session and starts serving it. It returns nil when
// the handler is closed or full of busy sessions.
func (h *Handler) create(stateless bool) *Session {
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		return nil
	}
	var evict *Session
	if !stateless && len(h.sessions) >= h.opts.MaxSessions {
		evict = h.idlest()
		if evict == nil {
			h.mu.Unlock()
			return nil
		}
		delete(h.sessions, evict.id) // before anyone else counts it
	}
	id := ""
	if !stateless {
		id = newSessionID()
	}
	s := newSession(h, id)
	if !stateless {
		h.sessions[id] = s
		if h.opts.IdleTimeout > 0 {
			s.idle = time.AfterFunc(h.opts.IdleTimeout, s.expire)
			s.idle.Stop() // the request creating it makes it busy
		}
	}
	h.all[s] = struct{}{}
	h.wg.Add(1)
	h.mu.Unlock()
	if evict != nil {
		h.log.Info("streamhttp: too many sessions; ended the one idle for longest", "session", evict.id)
		evict.End()
	}
	go func() {
		defer h.wg.Done()
		h.serve(s)
	}()
	return s
}

// idlest returns the session idle for longest, or nil when every session
// is busy. h.mu is held.
func (h *Handler) idlest() *Session {
	var best *Session
	var bestUsed time.Time
	for _, s := range h.sessions {
		s.mu.Lock()
		idle, used := s.active == 0, s.lastUsed
		s.mu.Unlock()
		if idle && (best == nil || used.Before(bestUsed)) {
			best, bestUsed = s, used
		}
	}
	return best
}

// forget removes an ended session.
func (h *Handler) forget(s *Session) {
	h.mu.Lock()
	if h.sessions[s.id] == s {
		delete(h.sessions, s.id)
	}
	h.mu.Unlock()
}

// closed forgets a session its connection has closed.
func (h *Handler) closed(s *Session) {
	h.mu.Lock()
	delete(h.all, s)
	h.mu.Unlock()
}

// lookup finds the session named by the request's session header, or
// answers 400 (no header) or 404 (unknown or ended) and returns nil. It
// also checks the version header.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request) *Session {
	id := r.Header.Get(h.proto.SessionHeader)
	if id == "" {
		httpError(w, http.StatusBadRequest, "missing "+h.proto.SessionHeader+" header")
		return nil
	}
	h.mu.Lock()
	s := h.sessions[id]
	h.mu.Unlock()
	if s == nil {
		httpError(w, http.StatusNotFound, "session not found")
		return nil
	}
	if !h.versionOK(w, r) {
		return nil
	}
	return s
}

// versionOK checks the version header of a request after the handshake,
// answering 400 when it names a revision the server does not speak.
func (h *Handler) versionOK(w http.ResponseWriter, r *http.Request) bool {
	if h.proto.VersionHeader == "" || len(h.opts.Versions) == 0 {
		return true
	}
	v := r.Header.Get(h.proto.VersionHeader)
	if v == "" || slices.Contains(h.opts.Versions, v) {
		return true
	}
	httpError(w, http.StatusBadRequest, fmt.Sprintf("unsupported %s %q (supported: %s)",
		h.proto.VersionHeader, jsonrpc.Truncate(v), strings.Join(h.opts.Versions, ", ")))
	return false
}

// delete ends the session named by the request.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	s := h.lookup(w, r)
	if s == nil {
		return
	}
	s.End()
	w.WriteHeader(http.StatusNoContent)
}

// readBody reads a POST body within MaxBodyBytes, answering 413 past it.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", limit))
		return nil, false
	}
	size := r.ContentLength
	if size < 0 || size > 64<<10 {
		size = 64 << 10 // grow with what actually arrives
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", limit))
		return nil, false
	case err != nil:
		httpError(w, http.StatusBadRequest, "reading the body failed")
		return nil, false
	}
	return buf.Bytes(), true
}

// clientMessage is what the handler needs to know of a message the
// client POSTs.
type clientMessage struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
}

// post handles a POST: one message (or a batch) from the client.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	jsonOK, streamOK := accepts(r.Header.Values("Accept"))
	if !jsonOK && !streamOK {
		httpError(w, http.StatusNotAcceptable, "Accept must list application/json and text/event-stream")
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	if !json.Valid(body) {
		rpcError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: invalid JSON")
		return
	}
	var line bytes.Buffer
	line.Grow(len(body) + 1)
	_ = json.Compact(&line, body)
	line.WriteByte('\n')
	ids, handshake, ok := h.classify(w, line.Bytes())
	if !ok {
		return
	}
	batch := line.Bytes()[0] == '['

	var s *Session
	created := false
	switch {
	case h.stateless():
		if s = h.create(true); s == nil {
			httpError(w, http.StatusServiceUnavailable, "server closed")
			return
		}
		defer s.End()
	case r.Header.Get(h.proto.SessionHeader) == "" && handshake:
		if s = h.create(false); s == nil {
			w.Header().Set("Retry-After", "1")
			httpError(w, http.StatusServiceUnavailable, "too many sessions")
			return
		}
		created = true
	default:
		if s = h.lookup(w, r); s == nil {
			return
		}
	}
	if s.id != "" {
		w.Header().Set(h.proto.SessionHeader, s.id)
	}
	if !s.begin() {
		httpError(w, http.StatusTooManyRequests, "too many requests open in this session")
		return
	}
	defer s.finish()

	if len(ids) == 0 {
		if !s.deliver(line.Bytes(), r.Context().Done()) {
			httpError(w, http.StatusNotFound, "session ended")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	useJSON := !streamOK || (h.opts.JSONResponse && jsonOK)
	st, status, why := s.open(ids, useJSON, batch, handshake && created)
	if st == nil {
		if status == http.StatusBadRequest {
			rpcError(w, status, jsonrpc.CodeInvalidRequest, why)
		} else {
			httpError(w, status, why)
		}
		return
	}
	defer s.detach(st, 1) // open made this response its first owner
	if useJSON {
		h.answerJSON(w, r, s, st, line.Bytes())
	} else {
		h.serveStream(w, r, s, st, 1, 0, line.Bytes())
	}
	if created && s.handshakeFailed() {
		s.End()
	}
}

// classify reads the ids of the requests in a POSTed line, and whether
// it is the protocol's handshake. A message that is not JSON-RPC at all
// gets 400 with -32600.
func (h *Handler) classify(w http.ResponseWriter, line []byte) (ids []string, handshake, ok bool) {
	var msgs []clientMessage
	if line[0] == '[' {
		var raw []json.RawMessage
		_ = json.Unmarshal(line, &raw)
		if len(raw) == 0 {
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
			return nil, false, false
		}
		for _, m := range raw {
			var cm clientMessage
			if json.Unmarshal(m, &cm) == nil {
				msgs = append(msgs, cm)
			}
		}
	} else {
		var cm clientMessage
		if line[0] != '{' || json.Unmarshal(line, &cm) != nil || (cm.Method == nil && cm.ID == nil) {
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC message")
			return nil, false, false
		}
		msgs = []clientMessage{cm}
	}
	for _, m := range msgs {
		if m.Method == nil || m.ID == nil {
			continue
		}
		var id jsonrpc.ID
		if err := id.UnmarshalJSON(m.ID); err != nil {
			if len(msgs) == 1 {
				rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: id must be a string, a number or null")
				return nil, false, false
			}
			continue
		}
		ids = append(ids, id.String())
		if len(msgs) == 1 && *m.Method == h.proto.Handshake && h.proto.Handshake != "" {
			handshake = true
		}
	}
	if !handshake && !h.stateless() && len(msgs) > 0 && h.proto.Handshake == "" {
		handshake = true // no handshake: any first request opens a session
	}
	return ids, handshake, true
}
