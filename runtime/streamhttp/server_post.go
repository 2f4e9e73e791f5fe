package streamhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"

	"github.com/rpcgen/rpcgen/runtime/internal/jsonscan"
	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// readBody reads a POST body within MaxBodyBytes, answering 413 past it.
// The body it returns has room for one more byte (the line's end).
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := h.opts.MaxBodyBytes
	if r.ContentLength > limit {
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", limit))
		return nil, false
	}
	if n := r.ContentLength; n >= 0 && n <= 64<<10 {
		// The length is announced and small: net/http reads no more than
		// it, so one exact read does.
		body := make([]byte, n, n+1)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			httpError(w, http.StatusBadRequest, "reading the body failed")
			return nil, false
		}
		return body, true
	}
	buf := bytes.NewBuffer(make([]byte, 0, 64<<10)) // grow with what actually arrives
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

// toLine checks that body is JSON and returns it as the line a Session
// hands its connection: without surrounding whitespace, compacted only
// when a line end is inside it, then a newline (appended in place when
// body has room). It reports false when body is not JSON.
func toLine(body []byte) ([]byte, bool) {
	if !jsonscan.Valid(body) {
		return nil, false
	}
	body = jsonscan.TrimSpace(body)
	if bytes.IndexByte(body, '\n') < 0 && bytes.IndexByte(body, '\r') < 0 {
		return append(body, '\n'), true
	}
	var b bytes.Buffer
	b.Grow(len(body) + 1)
	_ = json.Compact(&b, body)
	b.WriteByte('\n')
	return b.Bytes(), true
}

// isJSONType reports whether the media type of the Content-Type ct is
// application/json.
func isJSONType(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "application/json"
}

// post handles a POST: one message (or a batch) from the client.
func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !isJSONType(ct) {
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
	line, ok := toLine(body)
	if !ok {
		rpcError(w, http.StatusBadRequest, jsonrpc.CodeParseError, "Parse error: invalid JSON")
		return
	}
	var idRoom [1]string // a single request's id stays on the stack
	ids, handshake, ok := h.classify(w, line, idRoom[:0])
	if !ok {
		return
	}
	batch := line[0] == '['

	var s *Session
	created := false
	switch {
	case h.stateless():
		if !handshake && !h.versionOK(w, r) {
			return
		}
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
		w.Header()[h.sessionKey] = s.idValue
	}
	if !s.begin() {
		httpError(w, http.StatusTooManyRequests, "too many requests open in this session")
		return
	}
	defer s.finish()

	if len(ids) == 0 {
		if !s.deliver(line, r.Context().Done()) {
			httpError(w, http.StatusNotFound, "session ended")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	useJSON := !streamOK || (h.opts.JSONResponse && jsonOK)
	lazy := !useJSON && jsonOK && !batch && h.opts.AnswerWait > 0
	st, status, why := s.open(ids, useJSON, lazy, batch, handshake && created)
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
		h.answerJSON(w, r, s, st, line)
	} else {
		h.serveStream(w, r, s, st, 1, 0, line, lazy)
	}
	if created && s.handshakeFailed() {
		s.End()
	}
}

// classify appends to ids the ids of the requests in a POSTed line, and whether
// it is the protocol's handshake. It reads members the way a
// jsonrpc.Conn does (exact names, the last of duplicates), so that it
// expects an answer exactly when the connection gives one. A message that
// is neither a request, a notification nor a response gets 400 with
// -32600, as does a single request whose id is not a string, a number or
// null.
func (h *Handler) classify(w http.ResponseWriter, line []byte, ids []string) (_ []string, handshake, ok bool) {
	line = jsonscan.TrimSpace(line)
	msgs := [][]byte{line}
	if line[0] == '[' {
		msgs = arrayElements(line)
		if len(msgs) == 0 {
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
			return nil, false, false
		}
	}
	single := len(msgs) == 1 && line[0] != '['
	for _, raw := range msgs {
		if raw[0] != '{' {
			if single {
				rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be a JSON object")
				return nil, false, false
			}
			continue // the connection answers it within the batch
		}
		var method, rawID []byte
		var hasMethod, hasID, hasResult, hasError bool
		_ = jsonscan.DecodeObject(raw, func(key, value []byte) error {
			switch string(key) { // exact names; the last of duplicates wins
			case "method":
				method, hasMethod = value, true
			case "id":
				rawID, hasID = value, true
			case "result":
				hasResult = true
			case "error":
				hasError = true
			}
			return nil
		})
		switch {
		case hasMethod && hasID:
			var id jsonrpc.ID
			if err := id.UnmarshalJSON(rawID); err != nil {
				if single {
					rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: id must be a string, a number or null")
					return nil, false, false
				}
				continue
			}
			if !slices.Contains(ids, id.String()) { // the connection refuses a repeated one within its batch
				ids = append(ids, id.String())
			}
			if single && h.proto.Handshake != "" && method[0] == '"' && jsonscan.Unquote(method) == h.proto.Handshake {
				handshake = true
			}
		case !hasMethod && !hasResult && !hasError && single:
			rpcError(w, http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "Invalid Request: neither a request, a notification nor a response")
			return nil, false, false
		}
	}
	if h.proto.Handshake == "" {
		handshake = true // no handshake: any message opens a session
	}
	return ids, handshake, true
}

// arrayElements returns the elements of the JSON array b, valid JSON.
func arrayElements(b []byte) [][]byte {
	var elems [][]byte
	i := jsonscan.SkipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		end := jsonscan.SkipValue(b, i)
		elems = append(elems, b[i:end])
		i = jsonscan.SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = jsonscan.SkipSpace(b, i+1)
		}
	}
	return elems
}
