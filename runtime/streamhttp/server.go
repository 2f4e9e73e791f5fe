package streamhttp

import (
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

// Handler serves a protocol's endpoint over Streamable HTTP: POST carries
// the client's messages, GET opens the stream of messages the server
// starts (or resumes a stream with Last-Event-ID), DELETE ends a session.
// Mount it at the protocol's Path.
type Handler struct {
	proto      Protocol
	sessionKey string // proto.SessionHeader in canonical form
	serve      func(*Session)
	opts       ServerOptions
	log        *slog.Logger

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
		proto:      proto,
		sessionKey: http.CanonicalHeaderKey(proto.SessionHeader),
		serve:      serve,
		opts:       opts,
		log:        opts.Logger,
		sessions:   make(map[string]*Session),
		all:        make(map[*Session]struct{}),
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
		for rest := v; rest != ""; {
			var part string
			part, rest, _ = strings.Cut(rest, ",")
			mt := strings.ToLower(strings.TrimSpace(part))
			if strings.ContainsRune(mt, ';') { // parameters: parse them
				var params map[string]string
				var err error
				if mt, params, err = mime.ParseMediaType(mt); err != nil || params["q"] == "0" {
					continue
				}
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
